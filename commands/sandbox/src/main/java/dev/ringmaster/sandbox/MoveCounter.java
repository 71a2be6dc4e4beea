package dev.ringmaster.sandbox;

import java.util.HashMap;
import java.util.Map;

/**
 * Counts moves from the shard labels a watch on the ConfigMaps reports: a move is a change of an
 * object's shard label away from a shard, either to another shard (a direct move, when the old shard
 * is gone) or to none (the old shard acknowledged a drain). The assignment that follows a drain, and
 * any assignment of an unassigned object, is not a move, so each object that changes shard counts
 * once. Works from the last state seen per object, so a missed intermediate event (a re-list after
 * a broken watch) changes nothing. Thread-safe.
 */
final class MoveCounter {

    private final Map<String, String> lastShard = new HashMap<>();
    private long moves;

    /**
     * Records the current shard of an object.
     *
     * @param object the object's key, e.g. {@code namespace/name}
     * @param shard  its shard label's value; null or empty when it has none
     */
    synchronized void observe(String object, String shard) {
        String current = shard == null || shard.isEmpty() ? null : shard;
        String previous = current == null ? lastShard.remove(object) : lastShard.put(object, current);
        if (previous != null && !previous.equals(current)) {
            moves++;
        }
    }

    /** Forgets a deleted object. */
    synchronized void forget(String object) {
        lastShard.remove(object);
    }

    /** Moves observed so far. */
    synchronized long moves() {
        return moves;
    }
}
