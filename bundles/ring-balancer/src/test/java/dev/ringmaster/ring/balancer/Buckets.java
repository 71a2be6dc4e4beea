package dev.ringmaster.ring.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangeSet;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The test's own view of a placement on the bucket grid: bucket i of B is [i·2^64/B, (i+1)·2^64/B), computed
 * here in big integers rather than taken from the code under test.
 */
final class Buckets {

    private static final BigInteger SPACE = BigInteger.ONE.shiftLeft(64);

    private Buckets() {
    }

    static RangeSet bucket(int index, int buckets) {
        long first = SPACE.multiply(BigInteger.valueOf(index)).divide(BigInteger.valueOf(buckets)).longValue();
        long last = SPACE.multiply(BigInteger.valueOf(index + 1)).divide(BigInteger.valueOf(buckets))
                .subtract(BigInteger.ONE).longValue();
        return RangeSet.of(List.of(new HashRange(first, last)));
    }

    /**
     * The shard that holds each whole bucket, after checking that the placement covers the whole space once: every
     * bucket lies wholly in exactly one shard's ranges, and no shard holds anything else.
     */
    static String[] owners(Map<String, RangeSet> placement, int buckets) {
        String[] owners = new String[buckets];
        for (int bucket = 0; bucket < buckets; bucket++) {
            RangeSet whole = bucket(bucket, buckets);
            for (Map.Entry<String, RangeSet> shard : new TreeMap<>(placement).entrySet()) {
                RangeSet common = shard.getValue().intersect(whole);
                if (common.isEmpty()) {
                    continue;
                }
                assertThat(common).as("%s's part of bucket %d of %d", shard.getKey(), bucket, buckets).isEqualTo(whole);
                assertThat(owners[bucket]).as("bucket %d of %d held twice", bucket, buckets).isNull();
                owners[bucket] = shard.getKey();
            }
            assertThat(owners[bucket]).as("bucket %d of %d held by nobody", bucket, buckets).isNotNull();
        }
        return owners;
    }

    /** How many whole buckets each shard of {@code placement} holds (0 for one with none). */
    static Map<String, Integer> counts(Map<String, RangeSet> placement, int buckets) {
        Map<String, Integer> counts = new TreeMap<>();
        placement.keySet().forEach(shard -> counts.put(shard, 0));
        for (String owner : owners(placement, buckets)) {
            counts.merge(owner, 1, Integer::sum);
        }
        return counts;
    }

    /** Every shard holds ⌊B/N⌋ or ⌈B/N⌉ whole buckets; the union is the whole space, nothing twice. */
    static void assertEven(Map<String, RangeSet> placement, List<String> shards, int buckets) {
        assertThat(placement).containsOnlyKeys(shards);
        Map<String, Integer> counts = counts(placement, buckets);
        int floor = buckets / shards.size();
        int ceiling = (buckets + shards.size() - 1) / shards.size();
        assertThat(counts.values()).as("buckets per shard, B=%d N=%d: %s", buckets, shards.size(), counts)
                .allMatch(count -> count == floor || count == ceiling);
        assertThat(counts.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(buckets);
        List<HashRange> all = new ArrayList<>();
        placement.values().forEach(ranges -> all.addAll(ranges.ranges()));
        assertThat(RangeSet.of(all)).isEqualTo(RangeSet.ALL);
    }

    /** Buckets whose owner differs between two placements of the same grid. */
    static int moved(String[] before, String[] after) {
        int moved = 0;
        for (int bucket = 0; bucket < before.length; bucket++) {
            if (!before[bucket].equals(after[bucket])) {
                moved++;
            }
        }
        return moved;
    }
}
