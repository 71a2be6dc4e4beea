package dev.ringmaster.itests.hotswap;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import dev.ringmaster.ring.ShardRing;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Not a test: the code of a rebuilt jump-hash plug-in in {@code StrategyHotSwapIT}. It puts a key on
 * shard {@code floorMod(key.hashCode(), n)} of the shards sorted by name, so the test can tell its
 * placements from jump hash's and compute them on its own.
 */
public final class ModuloStrategy implements PartitioningStrategy {

    /** The shard index of a key among {@code shards} shards. */
    public static int index(String key, int shards) {
        return Math.floorMod(key.hashCode(), shards);
    }

    @Override
    public ShardRing build(Collection<Shard> shards) {
        return new Ring(Shard.sortedByName(shards));
    }

    private record Ring(List<Shard> shards) implements ShardRing {

        @Override
        public Optional<String> shardFor(String key) {
            return shards.isEmpty() ? Optional.empty() : Optional.of(shards.get(index(key, shards.size())).name());
        }
    }
}
