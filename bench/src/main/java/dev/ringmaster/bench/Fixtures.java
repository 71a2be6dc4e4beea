package dev.ringmaster.bench;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.consistent.ConsistentHashRing;
import dev.ringmaster.ring.rendezvous.RendezvousRing;
import java.util.ArrayList;
import java.util.List;

/**
 * Inputs shared by the benchmarks: the strategies under test, shard lists and partition keys. Public
 * only because JMH's generated code (in a sub-package) refers to {@link Strategy} as a parameter type.
 */
public final class Fixtures {

    /** Number of pre-built keys; a power of two, so the cycling index is a mask. */
    static final int KEY_COUNT = 4096;

    /** Virtual nodes per shard of weight 1, the default of the reference sharder and of ours. */
    static final int TOKENS_PER_SHARD = 100;

    /** Number of distinct shard name suffixes: five base-36 digits. */
    private static final long NAME_SPACE = 36L * 36 * 36 * 36 * 36;

    /** The partitioning strategies under test. */
    public enum Strategy {
        CONSISTENT_HASH {
            @Override
            ShardRing build(List<Shard> shards) {
                return ConsistentHashRing.build(shards, TOKENS_PER_SHARD);
            }
        },
        RENDEZVOUS {
            @Override
            ShardRing build(List<Shard> shards) {
                return RendezvousRing.build(shards);
            }
        };

        abstract ShardRing build(List<Shard> shards);
    }

    private Fixtures() {
    }

    /**
     * {@code count} shards with pod-like names ({@code shard-} and five base-36 characters, unique
     * and in no particular order, so the strategies' sort does real work). Weighted: shard i has
     * weight {@code 1 + (i % 4)}; else 1.
     *
     * <p>The names all have the same length on purpose: consistent hashing places token j of shard S
     * at XXH64(S + j), so with names like {@code shard-1} and {@code shard-11} the token strings
     * {@code shard-1}+{@code 10} and {@code shard-11}+{@code 0} coincide and the ring silently loses
     * about 9% of its tokens at 100 shards or more.
     */
    static List<Shard> shards(int count, boolean weighted) {
        List<Shard> shards = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            shards.add(new Shard(shardName(i), weighted ? 1 + (i % 4) : 1));
        }
        return List.copyOf(shards);
    }

    /** A bijection of i onto 36^5 (the multiplier is coprime to 2 and 3), written as 5 base-36 digits. */
    private static String shardName(int i) {
        long suffix = (i + 1L) * 15_485_863L % NAME_SPACE;
        String digits = Long.toString(suffix, 36);
        return "shard-" + "0".repeat(5 - digits.length()) + digits;
    }

    /** {@link #KEY_COUNT} distinct keys {@code /ConfigMap/ns-<i mod 100>/obj-<i>}. */
    static String[] keys() {
        String[] keys = new String[KEY_COUNT];
        for (int i = 0; i < KEY_COUNT; i++) {
            keys[i] = RingContract.partitionKey("", "ConfigMap", "ns-" + (i % 100), "obj-" + i);
        }
        return keys;
    }
}
