package dev.ringmaster.ring.balancer;

import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import java.util.ArrayList;
import java.util.List;

/**
 * The bucket grid of a ring, and the set operations the balancer needs in time linear in the ranges (both sets
 * are sorted and disjoint, as every {@link RangeSet} is).
 */
final class Grid {

    private final int buckets;
    private final int shift;

    /** @throws IllegalArgumentException unless {@code buckets} is a power of two from 1 to 4096 */
    Grid(int buckets) {
        if (buckets < 1 || buckets > RangePlacement.MAX_BUCKETS || Integer.bitCount(buckets) != 1) {
            throw new IllegalArgumentException("bucket count " + buckets + " is not a power of two from 1 to "
                    + RangePlacement.MAX_BUCKETS);
        }
        this.buckets = buckets;
        this.shift = 64 - Integer.numberOfTrailingZeros(buckets);
    }

    /** The bucket a hash lies in. */
    int bucket(long hash) {
        return shift == 64 ? 0 : (int) (hash >>> shift);
    }

    /** The last hash of bucket {@code index}. */
    private long lastOf(int index) {
        return index == buckets - 1 ? -1L : ((long) (index + 1) << shift) - 1;
    }

    /** {@code set} cut at the bucket boundaries, in order: each range lies in one bucket. */
    List<HashRange> cut(RangeSet set) {
        List<HashRange> pieces = new ArrayList<>();
        for (HashRange range : set.ranges()) {
            long first = range.first();
            while (bucket(first) != bucket(range.last())) {
                long last = lastOf(bucket(first));
                pieces.add(new HashRange(first, last));
                first = last + 1;
            }
            pieces.add(new HashRange(first, range.last()));
        }
        return pieces;
    }

    /** The hashes of {@code set} that {@code other} does not hold. */
    static RangeSet minus(RangeSet set, RangeSet other) {
        List<HashRange> theirs = other.ranges();
        List<HashRange> left = new ArrayList<>();
        int next = 0;
        for (HashRange range : set.ranges()) {
            while (next < theirs.size() && Long.compareUnsigned(theirs.get(next).last(), range.first()) < 0) {
                next++;
            }
            long first = range.first();
            boolean covered = false;
            for (int i = next; !covered && i < theirs.size()
                    && Long.compareUnsigned(theirs.get(i).first(), range.last()) <= 0; i++) {
                HashRange hole = theirs.get(i);
                if (Long.compareUnsigned(hole.first(), first) > 0) {
                    left.add(new HashRange(first, hole.first() - 1));
                }
                if (Long.compareUnsigned(hole.last(), range.last()) >= 0) {
                    covered = true;
                } else {
                    first = hole.last() + 1;
                }
            }
            if (!covered) {
                left.add(new HashRange(first, range.last()));
            }
        }
        return RangeSet.of(left);
    }

    /** The hashes both sets hold. */
    static RangeSet intersect(RangeSet set, RangeSet other) {
        return minus(set, minus(set, other));
    }
}
