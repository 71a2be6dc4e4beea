package dev.ringmaster.testing.apiserver;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * 64-bit FNV-1a as KEP-5866's {@code shardRange} hashes a field, written here for range mode's tests so that
 * their expected owners never come from the code under test.
 */
public final class Fnv1a {

    private Fnv1a() {
    }

    /** FNV-1a 64 of the UTF-8 bytes of {@code value}. */
    public static long fnv1a64(String value) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        return hash;
    }

    /** The names whose value hashes into one of {@code ranges}, each {first, last}, inclusive and unsigned. */
    public static Set<String> namesHashedInto(Map<String, String> valueByName, List<long[]> ranges) {
        return valueByName.entrySet().stream().filter(entry -> {
            long hash = fnv1a64(entry.getValue());
            return ranges.stream().anyMatch(range -> Long.compareUnsigned(hash, range[0]) >= 0
                    && Long.compareUnsigned(hash, range[1]) <= 0);
        }).map(Map.Entry::getKey).collect(Collectors.toSet());
    }
}
