package dev.ringmaster.sharder.testing;

import java.util.HashMap;
import java.util.Map;

/**
 * Where a strategy puts objects, pinned: object name to shard, for the objects of one kind in one
 * namespace. Tests compare labels with these tables rather than asking the product's strategies,
 * so a strategy that starts placing objects elsewhere fails them.
 *
 * <p>The tables were computed outside the product by {@code testing/placement-vectors/placements.py},
 * an independent implementation of XXH64 from its specification and of the strategies as
 * docs/strategies.md describes them; it
 * reproduces the reference Go sharder's assignments ({@code /ConfigMap/default/foo} → shard-0, …).
 * Strategies at their defaults: consistent-hash with 100 tokens per shard and no token separator;
 * every shard of weight 1.
 */
public final class PinnedPlacements {

    /** ConfigMaps in namespace {@code default}, rendezvous over shard-0 and shard-1. */
    public static final PinnedPlacements RENDEZVOUS_TWO_SHARDS = of("""
            shard-0: cm-0 cm-1 cm-3 cm-4 cm-5 cm-6 cm-10 cm-11 cm-12 cm-15 cm-16 cm-17 cm-22 cm-23 cm-26 cm-27 waiting late
            shard-1: cm-2 cm-7 cm-8 cm-9 cm-13 cm-14 cm-18 cm-19 cm-20 cm-21 cm-24 cm-25 cm-28 cm-29 drained
            """);

    /** ConfigMaps in namespace {@code default}, rendezvous over shard-0, shard-1 and shard-2. */
    public static final PinnedPlacements RENDEZVOUS_THREE_SHARDS = of("""
            shard-0: cm-0 cm-1 cm-3 cm-4 cm-5 cm-6 cm-11 cm-12 cm-17 cm-22 cm-26 cm-27
            shard-1: cm-2 cm-7 cm-8 cm-13 cm-18 cm-19 cm-20 cm-21 cm-24 cm-25 cm-28
            shard-2: cm-9 cm-10 cm-14 cm-15 cm-16 cm-23 cm-29
            """);

    /** ConfigMaps in namespace {@code default}, consistent-hash over shard-0 and shard-1. */
    public static final PinnedPlacements CONSISTENT_HASH_TWO_SHARDS = of("""
            shard-0: cm-0 cm-1 cm-2 cm-3 cm-4 cm-8 cm-10 cm-11 cm-12 cm-18 cm-20 cm-21 cm-22 cm-24 cm-25 cm-26 cm-27
            shard-1: cm-5 cm-6 cm-7 cm-9 cm-13 cm-14 cm-15 cm-16 cm-17 cm-19 cm-23 cm-28 cm-29
            """);

    private final Map<String, String> shardOfName;

    private PinnedPlacements(Map<String, String> shardOfName) {
        this.shardOfName = shardOfName;
    }

    /** A table of lines {@code shard: name name …}. */
    public static PinnedPlacements of(String table) {
        Map<String, String> shardOfName = new HashMap<>();
        table.lines().filter(line -> !line.isBlank()).forEach(line -> {
            String[] shardAndNames = line.split(":", 2);
            String shard = shardAndNames[0].strip();
            for (String name : shardAndNames[1].strip().split("\\s+")) {
                if (shardOfName.put(name, shard) != null) {
                    throw new IllegalArgumentException(name + " is pinned twice");
                }
            }
        });
        return new PinnedPlacements(Map.copyOf(shardOfName));
    }

    /** The shard of object {@code name}; an object the table does not pin is a mistake in the test. */
    public String shardOf(String name) {
        String shard = shardOfName.get(name);
        if (shard == null) {
            throw new IllegalArgumentException("no pinned placement for " + name);
        }
        return shard;
    }
}
