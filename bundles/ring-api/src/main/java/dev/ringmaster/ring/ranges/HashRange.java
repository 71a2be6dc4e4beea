package dev.ringmaster.ring.ranges;

/**
 * The hashes from {@code first} to {@code last}, both included, compared unsigned; written as
 * {@code shardRange} writes it: [start, end) in 16-digit hex, the end of the space being
 * {@code 0x10000000000000000}.
 */
public record HashRange(long first, long last) {

    private static final String END_OF_SPACE = "0x10000000000000000";

    public HashRange {
        if (Long.compareUnsigned(first, last) > 0) {
            throw new IllegalArgumentException("range " + hex(first) + " to " + hex(last) + " is empty");
        }
    }

    /** Whether {@code hash} lies in this range. */
    public boolean contains(long hash) {
        return Long.compareUnsigned(hash, first) >= 0 && Long.compareUnsigned(hash, last) <= 0;
    }

    /** The start, included: {@code 0x} and 16 hex digits. */
    public String start() {
        return hex(first);
    }

    /** The end, excluded: {@code 0x} and 16 hex digits, or {@value #END_OF_SPACE} for the end of the space. */
    public String end() {
        return last == -1L ? END_OF_SPACE : hex(last + 1);
    }

    /** The share of the whole 64-bit space this range covers. */
    public double fraction() {
        long size = last - first + 1;
        return size == 0 ? 1.0 : unsignedToDouble(size) / 0x1p64;
    }

    /** Reads {@code start} and {@code end} as {@link #start()} and {@link #end()} write them. */
    public static HashRange of(String start, String end) {
        long first = parse(start, false);
        long endValue = parse(end, true);
        boolean endOfSpace = END_OF_SPACE.equals(end);
        if (!endOfSpace && Long.compareUnsigned(endValue, first) <= 0) {
            throw new IllegalArgumentException("range " + start + "-" + end + " is empty: its end is not after its start");
        }
        return new HashRange(first, endValue - 1);
    }

    @Override
    public String toString() {
        return start() + "-" + end();
    }

    private static long parse(String bound, boolean mayBeEndOfSpace) {
        if (mayBeEndOfSpace && END_OF_SPACE.equals(bound)) {
            return 0;
        }
        if (bound == null || !bound.matches("0x[0-9a-f]{16}")) {
            throw new IllegalArgumentException("range bound \"" + bound + "\" is not 0x and 16 lower-case hex digits"
                    + (mayBeEndOfSpace ? " (or " + END_OF_SPACE + ")" : ""));
        }
        return Long.parseUnsignedLong(bound.substring(2), 16);
    }

    private static String hex(long value) {
        return String.format("0x%016x", value);
    }

    private static double unsignedToDouble(long value) {
        return (double) (value >>> 1) * 2.0 + (value & 1);
    }
}
