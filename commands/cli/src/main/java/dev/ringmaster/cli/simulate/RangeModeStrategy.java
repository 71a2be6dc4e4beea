package dev.ringmaster.cli.simulate;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * A range-mode ring (docs/design.md section 9) as a strategy, for {@code simulate --ranges}: the shard
 * whose ranges hold the object's hash. A simulated object's namespace is its key's, and its uid a
 * name-based UUID of the key, so runs repeat.
 */
record RangeModeStrategy(int buckets, RangeKey key) implements PartitioningStrategy {

    @Override
    public ShardRing build(Collection<Shard> shards) {
        List<Shard> sorted = shards.stream().sorted((a, b) -> a.name().compareTo(b.name())).toList();
        Map<String, RangeSet> placed = RangePlacement.place(sorted.stream().map(Shard::name).toList(), buckets);
        return new ShardRing() {
            @Override
            public List<Shard> shards() {
                return sorted;
            }

            @Override
            public Optional<String> shardFor(String partitionKey) {
                long hash = key.hash(UUID.nameUUIDFromBytes(partitionKey.getBytes(StandardCharsets.UTF_8)).toString(),
                        partitionKey.split("/", -1)[2]);
                return placed.entrySet().stream().filter(entry -> entry.getValue().contains(hash))
                        .map(Map.Entry::getKey).findFirst();
            }
        };
    }

    /** How the result names it, e.g. {@code ranges (64 buckets, key uid)}. */
    String displayName() {
        return "ranges (" + buckets + " buckets, key " + key.specName() + ")";
    }
}
