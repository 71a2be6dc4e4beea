package dev.ringmaster.sharder.ranges;

import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ring.BalanceRecorder;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalDouble;

/** Told what the range assigner published and handed over, for the leader's metrics. */
public interface RangeRecorder extends BalanceRecorder {

    RangeRecorder IGNORE = new RangeRecorder() {
        @Override
        public void assigned(RingKey ring, Map<String, RangeSet> assigned) {
        }

        @Override
        public void handedOver(RingKey ring, long buckets, Duration took) {
        }

        @Override
        public void balanced(RingKey ring, Map<String, Double> load, double imbalance, OptionalDouble moved) {
        }

        @Override
        public void notBalanced(RingKey ring) {
        }

        @Override
        public void forget(RingKey ring) {
        }
    };

    /** Every shard Lease's assignment after a pass over the ring (the empty set for a shard with none). */
    void assigned(RingKey ring, Map<String, RangeSet> assigned);

    /**
     * Buckets that left one shard's assignment entered another's, {@code took} after they left.
     */
    void handedOver(RingKey ring, long buckets, Duration took);

    /** The ring is gone or no longer in range mode: its assignments and balancing are forgotten. */
    void forget(RingKey ring);
}
