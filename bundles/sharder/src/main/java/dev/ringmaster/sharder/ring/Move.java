package dev.ringmaster.sharder.ring;

import dev.ringmaster.ring.RingResource.Role;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the sharder does with one object (docs/design.md section 5). Each kind is exactly one write.
 */
public sealed interface Move {

    /** Nothing: already where it belongs, already draining, or no shard available. */
    record Keep() implements Move {
        @Override
        public Map<String, String> labelChanges(Map<String, String> current, String shardLabel, String drainLabel) {
            return Map.of();
        }
    }

    /** Unassigned: set the shard label (and drop a drain label left without shard). */
    record Assign(String shard) implements Move {
        @Override
        public Map<String, String> labelChanges(Map<String, String> current, String shardLabel, String drainLabel) {
            return shardLabelWithoutDrain(current, shardLabel, shard, drainLabel);
        }
    }

    /** On a live shard that must let go first: add the drain label; the shard hands it back. */
    record Drain(String from) implements Move {
        @Override
        public Map<String, String> labelChanges(Map<String, String> current, String shardLabel, String drainLabel) {
            return Map.of(drainLabel, "true");
        }
    }

    /** Set the shard label to the desired shard and drop any drain label, without handover. */
    record Reassign(String from, String to) implements Move {
        @Override
        public Map<String, String> labelChanges(Map<String, String> current, String shardLabel, String drainLabel) {
            return shardLabelWithoutDrain(current, shardLabel, to, drainLabel);
        }
    }

    /**
     * Range mode: the ring places by hash ranges, not labels, so the shard and drain labels an object kept from label
     * mode go ({@code from}: the shard its label named, null if only the drain label was left).
     */
    record Unlabel(String from) implements Move {
        @Override
        public Map<String, String> labelChanges(Map<String, String> current, String shardLabel, String drainLabel) {
            Map<String, String> labels = new java.util.HashMap<>();
            for (String label : new String[] {shardLabel, drainLabel}) {
                if (current.containsKey(label)) {
                    labels.put(label, null);
                }
            }
            return labels;
        }
    }

    /** The labels to write given the object's current labels; a null value removes a label. */
    Map<String, String> labelChanges(Map<String, String> current, String shardLabel, String drainLabel);

    private static Map<String, String> shardLabelWithoutDrain(Map<String, String> current, String shardLabel,
            String shard, String drainLabel) {
        if (!current.containsKey(drainLabel)) {
            return Map.of(shardLabel, shard);
        }
        Map<String, String> labels = new java.util.HashMap<>();
        labels.put(shardLabel, shard);
        labels.put(drainLabel, null);
        return labels;
    }

    Keep KEEP = new Keep();

    /**
     * Decides the move of an object.
     *
     * @param labels          the object's labels
     * @param shardLabel      the ring's shard label
     * @param drainLabel      the ring's drain label
     * @param role            main resource (drained when moved off a live shard) or controlled (moved directly)
     * @param desired         the desired shard, empty if no shard is available
     * @param reconciling     the shards that may be reconciling their objects: the available ones, and
     *                        those the detector gave up that still renew their Lease
     */
    static Move decide(Map<String, String> labels, String shardLabel, String drainLabel, Role role,
            Optional<String> desired, Set<String> reconciling) {
        if (desired.isEmpty()) {
            return KEEP;
        }
        String target = desired.get();
        String current = labels.get(shardLabel);
        if (current == null || current.isEmpty()) {
            return new Assign(target);
        }
        if (current.equals(target)) {
            return KEEP;
        }
        if (role == Role.MAIN && reconciling.contains(current)) {
            // the current shard may be reconciling it: only it may let go (drain handover)
            return labels.containsKey(drainLabel) ? KEEP : new Drain(current);
        }
        return new Reassign(current, target);
    }
}
