package dev.ringmaster.cli.simulate;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Assigns the simulated objects before and after a fleet change and measures balance and movement. */
final class Simulation {

    private Simulation() {
    }

    /**
     * @throws IllegalStateException if the strategy assigns an object to a shard outside the fleet
     */
    static SimulationResult run(PartitioningStrategy strategy, SimulationOptions options) {
        List<Shard> before = options.shardsBefore();
        List<Shard> after = options.shardsAfter();
        ShardRing ringBefore = strategy.build(before);
        ShardRing ringAfter = before.equals(after) ? ringBefore : strategy.build(after);

        Map<String, Integer> perShard = new LinkedHashMap<>();
        after.forEach(shard -> perShard.put(shard.name(), 0));
        long moved = 0;
        for (int i = 0; i < options.objects(); i++) {
            String key = SimulationOptions.objectKey(i);
            String owner = ringAfter.shardFor(key).orElseThrow();
            if (perShard.computeIfPresent(owner, (name, count) -> count + 1) == null) {
                throw new IllegalStateException("strategy " + options.strategy() + " assigned " + key
                        + " to " + owner + ", which is not in the fleet");
            }
            if (ringAfter != ringBefore && !owner.equals(ringBefore.shardFor(key).orElseThrow())) {
                moved++;
            }
        }
        return new SimulationResult(options.strategy(), before.size(), after.size(), options.objects(), perShard,
                loads(after, perShard, options.objects()), (double) moved / options.objects(),
                optimalMovedFraction(before, after));
    }

    /** Each shard's objects relative to its fair share (objects × weight / total weight). */
    private static double[] loads(List<Shard> shards, Map<String, Integer> perShard, int objects) {
        double totalWeight = totalWeight(shards);
        return shards.stream()
                .mapToDouble(shard -> perShard.get(shard.name()) / (objects * shard.weight() / totalWeight))
                .toArray();
    }

    /** The weight that changed hands over the weight of the larger fleet: the least any strategy must move. */
    private static double optimalMovedFraction(List<Shard> before, List<Shard> after) {
        int changed = Math.abs(totalWeight(after) - totalWeight(before));
        return (double) changed / Math.max(totalWeight(after), totalWeight(before));
    }

    private static int totalWeight(List<Shard> shards) {
        return shards.stream().mapToInt(Shard::weight).sum();
    }
}
