package dev.ringmaster.sharder.lease;

import dev.ringmaster.sharder.model.RingKey;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Immutable view of every ring's shards, published by the shard lease controller and swapped
 * atomically; consumers compare the shards of a ring to decide whether its ring must be rebuilt.
 */
public record Membership(Map<RingKey, List<ShardInfo>> shardsByRing) {

    public static final Membership EMPTY = new Membership(Map.of());

    public Membership {
        Objects.requireNonNull(shardsByRing, "shardsByRing");
        TreeMap<RingKey, List<ShardInfo>> copy = new TreeMap<>();
        shardsByRing.forEach((ring, shards) -> copy.put(ring, List.copyOf(shards)));
        shardsByRing = Collections.unmodifiableMap(copy);
    }

    /** The shards of a ring, sorted by name; empty if it has none. */
    public List<ShardInfo> shards(RingKey ring) {
        return shardsByRing.getOrDefault(ring, List.of());
    }

    /** The shards that may be assigned objects. */
    public List<ShardInfo> availableShards(RingKey ring) {
        return shards(ring).stream().filter(ShardInfo::isAvailable).toList();
    }
}
