package dev.ringmaster.testing.apiserver;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/** Range mode's hash ranges as the tests read them off shard Leases, independent of the code under test. */
public final class HashRanges {

    private HashRanges() {
    }

    /**
     * The annotation form: {@code 0x<16 hex>-0x<16 hex>} pairs, comma-separated, [start, end) each, the end
     * of the space {@code 0x1} and 16 zeros.
     */
    public static List<BigInteger[]> parse(String text) {
        List<BigInteger[]> ranges = new ArrayList<>();
        for (String part : text.split(",")) {
            String[] bounds = part.strip().split("-");
            ranges.add(new BigInteger[] {new BigInteger(bounds[0].substring(2), 16), new BigInteger(bounds[1].substring(2), 16)});
        }
        return ranges;
    }

    /** A 64-bit hash as the unsigned number the ranges cut. */
    public static BigInteger unsigned(long hash) {
        return new BigInteger(Long.toUnsignedString(hash));
    }
}
