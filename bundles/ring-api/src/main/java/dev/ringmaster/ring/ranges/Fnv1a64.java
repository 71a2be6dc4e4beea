package dev.ringmaster.ring.ranges;

import java.nio.charset.StandardCharsets;

/** 64-bit FNV-1a, the hash kube-apiserver's {@code shardRange} applies to the key field's value. */
public final class Fnv1a64 {

    private static final long OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private Fnv1a64() {
    }

    /** FNV-1a 64 of the UTF-8 encoding of {@code value}. */
    public static long hash(String value) {
        long hash = OFFSET_BASIS;
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= PRIME;
        }
        return hash;
    }
}
