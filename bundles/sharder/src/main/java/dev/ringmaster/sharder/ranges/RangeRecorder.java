package dev.ringmaster.sharder.ranges;

import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.ring.spi.Placement;
import dev.ringmaster.sharder.model.RingKey;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** Told what the range assigner published and handed over, for the leader's metrics. */
public interface RangeRecorder {

    RangeRecorder IGNORE = new RangeRecorder() {
        @Override
        public void assigned(RingKey ring, Map<String, RangeSet> assigned) {
        }

        @Override
        public void handedOver(RingKey ring, long buckets, Duration took) {
        }

        @Override
        public void balanced(RingKey ring, Map<String, Double> load, double imbalance, Optional<Placement> step) {
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

    /**
     * A pass over a balanced ring: each available shard's load (busy seconds per second of the ranges it is assigned),
     * the busiest over the mean, and the policy's answer when the pass was a load step that moved ranges.
     */
    void balanced(RingKey ring, Map<String, Double> load, double imbalance, Optional<Placement> step);

    /** The ring is gone or no longer in range mode. */
    void forget(RingKey ring);
}
