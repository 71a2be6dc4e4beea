package org.example.ringmaster.jumphash;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.XxHash64;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.osgi.service.component.annotations.Component;

/**
 * Example plug-in: Lamping and Veach's jump consistent hash over the shards sorted by name. It
 * needs no memory per shard and balances perfectly, but it numbers its buckets in name order, so it
 * ignores weights, and adding or removing a shard whose name does not sort last (name order is
 * textual: {@code shard-10} sorts before {@code shard-2}) renumbers the others and moves far more
 * keys than rendezvous hashing would; {@code ringmaster simulate --strategy jump-hash} shows it.
 */
@Component(property = PartitioningStrategy.NAME + "=" + JumpHashStrategy.NAME)
public class JumpHashStrategy implements PartitioningStrategy {

    public static final String NAME = "jump-hash";

    @Override
    public ShardRing build(Collection<Shard> shards) {
        List<Shard> sorted = Shard.sortedByName(shards);
        return new ShardRing() {
            @Override
            public List<Shard> shards() {
                return sorted;
            }

            @Override
            public Optional<String> shardFor(String key) {
                return sorted.isEmpty() ? Optional.empty()
                        : Optional.of(sorted.get(bucket(XxHash64.hash(key), sorted.size())).name());
            }
        };
    }

    /** The jump consistent hash of a key over {@code buckets} buckets (arXiv:1406.2294). */
    static int bucket(long key, int buckets) {
        long b = -1;
        long j = 0;
        while (j < buckets) {
            b = j;
            key = key * 2862933555777941757L + 1;
            j = (long) ((b + 1) * ((double) (1L << 31) / (double) ((key >>> 33) + 1)));
        }
        return (int) b;
    }
}
