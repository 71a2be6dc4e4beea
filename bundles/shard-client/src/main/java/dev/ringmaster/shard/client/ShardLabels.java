package dev.ringmaster.shard.client;

import dev.ringmaster.ring.RingKind;
import java.util.Map;
import java.util.Objects;

/**
 * What one shard of one ring reads from object labels: its watch selector, whether it owns an
 * object, and whether the sharder asked it to let an object go. The label names are the ring kind's
 * ({@link RingKind#shardLabel}, {@link RingKind#drainLabel}).
 */
public final class ShardLabels {

    private final RingKind kind;
    private final String ring;
    private final String shardLabel;
    private final String drainLabel;
    private final String shard;

    private ShardLabels(RingKind kind, String ring, String shard) {
        this.kind = kind;
        this.ring = ring;
        this.shardLabel = kind.shardLabel(ring);
        this.drainLabel = kind.drainLabel(ring);
        this.shard = shard;
    }

    /**
     * The labels of a shard of a ClusterRing.
     *
     * @param ring  the ClusterRing name
     * @param shard this shard's name (its Lease name)
     * @throws IllegalArgumentException if either is empty
     */
    public static ShardLabels of(String ring, String shard) {
        return of(RingKind.CLUSTER_RING, ring, shard);
    }

    /**
     * The labels of a shard of a ring of the given kind.
     *
     * @param kind  the kind of the ring
     * @param ring  the ring's name
     * @param shard this shard's name (its Lease name)
     * @throws IllegalArgumentException if the ring or shard name is empty
     */
    public static ShardLabels of(RingKind kind, String ring, String shard) {
        Objects.requireNonNull(kind, "kind");
        if (Objects.requireNonNull(shard, "shard").isEmpty()) {
            throw new IllegalArgumentException("shard name must not be empty");
        }
        return new ShardLabels(kind, ring, shard);
    }

    /** The kind of this shard's ring. */
    public RingKind kind() {
        return kind;
    }

    /** The name of this shard's ring. */
    public String ring() {
        return ring;
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
