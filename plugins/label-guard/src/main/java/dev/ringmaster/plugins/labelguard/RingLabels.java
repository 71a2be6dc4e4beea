package dev.ringmaster.plugins.labelguard;

import static dev.ringmaster.ring.RingContract.DRAIN_LABEL_PREFIX;
import static dev.ringmaster.ring.RingContract.SHARD_LABEL_PREFIX;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The shard and drain labels of every ring on one version of an object, by ring suffix. The ring
 * name is part of the label key (docs/design.md section 1), so the labels of any ring are recognised by
 * their prefix, whether the ring still exists or not, and of either kind: a ClusterRing's suffix is
 * {@code clusterring-<hash>-<name>}, a ControllerRing's the name alone. Nothing here needs the kind,
 * since every suffix names one ring and the guard's rules are the same for both.
 */
record RingLabels(Map<String, String> shards, Set<String> drains) {

    static final RingLabels NONE = new RingLabels(Map.of(), Set.of());

    RingLabels {
        shards = Map.copyOf(shards);
        drains = Set.copyOf(drains);
    }

    /** The ring labels among an object's labels. */
    static RingLabels of(Map<String, String> labels) {
        Map<String, String> shards = new TreeMap<>();
        Set<String> drains = new TreeSet<>();
        labels.forEach((key, value) -> {
            if (key.startsWith(SHARD_LABEL_PREFIX) && key.length() > SHARD_LABEL_PREFIX.length()) {
                shards.put(key.substring(SHARD_LABEL_PREFIX.length()), Objects.requireNonNullElse(value, ""));
            } else if (key.startsWith(DRAIN_LABEL_PREFIX) && key.length() > DRAIN_LABEL_PREFIX.length()) {
                drains.add(key.substring(DRAIN_LABEL_PREFIX.length()));
            }
        });
        return new RingLabels(shards, drains);
    }

    /** Every ring suffix with a label here or there. */
    Set<String> ringsWith(RingLabels other) {
        Set<String> rings = new TreeSet<>(shards.keySet());
        rings.addAll(drains);
        rings.addAll(other.shards.keySet());
        rings.addAll(other.drains);
        return rings;
    }

    /** The shard owning the object in the ring, or {@code null} if none does. */
    String shard(String ring) {
        return shards.get(ring);
    }

    boolean draining(String ring) {
        return drains.contains(ring);
    }
}
