package dev.ringmaster.shard.client;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.Objects;

/**
 * Decides, when a shard stops gracefully ({@link ShardLease#close()}), whether this stop is a
 * {@linkplain Kind#RESTART restart} (the same identity comes back: keep the Lease, marked
 * {@code ringmaster.dev/restarting}, so the sharder leaves the objects where they are for the ring's
 * restart grace) or a {@linkplain Kind#LEAVE leave} (release the Lease, so the sharder moves the objects
 * at once). Asked once, while the shard still holds its Lease.
 *
 * <p>An implementation that throws counts as {@link Kind#LEAVE}, logged as a warning; the factories
 * here never throw: a decision they cannot make (a 403, an unreachable API server) is a leave, with a
 * warning naming why.
 */
@FunctionalInterface
public interface ShardDeparture {

    /** What a graceful stop does with the Lease. */
    enum Kind {
        /** The shard comes back under the same name: keep the Lease, annotated {@code ringmaster.dev/restarting}. */
        RESTART,
        /** The shard goes away: release the Lease (holder cleared). */
        LEAVE
    }

    /**
     * A decision and why, in words for the log (e.g. "StatefulSet checksum-controller has 3 replicas and
     * this is ordinal 2").
     */
    record Decision(Kind kind, String reason) {

        public Decision {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(reason, "reason");
        }

        public static Decision restart(String reason) {
            return new Decision(Kind.RESTART, reason);
        }

        public static Decision leave(String reason) {
            return new Decision(Kind.LEAVE, reason);
        }
    }

    /**
     * Decides for the shard {@code shard} stopping at {@code now} (the lease's clock).
     *
     * @param shard the shard's name, which is its Lease's name
     * @param now   the lease clock's time
     */
    Decision decide(String shard, Instant now);

    /** Every stop is a leave: the Lease is released. The default, as before stable identities. */
    static ShardDeparture leave() {
        return (shard, now) -> Decision.leave("this shard leaves on every stop");
    }

    /** Every stop is a restart: the Lease is kept, marked restarting. */
    static ShardDeparture restart() {
        return (shard, now) -> Decision.restart("this shard restarts on every stop");
    }

    /**
     * For a pod of a StatefulSet: a restart iff {@code podName} is {@code <sts>-<ordinal>}, the
     * StatefulSet {@code <sts>} exists in {@code namespace}, is not being deleted, and the ordinal is
     * below its {@code spec.replicas} (counted from {@code spec.ordinals.start}); a leave otherwise (a
     * scale-down, the StatefulSet deleted or not found). Needs {@code get statefulsets} (apps) in the
     * namespace.
     */
    static ShardDeparture statefulSet(KubernetesClient client, String namespace, String podName) {
        return new Departures.StatefulSetRule(client, namespace, podName);
    }

    /**
     * For a Deployment whose pods take their names from a pool ({@link ShardPool}): a restart iff the
     * Deployment {@code poolName} exists in {@code namespace}, is not being deleted, and the live holders
     * of the pool's Leases {@code <poolName>-<i>} (holder = Lease name, not marked restarting, not
     * expired; this shard included) are no more than its {@code spec.replicas}; a leave otherwise (on a
     * scale-down 3 to 2, three live holders are more than 2). Needs {@code get deployments} (apps) and
     * {@code list leases} (coordination.k8s.io) in the namespace.
     */
    static ShardDeparture pool(KubernetesClient client, String namespace, String poolName) {
        return new Departures.PoolRule(client, namespace, poolName);
    }
}
