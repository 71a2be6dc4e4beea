package dev.ringmaster.sharder.ranges;

import dev.ringmaster.ring.ranges.RangeSet;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The sharder's handover rule of range mode (docs/design.md section 9), a pure function: each shard's assignment
 * shrinks to its share of the placement at once, and grows only by ranges no other shard claims.
 *
 * <p>new(s) = (current(s) ∩ desired(s)) ∪ (desired(s) − ∪ claims(t), t ≠ s), and nothing for a fenced shard.
 * As the desired sets are disjoint and every shard's claims hold its current assignment, no two new assignments
 * overlap, and none overlaps what another shard may still serve.
 */
public final class RangeAssignment {

    /**
     * One shard Lease of the ring as the pass sees it.
     *
     * @param current what the shard is assigned now: the sharder's own last write if its cache does not show it yet,
     *                else the Lease's {@code assigned-ranges}
     * @param claims  what the shard may be reconciling, or may start to: its assigned and served ranges and the
     *                sharder's last write to it; ignored for a fenced shard
     * @param fenced  whether the shard certainly reconciles nothing (dead with its Lease taken over): it claims
     *                nothing and its assignment is cleared
     */
    public record Shard(RangeSet current, RangeSet claims, boolean fenced) {

        public Shard {
            Objects.requireNonNull(current, "current");
            Objects.requireNonNull(claims, "claims");
        }

        /** A live shard, claiming its current assignment and what it serves. */
        public static Shard live(RangeSet assigned, RangeSet served) {
            return new Shard(assigned, assigned.union(served), false);
        }

        /** A fenced shard: whatever its Lease says, it claims nothing. */
        public static Shard fenced(RangeSet assigned) {
            return new Shard(assigned, RangeSet.EMPTY, true);
        }
    }

    private RangeAssignment() {
    }

    /**
     * The new assignment of every shard of {@code shards}.
     *
     * @param desired the placement over the available shards ({@code RangePlacement.place}); a shard missing
     *                from it is desired nothing
     * @param shards  every shard Lease of the ring, by name
     */
    public static Map<String, RangeSet> assign(Map<String, RangeSet> desired, Map<String, Shard> shards) {
        Map<String, RangeSet> assigned = new TreeMap<>();
        shards.forEach((name, shard) -> {
            if (shard.fenced()) {
                assigned.put(name, RangeSet.EMPTY);
                return;
            }
            RangeSet mine = desired.getOrDefault(name, RangeSet.EMPTY);
            RangeSet claimedByOthers = RangeSet.EMPTY;
            for (Map.Entry<String, Shard> other : shards.entrySet()) {
                if (!other.getKey().equals(name) && !other.getValue().fenced()) {
                    claimedByOthers = claimedByOthers.union(other.getValue().claims());
                }
            }
            assigned.put(name, shard.current().intersect(mine).union(mine.minus(claimedByOthers)));
        });
        return assigned;
    }
}
