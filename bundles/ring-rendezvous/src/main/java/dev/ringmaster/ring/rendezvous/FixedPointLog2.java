package dev.ringmaster.ring.rendezvous;

/**
 * Base-2 logarithms of 64-bit unsigned integers in fixed point, with integer arithmetic only: a
 * 1025-entry table of log2(1 + i/1024), linearly interpolated. The table is computed once with
 * {@link StrictMath}, which is bit-for-bit the same on every JVM, so results are deterministic.
 * The interpolation error is at most (1/1024)^2 / (8 ln 2) < 1.8e-7 (in units of log2).
 */
final class FixedPointLog2 {

    /** Fractional bits of the results. */
    static final int FRACTION_BITS = 46;
    static final long ONE = 1L << FRACTION_BITS;

    private static final int TABLE_BITS = 10;
    private static final int INTERPOLATION_BITS = 26;
    private static final long[] TABLE = new long[(1 << TABLE_BITS) + 1];

    static {
        for (int i = 0; i < TABLE.length; i++) {
            double log2 = StrictMath.log(1.0 + (double) i / (1 << TABLE_BITS)) / StrictMath.log(2.0);
            TABLE[i] = Math.round(log2 * ONE);
        }
    }

    private FixedPointLog2() {
    }

    /**
     * {@code -log2(h / 2^64)} for {@code h} read as unsigned, in fixed point with
     * {@value #FRACTION_BITS} fractional bits: in ]0, 64] for every {@code h != 0}.
     */
    static long negativeLog2OfFraction(long h) {
        int leadingZeros = Long.numberOfLeadingZeros(h);
        long fraction = (h << leadingZeros) << 1; // mantissa bits after the leading one
        int index = (int) (fraction >>> (Long.SIZE - TABLE_BITS));
        long remainder = (fraction >>> (Long.SIZE - TABLE_BITS - INTERPOLATION_BITS)) & ((1L << INTERPOLATION_BITS) - 1);
        long low = TABLE[index];
        long log2Mantissa = low + (((TABLE[index + 1] - low) * remainder) >>> INTERPOLATION_BITS);
        // log2(h) = (63 - leadingZeros) + log2(mantissa); the fraction is h / 2^64
        return ((long) (leadingZeros + 1) << FRACTION_BITS) - log2Mantissa;
    }
}
