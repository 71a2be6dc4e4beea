package dev.ringmaster.ring;

import java.util.Objects;
import java.util.Optional;

/**
 * What the webhook and the sharder share about one ring at one moment: the strategy in force and
 * the ring it built over the available shards. Immutable; replaced as a whole on any change.
 *
 * @param ring     the ClusterRing name
 * @param strategy the name of the partitioning strategy that built {@code shards}
 * @param shards   the ring of available shards
 */
public record RingSnapshot(String ring, String strategy, ShardRing shards) {

    public RingSnapshot {
        Objects.requireNonNull(ring, "ring");
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(shards, "shards");
    }

    /** The desired shard of a partition key; empty when no shard is available. */
    public Optional<String> shardFor(String key) {
        return shards.shardFor(key);
    }
}
