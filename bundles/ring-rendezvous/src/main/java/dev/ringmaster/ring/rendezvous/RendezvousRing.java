package dev.ringmaster.ring.rendezvous;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.XxHash64;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Weighted rendezvous hashing (Buildbarn ADR #10): each shard scores a key with
 * {@code -weight / ln(h)}, h a 64-bit mix of the key hash and the shard hash read as a fraction in
 * ]0,1[, and the highest score wins. Since {@code ln(h) = log2(h) * ln 2}, comparing
 * {@code weight / -log2(h)} is equivalent; with fixed-point logarithms and cross-multiplication the
 * comparison is exact integer arithmetic, so every JVM picks the same shard.
 *
 * <p>Among shards of equal weight the score grows with h, so each weight group is decided by an
 * unsigned comparison of h alone, and the logarithm is taken only for each group's winner: an
 * unweighted ring never takes one.
 *
 * <p>Removing a shard moves only its keys; adding a shard of weight w moves each key with
 * probability w / (total weight).
 */
public final class RendezvousRing implements ShardRing {

    private final List<Shard> shards;
    /** Shards ordered by weight, then name; groupStart[g] is the first shard of group g. */
    private final String[] names;
    private final long[] nameHashes;
    private final int[] groupStart;
    private final long[] groupWeight;

    private RendezvousRing(List<Shard> shards) {
        this.shards = shards;
        List<Shard> byWeight = shards.stream().sorted(Comparator.comparingInt(Shard::weight)).toList();
        this.names = new String[byWeight.size()];
        this.nameHashes = new long[byWeight.size()];
        List<Integer> starts = new ArrayList<>();
        List<Integer> weights = new ArrayList<>();
        for (int i = 0; i < byWeight.size(); i++) {
            Shard shard = byWeight.get(i);
            names[i] = shard.name();
            nameHashes[i] = XxHash64.hash(shard.name());
            if (i == 0 || shard.weight() != byWeight.get(i - 1).weight()) {
                starts.add(i);
                weights.add(shard.weight());
            }
        }
        starts.add(byWeight.size());
        this.groupStart = starts.stream().mapToInt(Integer::intValue).toArray();
        this.groupWeight = weights.stream().mapToLong(Integer::longValue).toArray();
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
        int best = -1;
        long bestWeight = 0;
        long bestDistance = 0;
        for (int group = 0; group < groupWeight.length; group++) {
            int winner = groupStart[group];
            long winnerHash = mix(keyHash ^ nameHashes[winner]);
            for (int i = winner + 1; i < groupStart[group + 1]; i++) {
                long hash = mix(keyHash ^ nameHashes[i]);
                if (Long.compareUnsigned(hash, winnerHash) > 0) {
                    winner = i;
                    winnerHash = hash;
                }
            }
            if (best < 0) {
                best = winner;
                bestWeight = groupWeight[group];
                bestDistance = groupWeight.length == 1 ? 0 : distance(winnerHash);
                continue;
            }
            long distance = distance(winnerHash);
            long weight = groupWeight[group];
            // weight / distance > bestWeight / bestDistance, without division; ties keep the lighter
            // group. Products stay below 2^62 (weight <= 1000, distance <= 2^52).
            if (weight * bestDistance > bestWeight * distance) {
                best = winner;
                bestWeight = weight;
                bestDistance = distance;
            }
        }
        return Optional.of(names[best]);
    }

    /** {@code -log2(h)} of a key/shard hash h read as a fraction in ]0,1[, in fixed point. */
    private static long distance(long hash) {
        return FixedPointLog2.negativeLog2OfFraction(hash | 1L);
    }

    /** SplitMix64's finalizer: a bijection with full avalanche. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
