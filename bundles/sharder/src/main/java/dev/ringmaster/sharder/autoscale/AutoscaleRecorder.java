package dev.ringmaster.sharder.autoscale;

import dev.ringmaster.sharder.model.RingKey;

/** The leader's autoscaling metrics (docs/monitoring.md). */
public interface AutoscaleRecorder {

    AutoscaleRecorder NONE = new AutoscaleRecorder() {
        @Override
        public void shards(RingKey ring, int current, int desired) {
        }

        @Override
        public void notAutoscaled(RingKey ring) {
        }
    };

    /** The scale target's replicas and the autoscaler's stabilized recommendation, as its last pass saw them. */
    void shards(RingKey ring, int current, int desired);

    /** The ring is gone, no longer autoscaled, or its scale target cannot be read. */
    void notAutoscaled(RingKey ring);
}
