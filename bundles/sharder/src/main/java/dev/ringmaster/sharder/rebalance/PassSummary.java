package dev.ringmaster.sharder.rebalance;

/**
 * What one rebalance pass of a ring did.
 *
 * @param examined   objects looked at
 * @param assigned   unassigned objects labelled
 * @param drained    objects asked to leave their shard
 * @param reassigned objects moved directly to their desired shard
 * @param unlabelled range mode: objects whose shard and drain labels, left from label mode, were removed
 * @param deferred   moves left for a later pass: drains over the move budget (in range mode, of the buckets
 *                   held back while others are in drain), and direct moves from a shard that came back while the
 *                   pass ran
 * @param conflicts  writes lost to a concurrent change; decided again next pass
 * @param failed     writes that failed otherwise (the API server refused or was unreachable); tried
 *                   again next pass
 * @param unresolved ring resources the API server does not serve
 * @param inDrain    main objects already in drain when the pass began, waiting for their shard to hand
 *                   them back (in label mode the unassigned-object watch assigns them then, not a pass)
 */
public record PassSummary(long examined, long assigned, long drained, long reassigned, long unlabelled, long deferred,
        long conflicts, long failed, int unresolved, long inDrain) {

    /** Whether the pass left something for a later pass. */
    public boolean pending() {
        return deferred > 0 || conflicts > 0 || failed > 0 || unresolved > 0;
    }

    /** Whether the pass moved something, or lost a write to a change the next pass may build on. */
    public boolean progressed() {
        return assigned + drained + reassigned + unlabelled + conflicts > 0;
    }
}
