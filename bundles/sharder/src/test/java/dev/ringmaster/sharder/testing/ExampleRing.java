package dev.ringmaster.sharder.testing;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.sharder.model.RingKey;

/** The ClusterRing "example" the sharder's component tests shard on, with its key and labels. */
public final class ExampleRing {

    public static final String RING = "example";
    public static final RingKey KEY = RingKey.clusterRing(RING);
    public static final String SHARD = RingContract.shardLabel(RING);
    public static final String DRAIN = RingContract.drainLabel(RING);

    private ExampleRing() {
    }
}
