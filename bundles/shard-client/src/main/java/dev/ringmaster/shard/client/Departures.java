package dev.ringmaster.shard.client;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The rules of {@link ShardDeparture#statefulSet} and {@link ShardDeparture#pool}. */
final class Departures {

    private static final Logger LOG = LoggerFactory.getLogger(ShardDeparture.class);
    /** The departure's reads make each request once and give up after this long: a stop must not hang. */
    static final Duration READ_TIMEOUT = Duration.ofSeconds(5);
    /** {@code <name>-<ordinal>}, the ordinal without leading zeros. */
    static final Pattern ORDINAL_NAME = Pattern.compile("(.+)-(0|[1-9][0-9]{0,8})");

    private Departures() {
    }

    /** A leave because the decision could not be made, with a warning naming why. */
    static ShardDeparture.Decision undecided(String shard, String what, RuntimeException e) {
        String why = "cannot " + what + ": " + describe(e);
        LOG.warn("Shard {}: cannot tell whether this stop is a restart, so it leaves: {}", shard, why);
        return ShardDeparture.Decision.leave(why);
    }

    private static String describe(RuntimeException e) {
        if (e instanceof KubernetesClientException k && k.getCode() > 0) {
            return "HTTP " + k.getCode() + (k.getStatus() != null && k.getStatus().getMessage() != null
                    ? " " + k.getStatus().getMessage() : "");
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    static final class StatefulSetRule implements ShardDeparture {

        private final KubernetesClient client;
        private final String namespace;
        private final String podName;

        StatefulSetRule(KubernetesClient client, String namespace, String podName) {
            this.client = Sharding.Builder.failFast(Objects.requireNonNull(client, "client"), READ_TIMEOUT);
            this.namespace = Objects.requireNonNull(namespace, "namespace");
            this.podName = Objects.requireNonNull(podName, "podName");
        }

        @Override
        public Decision decide(String shard, Instant now) {
            Matcher name = ORDINAL_NAME.matcher(podName);
            if (!name.matches()) {
                return Decision.leave("pod " + podName + " is not named <statefulset>-<ordinal>");
            }
            String set = name.group(1);
            int ordinal = Integer.parseInt(name.group(2));
            StatefulSet statefulSet;
            try {
                statefulSet = client.apps().statefulSets().inNamespace(namespace).withName(set).get();
            } catch (RuntimeException e) {
                return undecided(shard, "read StatefulSet " + namespace + "/" + set, e);
            }
            if (statefulSet == null) {
                return Decision.leave("StatefulSet " + set + " does not exist");
            }
            if (statefulSet.getMetadata().getDeletionTimestamp() != null) {
                return Decision.leave("StatefulSet " + set + " is being deleted");
            }
            int replicas = statefulSet.getSpec() == null || statefulSet.getSpec().getReplicas() == null
                    ? 1 : statefulSet.getSpec().getReplicas();
            int start = statefulSet.getSpec() == null || statefulSet.getSpec().getOrdinals() == null
                    || statefulSet.getSpec().getOrdinals().getStart() == null
                    ? 0 : statefulSet.getSpec().getOrdinals().getStart();
            String counts = "StatefulSet " + set + " has " + replicas + (replicas == 1 ? " replica" : " replicas")
                    + (start == 0 ? "" : " from ordinal " + start) + " and this is ordinal " + ordinal;
            return ordinal >= start && ordinal - start < replicas ? Decision.restart(counts) : Decision.leave(counts);
        }
    }

    static final class PoolRule implements ShardDeparture {

        private final KubernetesClient client;
        private final String namespace;
        private final String pool;

        PoolRule(KubernetesClient client, String namespace, String pool) {
            this.client = Sharding.Builder.failFast(Objects.requireNonNull(client, "client"), READ_TIMEOUT);
            this.namespace = Objects.requireNonNull(namespace, "namespace");
            this.pool = Objects.requireNonNull(pool, "poolName");
        }

        @Override
        public Decision decide(String shard, Instant now) {
            Deployment deployment;
            try {
                deployment = client.apps().deployments().inNamespace(namespace).withName(pool).get();
            } catch (RuntimeException e) {
                return undecided(shard, "read Deployment " + namespace + "/" + pool, e);
            }
            if (deployment == null) {
                return Decision.leave("Deployment " + pool + " does not exist");
            }
            if (deployment.getMetadata().getDeletionTimestamp() != null) {
                return Decision.leave("Deployment " + pool + " is being deleted");
            }
            int replicas = deployment.getSpec() == null || deployment.getSpec().getReplicas() == null
                    ? 1 : deployment.getSpec().getReplicas();
            Set<String> live = new TreeSet<>();
            try {
                for (Lease lease : client.leases().inNamespace(namespace).list().getItems()) {
                    if (ShardPool.slotIndex(pool, lease.getMetadata().getName()) >= 0 && LeaseRules.liveHolder(lease, now)) {
                        live.add(lease.getMetadata().getName());
                    }
                }
            } catch (RuntimeException e) {
                return undecided(shard, "list the Leases of pool " + pool + " in " + namespace, e);
            }
            live.add(shard);
            String counts = "Deployment " + pool + " has " + replicas + (replicas == 1 ? " replica" : " replicas")
                    + " and the pool has " + live.size() + (live.size() == 1 ? " live holder " : " live holders ")
                    + live;
            return live.size() <= replicas ? Decision.restart(counts) : Decision.leave(counts);
        }
    }
}
