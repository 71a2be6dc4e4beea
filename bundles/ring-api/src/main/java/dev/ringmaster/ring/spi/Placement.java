package dev.ringmaster.ring.spi;

import dev.ringmaster.ring.ranges.RangeSet;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link PlacementPolicy}'s answer.
 *
 * @param ranges          what each shard of the request holds; together the whole space, no hash twice
 * @param imbalanceBefore the busiest shard's load over the mean where the ranges are now
 * @param imbalanceAfter  the same once this placement is served
 * @param moved           the share of the ring's objects (of its space when no objects are known) that move
 * @param reason          one line for the ring's Events: what moved and why, or why nothing did
 */
public record Placement(Map<String, RangeSet> ranges, double imbalanceBefore, double imbalanceAfter, double moved,
                        String reason) {

    public Placement {
        ranges = Map.copyOf(ranges);
        Objects.requireNonNull(reason, "reason");
    }
}
