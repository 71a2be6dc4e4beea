package dev.ringmaster.itests.support;

import java.util.HashMap;
import java.util.Map;

/**
 * Placements pinned by {@code testing/placement-vectors/placements.py}, an implementation of the
 * strategies independent of the product's, so a test never takes its expected shards from the code
 * under test.
 */
public final class Pinned {

    private Pinned() {
    }

    /** Object name to shard, from lines {@code shard: name name …} as placements.py prints them. */
    public static Map<String, String> placements(String... lines) {
        Map<String, String> shardOfName = new HashMap<>();
        for (String line : lines) {
            String[] shardAndNames = line.strip().split(": ");
            for (String name : shardAndNames[1].split(" ")) {
                shardOfName.put(name, shardAndNames[0]);
            }
        }
        return shardOfName;
    }
}
