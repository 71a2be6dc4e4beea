package dev.ringmaster.sharder.model;

import dev.ringmaster.ring.RingKind;
import java.util.Comparator;
import java.util.Objects;

/**
 * Identifies a ring among the rings of both kinds: a ClusterRing and a ControllerRing may share a
 * name, and are different rings with different labels.
 *
 * @param kind the ring's kind
 * @param name the ring object's name
 */
public record RingKey(RingKind kind, String name) implements Comparable<RingKey> {

    private static final Comparator<RingKey> ORDER = Comparator.comparing(RingKey::kind).thenComparing(RingKey::name);

    public RingKey {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
    }

    public static RingKey clusterRing(String name) {
        return new RingKey(RingKind.CLUSTER_RING, name);
    }

    public static RingKey controllerRing(String name) {
        return new RingKey(RingKind.CONTROLLER_RING, name);
    }

    /** The ring's shard label. */
    public String shardLabel() {
        return kind.shardLabel(name);
    }

    /** The ring's drain label. */
    public String drainLabel() {
        return kind.drainLabel(name);
    }

    @Override
    public int compareTo(RingKey other) {
        return ORDER.compare(this, other);
    }

    /** {@code ClusterRing/name}, as logs, events and commands show a ring. */
    @Override
    public String toString() {
        return kind.kind() + "/" + name;
    }
}
