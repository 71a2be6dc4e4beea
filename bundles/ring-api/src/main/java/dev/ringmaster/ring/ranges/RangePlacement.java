package dev.ringmaster.ring.ranges;

import dev.ringmaster.ring.XxHash64;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where a range-mode ring's ranges go: the space is cut into {@code buckets} equal ranges, and each
 * bucket goes to the shard that scores highest for it (rendezvous hashing, score XXH64 of
 * {@code <shard>/<bucket>}). A shard joining takes about 1/N of the buckets, only from the others; a
 * shard leaving gives only its own; adjacent buckets of one shard merge into one range.
 */
public final class RangePlacement {

    /**
     * The default bucket count: at four shards about 16 buckets each, give or take a few (what a fair
     * draw spreads); more buckets spread more evenly and write longer selectors.
     */
    public static final int DEFAULT_BUCKETS = 64;
    public static final int MAX_BUCKETS = 4096;

    private RangePlacement() {
    }

    /**
     * The ranges of each of {@code shards}; every hash lies in exactly one shard's set, and no shard
     * is left out (one with no bucket gets the empty set).
     *
     * @param buckets a power of two from 1 to {@value #MAX_BUCKETS}
     */
    public static Map<String, RangeSet> place(Collection<String> shards, int buckets) {
        if (buckets < 1 || buckets > MAX_BUCKETS || Integer.bitCount(buckets) != 1) {
            throw new IllegalArgumentException("bucket count " + buckets + " is not a power of two from 1 to " + MAX_BUCKETS);
        }
        Map<String, List<HashRange>> won = new TreeMap<>();
        TreeSet<String> names = new TreeSet<>(shards);
        names.forEach(shard -> won.put(shard, new ArrayList<>()));
        for (int bucket = 0; bucket < buckets && !names.isEmpty(); bucket++) {
            won.get(winner(names, bucket)).add(bucket(bucket, buckets));
        }
        Map<String, RangeSet> placed = new TreeMap<>();
        won.forEach((shard, ranges) -> placed.put(shard, RangeSet.of(ranges)));
        return placed;
    }

    /** The bucket of {@code buckets} (a power of two) that holds {@code hash}. */
    public static HashRange bucketContaining(long hash, int buckets) {
        int bits = Integer.numberOfTrailingZeros(buckets);
        return bucket(bits == 0 ? 0 : (int) (hash >>> (64 - bits)), buckets);
    }

    /** Bucket {@code index} of {@code buckets}: [index * 2^64 / buckets, (index + 1) * 2^64 / buckets). */
    static HashRange bucket(int index, int buckets) {
        int shift = 64 - Integer.numberOfTrailingZeros(buckets);
        long first = shift == 64 ? 0 : (long) index << shift;
        long last = shift == 64 ? -1L : first + ((1L << shift) - 1);
        return new HashRange(first, last);
    }

    /** The highest score wins; a tie goes to the smaller name (names are iterated in order). */
    private static String winner(TreeSet<String> names, int bucket) {
        String best = null;
        long bestScore = 0;
        for (String shard : names) {
            long score = XxHash64.hash(shard + "/" + bucket);
            if (best == null || Long.compareUnsigned(score, bestScore) > 0) {
                best = shard;
                bestScore = score;
            }
        }
        return best;
    }
}
