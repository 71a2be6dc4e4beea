package dev.ringmaster.ring.spi;

import dev.ringmaster.ring.load.LoadMap;
import dev.ringmaster.ring.ranges.RangeSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link PlacementPolicy} places.
 *
 * @param buckets          the ring's bucket count ({@code spec.ranges.buckets}): a power of two from 1 to 4096;
 *                         the grid a policy places on, which it may cut finer where one bucket is too busy
 * @param shards           the available shards, sorted by name; none: the placement is empty
 * @param current          where the ranges are now: what each shard holds or is being handed, by name; a shard
 *                         missing holds nothing, ranges no available shard holds are to be placed
 * @param load             the work over the hash space, as the shards reported it
 * @param maxImbalance     the busiest shard's load over the mean that is tolerated, e.g. 1.1
 * @param maxMovedFraction the share of the ring's objects (of its space when no objects are known) a load step
 *                         may move, e.g. 0.1; a membership change moves what it must regardless
 * @param loadStep         whether this pass may move ranges between available shards for their load; when false
 *                         only ranges without an available shard move, and only the count is balanced
 */
public record PlacementRequest(int buckets, List<String> shards, Map<String, RangeSet> current, LoadMap load,
                               double maxImbalance, double maxMovedFraction, boolean loadStep) {

    public PlacementRequest {
        shards = List.copyOf(shards);
        current = Map.copyOf(current);
        Objects.requireNonNull(load, "load");
        if (!(maxImbalance >= 1.0)) {
            throw new IllegalArgumentException("tolerated imbalance " + maxImbalance + " is below 1");
        }
        if (!(maxMovedFraction > 0 && maxMovedFraction <= 1)) {
            throw new IllegalArgumentException("moved share " + maxMovedFraction + " is not above 0 and at most 1");
        }
    }
}
