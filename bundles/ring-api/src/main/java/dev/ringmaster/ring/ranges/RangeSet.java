package dev.ringmaster.ring.ranges;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The ranges of the 64-bit space one shard is assigned or serves: sorted, disjoint, and adjacent
 * ones merged, so equal sets are equal objects and write the same text.
 */
public final class RangeSet {

    public static final RangeSet EMPTY = new RangeSet(List.of());
    public static final RangeSet ALL = new RangeSet(List.of(new HashRange(0, -1L)));

    private final List<HashRange> ranges;

    private RangeSet(List<HashRange> ranges) {
        this.ranges = List.copyOf(ranges);
    }

    /** The union of {@code ranges}, which may overlap or touch. */
    public static RangeSet of(List<HashRange> ranges) {
        List<HashRange> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparing(HashRange::first, Long::compareUnsigned));
        List<HashRange> merged = new ArrayList<>();
        for (HashRange range : sorted) {
            HashRange previous = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (previous != null && (previous.last() == -1L
                    || Long.compareUnsigned(range.first(), previous.last() + 1) <= 0)) {
                if (Long.compareUnsigned(range.last(), previous.last()) > 0) {
                    merged.set(merged.size() - 1, new HashRange(previous.first(), range.last()));
                }
            } else {
                merged.add(range);
            }
        }
        return new RangeSet(merged);
    }

    /**
     * Reads the annotation form {@link #toString()} writes: {@code start-end} pairs joined by commas,
     * or nothing for the empty set.
     *
     * @throws IllegalArgumentException naming the part that is not a range
     */
    public static RangeSet parse(String text) {
        if (text == null || text.isBlank()) {
            return EMPTY;
        }
        List<HashRange> ranges = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String[] bounds = part.strip().split("-", -1);
            if (bounds.length != 2) {
                throw new IllegalArgumentException("\"" + part + "\" is not a range start-end");
            }
            ranges.add(HashRange.of(bounds[0], bounds[1]));
        }
        return of(ranges);
    }

    public List<HashRange> ranges() {
        return ranges;
    }

    public boolean isEmpty() {
        return ranges.isEmpty();
    }

    /** Whether {@code hash} lies in one of the ranges. */
    public boolean contains(long hash) {
        for (HashRange range : ranges) {
            if (range.contains(hash)) {
                return true;
            }
        }
        return false;
    }

    /** The share of the whole 64-bit space these ranges cover. */
    public double fraction() {
        return ranges.stream().mapToDouble(HashRange::fraction).sum();
    }

    public RangeSet union(RangeSet other) {
        List<HashRange> both = new ArrayList<>(ranges);
        both.addAll(other.ranges);
        return of(both);
    }

    public RangeSet intersect(RangeSet other) {
        List<HashRange> common = new ArrayList<>();
        for (HashRange mine : ranges) {
            for (HashRange theirs : other.ranges) {
                long first = Long.compareUnsigned(mine.first(), theirs.first()) >= 0 ? mine.first() : theirs.first();
                long last = Long.compareUnsigned(mine.last(), theirs.last()) <= 0 ? mine.last() : theirs.last();
                if (Long.compareUnsigned(first, last) <= 0) {
                    common.add(new HashRange(first, last));
                }
            }
        }
        return of(common);
    }

    public RangeSet minus(RangeSet other) {
        return intersect(other.complement());
    }

    /** Every hash these ranges do not cover. */
    public RangeSet complement() {
        List<HashRange> gaps = new ArrayList<>();
        long next = 0;
        boolean atEnd = false;
        for (HashRange range : ranges) {
            if (range.first() != next) {
                gaps.add(new HashRange(next, range.first() - 1));
            }
            atEnd = range.last() == -1L;
            next = range.last() + 1;
        }
        if (!atEnd) {
            gaps.add(new HashRange(next, -1L));
        }
        return new RangeSet(gaps);
    }

    /**
     * The {@code shardSelector} of a list or watch that returns the objects in these ranges, e.g.
     * {@code shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')}.
     *
     * @throws IllegalStateException for the empty set, which no selector expresses
     */
    public String selector(RangeKey key) {
        if (ranges.isEmpty()) {
            throw new IllegalStateException("the empty set of ranges has no shard selector");
        }
        return ranges.stream().map(range -> "shardRange(" + key.field() + ", '" + range.start() + "', '" + range.end() + "')")
                .collect(Collectors.joining(" || "));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RangeSet set && ranges.equals(set.ranges);
    }

    @Override
    public int hashCode() {
        return ranges.hashCode();
    }

    /** The annotation form: {@code start-end} pairs joined by commas; empty for the empty set. */
    @Override
    public String toString() {
        return ranges.stream().map(HashRange::toString).collect(Collectors.joining(","));
    }
}
