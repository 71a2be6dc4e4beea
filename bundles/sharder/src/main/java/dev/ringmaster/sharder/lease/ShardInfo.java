package dev.ringmaster.sharder.lease;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.LeaseRecord;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One shard of a ring as the shard lease controller last classified it.
 *
 * @param name   the Lease (and shard) name
 * @param state  the lease detector's verdict
 * @param weight     from the {@code ringmaster.dev/weight} annotation, 1 when absent or invalid
 * @param restarting whether the shard is held available for its restart ({@link RestartHold}): its Lease
 *                   marked {@code ringmaster.dev/restarting}, within its ring's restart grace
 * @param renewing   whether the shard still renews its own Lease (held by its name, not expired), whatever
 *                   the detector says: its process may be reconciling, so only a drain may take its objects
 * @param ranges     what its Lease says of the ranges it serves ({@code ringmaster.dev/served-ranges}): a ring that
 *                   left range mode labels no object beside a shard that serves some, and a ring in range mode
 *                   grants no range while a shard that serves by labels may still reconcile
 */
public record ShardInfo(String name, ShardState state, int weight, boolean restarting, boolean renewing,
                        RangeClaim ranges) {

    /** What a shard's Lease says of the ranges of the hash space it serves. */
    public enum RangeClaim {
        /** No {@code served-ranges} at all: the shard serves the objects labelled with it (label mode). */
        UNANNOUNCED,
        /** {@code served-ranges} empty: a shard in range mode serving nothing now. */
        NONE,
        /** {@code served-ranges} holds a range, or cannot be read (which may hide one). */
        SOME;

        /** What {@code lease} says. */
        public static RangeClaim of(Lease lease) {
            Map<String, String> annotations = lease.getMetadata().getAnnotations();
            String served = annotations == null ? null : annotations.get(RingContract.SERVED_RANGES_ANNOTATION);
            if (served == null) {
                return UNANNOUNCED;
            }
            try {
                return RangeSet.parse(served).isEmpty() ? NONE : SOME;
            } catch (IllegalArgumentException unreadable) {
                return SOME;
            }
        }
    }

    public ShardInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(ranges, "ranges");
    }

    /** A shard that serves by labels: its Lease announces no ranges. */
    public ShardInfo(String name, ShardState state, int weight, boolean restarting, boolean renewing) {
        this(name, state, weight, restarting, renewing, RangeClaim.UNANNOUNCED);
    }

    /** A shard that is not held for a restart, renewing its Lease exactly when it is ready. */
    public ShardInfo(String name, ShardState state, int weight) {
        this(name, state, weight, false);
    }

    /** A shard renewing its Lease exactly when it is ready (as the default detector judges). */
    public ShardInfo(String name, ShardState state, int weight, boolean restarting) {
        this(name, state, weight, restarting, state == ShardState.READY);
    }

    /**
     * The shard of a Lease as {@code detector} judges it at {@code now}, with its weight, for a reader
     * beside the sharder: as the shard lease controller judges it, with the default restart grace, without
     * a leader's term grace and without reporting an invalid weight.
     */
    public static ShardInfo judge(Lease lease, LeaseDetector detector, Instant now) {
        return judge(lease, detector, RestartHold.DEFAULT_GRACE, now);
    }

    /** {@link #judge(Lease, LeaseDetector, Instant)} with the restart grace of the Lease's ring. */
    public static ShardInfo judge(Lease lease, LeaseDetector detector, Duration restartGrace, Instant now) {
        Map<String, String> annotations = lease.getMetadata().getAnnotations();
        String weight = annotations == null ? null : annotations.get(RingContract.WEIGHT_ANNOTATION);
        LeaseRecord record = ShardLeaseReconciler.toRecord(lease);
        RestartHold hold = RestartHold.of(record, restartGrace, now);
        return new ShardInfo(lease.getMetadata().getName(), hold.apply(detector.detect(record, now)).state(),
                ShardWeight.parse(weight).orElse(ShardWeight.DEFAULT), hold.holds(),
                ShardLeaseReconciler.renewing(record, now), RangeClaim.of(lease));
    }

    public boolean isAvailable() {
        return state.isAvailable();
    }

    /** Whether the shard may be reconciling its objects: available, or still renewing its own Lease. */
    public boolean mayReconcile() {
        return isAvailable() || renewing;
    }

    /** Whether the shard may be reconciling objects of its ranges: it serves some and may be reconciling. */
    public boolean mayReconcileRanges() {
        return ranges == RangeClaim.SOME && mayReconcile();
    }

    /** Whether the shard may be reconciling objects labelled with it: it announces no ranges and may be reconciling. */
    public boolean mayReconcileLabels() {
        return ranges == RangeClaim.UNANNOUNCED && mayReconcile();
    }

    public Shard toShard() {
        return new Shard(name, weight);
    }
}
