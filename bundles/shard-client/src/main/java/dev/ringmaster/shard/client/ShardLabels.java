package dev.ringmaster.shard.client;

import dev.ringmaster.ring.RingContract;
import java.util.Map;
import java.util.Objects;

/**
 * What one shard of one ring reads from object labels: its watch selector, whether it owns an
 * object, and whether the sharder asked it to let an object go.
 */
public final class ShardLabels {

    private final String shardLabel;
    private final String drainLabel;
    private final String shard;

    private ShardLabels(String ring, String shard) {
        this.shardLabel = RingContract.shardLabel(ring);
        this.drainLabel = RingContract.drainLabel(ring);
        this.shard = shard;
    }

    /**
     * @param ring  the ClusterRing name
     * @param shard this shard's name (its Lease name)
     * @throws IllegalArgumentException if either is empty
     */
    public static ShardLabels of(String ring, String shard) {
        if (Objects.requireNonNull(shard, "shard").isEmpty()) {
            throw new IllegalArgumentException("shard name must not be empty");
        }
        return new ShardLabels(ring, shard);
    }

    /** The label selector that restricts watches and lists to this shard's objects. */
    public String selector() {
        return shardLabel + "=" + shard;
    }

    /** This shard's name: the value of the shard label on its objects. */
    public String shard() {
        return shard;
    }

    public String shardLabel() {
        return shardLabel;
    }

    public String drainLabel() {
        return drainLabel;
    }

    /** Whether the sharder assigned the object with these labels to this shard. */
    public boolean owns(Map<String, String> labels) {
        return labels != null && shard.equals(labels.get(shardLabel));
    }

    /** Whether this shard owns the object and must hand it back (drain label present). */
    public boolean mustDrain(Map<String, String> labels) {
        return owns(labels) && labels.containsKey(drainLabel);
    }
}
