package dev.ringmaster.sharder.rebalance;

import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ring.Move;

/** Told of every move that was written, e.g. to count it. */
@FunctionalInterface
public interface MoveRecorder {

    MoveRecorder NONE = (ring, resource, move) -> { };

    void written(RingKey ring, ResolvedResource resource, Move move);
}
