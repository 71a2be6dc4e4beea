package dev.ringmaster.sharder.rebalance;

import dev.ringmaster.ring.RingResource.Role;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the sharder does with one object (DESIGN.md section 5). Each kind is exactly one write.
 */
public sealed interface Move {

    /** Nothing: already where it belongs, already draining, or no shard available. */
    record Keep() implements Move {
    }

    /** Unassigned: set the shard label. */
    record Assign(String shard) implements Move {
    }

    /** On a live shard that must let go first: add the drain label; the shard hands it back. */
    record Drain(String from) implements Move {
    }

    /** Set the shard label to the desired shard and drop any drain label, without handover. */
    record Reassign(String from, String to) implements Move {
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
     * @param availableShards the ring's available shards
     */
    static Move decide(Map<String, String> labels, String shardLabel, String drainLabel, Role role,
            Optional<String> desired, Set<String> availableShards) {
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
        if (role == Role.MAIN && availableShards.contains(current)) {
            // the current shard may be reconciling it: only it may let go (drain handover)
            return labels.containsKey(drainLabel) ? KEEP : new Drain(current);
        }
        return new Reassign(current, target);
    }
}
