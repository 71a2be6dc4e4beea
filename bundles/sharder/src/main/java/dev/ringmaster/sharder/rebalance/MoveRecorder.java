package dev.ringmaster.sharder.rebalance;

import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ring.Move;
import java.time.Duration;
import java.util.Map;

/** Told of every move that was written and of every rebalance pass, e.g. to count them. */
@FunctionalInterface
public interface MoveRecorder {

    MoveRecorder NONE = (ring, resource, move) -> { };

    void written(RingKey ring, ResolvedResource resource, Move move);

    /** A pass over the ring ended with this summary after {@code took}. */
    default void passed(RingKey ring, PassSummary summary, Duration took) {
    }

    /** The objects a pass over the ring examined, by resource and the shard they were listed on (empty: none). */
    default void objectsPerShard(RingKey ring, Map<ResolvedResource, Map<String, Long>> objects) {
    }

    /** A pass over the ring failed after {@code took} (it is retried with backoff). */
    default void passFailed(RingKey ring, Duration took) {
    }
}
