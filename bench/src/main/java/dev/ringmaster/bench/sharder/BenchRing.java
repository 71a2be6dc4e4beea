package dev.ringmaster.bench.sharder;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.consistent.ConsistentHashStrategy;
import java.util.List;
import java.util.stream.IntStream;

/** The ring both benchmark processes agree on: its name, labels, shards and object names. */
final class BenchRing {

    static final String RING = "bench";
    static final String NAMESPACE = "default";
    /** Shard leases live here, as shard-client would put them (any namespace works). */
    static final String LEASE_NAMESPACE = "default";
    static final String SHARD_LABEL = RingContract.shardLabel(RING);
    static final String DRAIN_LABEL = RingContract.drainLabel(RING);
    /** The shards before the scale-out... */
    static final int SHARDS_BEFORE = 3;
    /** ...and after it. */
    static final int SHARDS_AFTER = 4;

    private BenchRing() {
    }

    static String shardName(int index) {
        return "shard-" + index;
    }

    /** The default strategy of the sharder (consistent hashing, 100 tokens per shard) over shard-0..shard-(n-1). */
    static ShardRing ring(int shards) {
        List<Shard> members = IntStream.range(0, shards).mapToObj(i -> Shard.of(shardName(i))).toList();
        return new ConsistentHashStrategy().build(members);
    }

    static String objectName(int index) {
        return String.format("cm-%06d", index);
    }

    /** The partition key DefaultResourceInterpreter derives for a ConfigMap of the ring (a main resource). */
    static String key(String namespace, String name) {
        return RingContract.partitionKey("", "ConfigMap", namespace, name);
    }
}
