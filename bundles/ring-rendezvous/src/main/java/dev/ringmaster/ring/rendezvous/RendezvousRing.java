package dev.ringmaster.ring.rendezvous;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.XxHash64;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Weighted rendezvous hashing (Buildbarn ADR #10): each shard scores a key with
 * {@code -weight / ln(h)}, h a 64-bit mix of the key hash and the shard hash read as a fraction in
 * ]0,1[, and the highest score wins. Since {@code ln(h) = log2(h) * ln 2}, comparing
 * {@code weight / -log2(h)} is equivalent; with fixed-point logarithms and cross-multiplication the
 * comparison is exact integer arithmetic, so every JVM picks the same shard.
 *
 * <p>Removing a shard moves only its keys; adding a shard of weight w moves each key with
 * probability w / (total weight).
 */
public final class RendezvousRing implements ShardRing {

    private final List<Shard> shards;
    private final String[] names;
    private final long[] nameHashes;
    private final long[] weights;

    private RendezvousRing(List<Shard> shards) {
        this.shards = shards;
        int n = shards.size();
        this.names = new String[n];
        this.nameHashes = new long[n];
        this.weights = new long[n];
        for (int i = 0; i < n; i++) {
            Shard shard = shards.get(i);
            names[i] = shard.name();
            nameHashes[i] = XxHash64.hash(shard.name());
            weights[i] = shard.weight();
        }
    }

    /** Builds the ring; shard order does not matter, duplicate names are rejected. */
    public static RendezvousRing build(Collection<Shard> shards) {
        return new RendezvousRing(Shard.sortedByName(shards));
    }

    @Override
    public List<Shard> shards() {
        return shards;
    }

    @Override
    public Optional<String> shardFor(String key) {
        if (names.length == 0) {
            return Optional.empty();
        }
        long keyHash = XxHash64.hash(key);
        int best = 0;
        long bestDistance = distance(keyHash, nameHashes[0]);
        for (int i = 1; i < names.length; i++) {
            long distance = distance(keyHash, nameHashes[i]);
            // weights[i] / distance > weights[best] / bestDistance, without division; ties keep the
            // shard whose name sorts first. Products stay below 2^62 (weight <= 1000, distance <= 2^52).
            if (weights[i] * bestDistance > weights[best] * distance) {
                best = i;
                bestDistance = distance;
            }
        }
        return Optional.of(names[best]);
    }

    /** {@code -log2(h)} of the key/shard pair's hash h in ]0,1[, in fixed point. */
    private static long distance(long keyHash, long nameHash) {
        return FixedPointLog2.negativeLog2OfFraction(mix(keyHash ^ nameHash) | 1L);
    }

    /** SplitMix64's finalizer: a bijection with full avalanche. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
