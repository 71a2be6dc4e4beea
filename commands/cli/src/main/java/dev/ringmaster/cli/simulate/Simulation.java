package dev.ringmaster.cli.simulate;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Assigns the simulated objects before and after a fleet change and measures balance and movement, of
 * the objects and, with {@code --costs}, of their load.
 */
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
        Optional<int[]> namespaces = options.namespaces();
        Optional<double[]> costs = options.objectCosts();

        Map<String, Integer> perShard = new LinkedHashMap<>();
        Map<String, Double> loadPerShard = new LinkedHashMap<>();
        after.forEach(shard -> {
            perShard.put(shard.name(), 0);
            loadPerShard.put(shard.name(), 0.0);
        });
        long moved = 0;
        double movedLoad = 0;
        double totalLoad = 0;
        for (int i = 0; i < options.objects(); i++) {
            String key = namespaces.isPresent() ? SimulationOptions.objectKey(i, namespaces.get()[i])
                    : SimulationOptions.objectKey(i);
            double cost = costs.isPresent() ? costs.get()[i] : 1;
            String owner = ringAfter.shardFor(key).orElseThrow();
            if (perShard.computeIfPresent(owner, (name, count) -> count + 1) == null) {
                throw new IllegalStateException("strategy " + options.strategy() + " assigned " + key
                        + " to " + owner + ", which is not in the fleet");
            }
            loadPerShard.merge(owner, cost, Double::sum);
            totalLoad += cost;
            if (ringAfter != ringBefore && !owner.equals(ringBefore.shardFor(key).orElseThrow())) {
                moved++;
                movedLoad += cost;
            }
        }
        Optional<SimulationResult.Load> load = Optional.empty();
        if (options.costs().isPresent()) {
            load = Optional.of(new SimulationResult.Load(options.costs().get().spec(), loadPerShard,
                    shares(after, loadPerShard, totalLoad), movedLoad / totalLoad));
        }
        return new SimulationResult(options.strategy(), before.size(), after.size(), options.objects(), perShard,
                shares(after, perShard, options.objects()), (double) moved / options.objects(),
                optimalMovedFraction(before, after), load);
    }

    /**
     * Each shard's objects (or load) relative to its fair share of {@code total} (total × weight / total
     * weight).
     */
    private static double[] shares(List<Shard> shards, Map<String, ? extends Number> perShard, double total) {
        double totalWeight = totalWeight(shards);
        return shards.stream()
                .mapToDouble(shard -> perShard.get(shard.name()).doubleValue() / (total * shard.weight() / totalWeight))
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
