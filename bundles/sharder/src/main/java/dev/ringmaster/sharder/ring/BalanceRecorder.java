package dev.ringmaster.sharder.ring;

import dev.ringmaster.sharder.model.RingKey;
import java.util.Map;
import java.util.OptionalDouble;

/** Told what the leader found and did balancing a ring by load, of either mode, for its metrics. */
public interface BalanceRecorder {

    BalanceRecorder IGNORE = new BalanceRecorder() {
        @Override
        public void balanced(RingKey ring, Map<String, Double> load, double imbalance, OptionalDouble moved) {
        }

        @Override
        public void notBalanced(RingKey ring) {
        }
    };

    /**
     * A pass over a balanced ring: each available shard's load (busy seconds per second), the busiest over the mean,
     * and the share of the ring's objects a load step moved when the pass was one.
     */
    void balanced(RingKey ring, Map<String, Double> load, double imbalance, OptionalDouble moved);

    /** The ring is gone or no longer balanced. */
    void notBalanced(RingKey ring);
}
