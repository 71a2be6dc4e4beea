package dev.ringmaster.ring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * XXH64 with seed 0, bit-for-bit the hash the reference sharder uses (cespare/xxhash), so both
 * place keys and tokens at the same ring positions.
 */
public final class XxHash64 {

    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private XxHash64() {
    }

    /** XXH64 of the UTF-8 encoding of {@code value}. */
    public static long hash(String value) {
        return hash(value.getBytes(StandardCharsets.UTF_8));
    }

    /** XXH64 of {@code input}. */
    public static long hash(byte[] input) {
        int length = input.length;
        int offset = 0;
        long h;
        if (length >= 32) {
            long v1 = P1 + P2;
            long v2 = P2;
            long v3 = 0;
            long v4 = -P1;
            int limit = length - 32;
            do {
                v1 = round(v1, (long) LONG_LE.get(input, offset));
                v2 = round(v2, (long) LONG_LE.get(input, offset + 8));
                v3 = round(v3, (long) LONG_LE.get(input, offset + 16));
                v4 = round(v4, (long) LONG_LE.get(input, offset + 24));
                offset += 32;
            } while (offset <= limit);
            h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            h = mergeRound(h, v1);
            h = mergeRound(h, v2);
            h = mergeRound(h, v3);
            h = mergeRound(h, v4);
        } else {
            h = P5;
        }
        h += length;
        for (; offset + 8 <= length; offset += 8) {
            h ^= round(0, (long) LONG_LE.get(input, offset));
            h = Long.rotateLeft(h, 27) * P1 + P4;
        }
        if (offset + 4 <= length) {
            h ^= ((int) INT_LE.get(input, offset) & 0xFFFFFFFFL) * P1;
            h = Long.rotateLeft(h, 23) * P2 + P3;
            offset += 4;
        }
        for (; offset < length; offset++) {
            h ^= (input[offset] & 0xFFL) * P5;
            h = Long.rotateLeft(h, 11) * P1;
        }
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }

    private static long round(long acc, long input) {
        acc += input * P2;
        acc = Long.rotateLeft(acc, 31);
        return acc * P1;
    }

    private static long mergeRound(long acc, long value) {
        acc ^= round(0, value);
        return acc * P1 + P4;
    }
}
