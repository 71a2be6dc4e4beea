package dev.ringmaster.ring.consistent;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.XxHash64;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Consistent hashing with virtual nodes, identical to the reference sharder: token {@code i} of
 * shard S sits at XXH64(S + separator + decimal(i)); a key belongs to the shard of the first token at
 * or after XXH64(key), wrapping around. A shard of weight w owns {@code w * tokensPerShard} tokens.
 * Without a separator, names ending in digits can share tokens ({@code shard-1} + {@code 10} is
 * {@code shard-11} + {@code 0}); the reference concatenates all the same, so the separator stays
 * empty by default.
 */
public final class ConsistentHashRing implements ShardRing {

    /** Upper bound of tokens on one ring (16 bytes each): keeps a misconfiguration from exhausting the heap. */
    public static final long MAX_TOKENS = 2_000_000;

    private final List<Shard> shards;
    /** Token positions with the sign bit flipped, so signed order is XXH64's unsigned order. */
    private final long[] tokens;
    /** owners[i] is the shard owning tokens[i]. */
    private final String[] owners;
    /** Top bits of a hash that select its bucket. */
    private final int bucketBits;
    /**
     * bucketStart[b] is the index of the first token whose top {@code bucketBits} bits are at least b:
     * a lookup starts there and scans about one token, instead of a binary search over all of them.
     */
    private final int[] bucketStart;

    private ConsistentHashRing(List<Shard> shards, long[] tokens, String[] owners) {
        this.shards = shards;
        this.tokens = tokens;
        this.owners = owners;
        this.bucketBits = Math.max(1, 32 - Integer.numberOfLeadingZeros(Math.max(1, tokens.length - 1)));
        this.bucketStart = new int[(1 << bucketBits) + 1];
        int token = 0;
        for (int bucket = 0; bucket < bucketStart.length; bucket++) {
            while (token < tokens.length && bucketOf(tokens[token] ^ Long.MIN_VALUE) < bucket) {
                token++;
            }
            bucketStart[bucket] = token;
        }
    }

    private long bucketOf(long hash) {
        return hash >>> (Long.SIZE - bucketBits);
    }

    /**
     * Builds the ring. Should two tokens collide (a 64-bit hash collision), the position belongs to
     * the shard whose name sorts last, so the result never depends on the input order.
     */
    public static ConsistentHashRing build(Collection<Shard> shards, int tokensPerShard) {
        return build(shards, tokensPerShard, "");
    }

    /** Builds the ring with {@code separator} between a shard's name and its token numbers. */
    public static ConsistentHashRing build(Collection<Shard> shards, int tokensPerShard, String separator) {
        if (tokensPerShard < 1) {
            throw new IllegalArgumentException("tokensPerShard must be at least 1, got " + tokensPerShard);
        }
        List<Shard> sorted = Shard.sortedByName(shards);
        long requested = sorted.stream().mapToLong(shard -> (long) shard.weight() * tokensPerShard).sum();
        if (requested > MAX_TOKENS) {
            throw new IllegalArgumentException(sorted.size() + " shards with " + tokensPerShard
                    + " tokens per unit of weight need " + requested + " tokens, more than " + MAX_TOKENS
                    + "; lower tokensPerShard");
        }
        int total = (int) requested;
        long[] placed = new long[total];
        int[] placedOwner = new int[total];
        int next = 0;
        for (int owner = 0; owner < sorted.size(); owner++) {
            Shard shard = sorted.get(owner);
            for (int i = 0; i < shard.weight() * tokensPerShard; i++) {
                placed[next] = XxHash64.hash(shard.name() + separator + i) ^ Long.MIN_VALUE;
                placedOwner[next++] = owner;
            }
        }
        long[] tokens = distinctSorted(placed);
        String[] owners = new String[tokens.length];
        for (int j = 0; j < total; j++) {
            owners[Arrays.binarySearch(tokens, placed[j])] = sorted.get(placedOwner[j]).name();
        }
        return new ConsistentHashRing(sorted, tokens, owners);
    }

    private static long[] distinctSorted(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int distinct = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[distinct - 1]) {
                sorted[distinct++] = sorted[i];
            }
        }
        return distinct == sorted.length ? sorted : Arrays.copyOf(sorted, distinct);
    }

    @Override
    public List<Shard> shards() {
        return shards;
    }

    @Override
    public Optional<String> shardFor(String key) {
        if (tokens.length == 0) {
            return Optional.empty();
        }
        long hash = XxHash64.hash(key);
        long position = hash ^ Long.MIN_VALUE;
        int index = bucketStart[(int) bucketOf(hash)];
        while (index < tokens.length && tokens[index] < position) {
            index++;
        }
        return Optional.of(owners[index == tokens.length ? 0 : index]);
    }

    /** Number of distinct token positions on the ring. */
    public int tokenCount() {
        return tokens.length;
    }
}
