package dev.ringmaster.cli.simulate;

import dev.ringmaster.flags.JsonText;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Outcome of a simulation. Loads are objects relative to a shard's fair share, so for weighted
 * fleets {@code peakToMean} and {@code minToMean} compare like with like; with {@code --costs} the
 * same for the sum of the objects' costs ({@link Load}).
 */
record SimulationResult(
        String strategy, int shardsBefore, int shardsAfter, int objects, Map<String, Integer> perShard,
        double[] loads, double movedFraction, double optimalMovedFraction, Optional<Load> load) {

    /**
     * The load the objects' costs put on each shard ({@code --costs}).
     *
     * @param costs       the cost distribution, as its spec
     * @param perShard    the sum of the costs of each shard's objects, in objects of mean cost
     * @param shares      each shard's load relative to its fair share
     * @param movedFraction the share of all load on objects that changed shards
     */
    record Load(String costs, Map<String, Double> perShard, double[] shares, double movedFraction) {

        double peakToMean() {
            return Arrays.stream(shares).max().orElse(0);
        }

        double minToMean() {
            return Arrays.stream(shares).min().orElse(0);
        }
    }

    double peakToMean() {
        return Arrays.stream(loads).max().orElse(0);
    }

    double minToMean() {
        return Arrays.stream(loads).min().orElse(0);
    }

    String toJson() {
        String shards = perShard.entrySet().stream()
                .map(entry -> JsonText.quote(entry.getKey()) + ":" + entry.getValue())
                .collect(Collectors.joining(",", "{", "}"));
        String json = String.format(Locale.ROOT,
                "{\"strategy\":%s,\"shardsBefore\":%d,\"shardsAfter\":%d,\"objects\":%d,\"perShard\":%s,"
                        + "\"peakToMean\":%.4f,\"minToMean\":%.4f,\"movedFraction\":%.6f,\"optimalMovedFraction\":%.6f",
                JsonText.quote(strategy), shardsBefore, shardsAfter, objects, shards, peakToMean(), minToMean(),
                movedFraction, optimalMovedFraction);
        if (load.isPresent()) {
            Load costs = load.get();
            String loads = costs.perShard().entrySet().stream()
                    .map(entry -> JsonText.quote(entry.getKey()) + ":" + String.format(Locale.ROOT, "%.2f", entry.getValue()))
                    .collect(Collectors.joining(",", "{", "}"));
            json += String.format(Locale.ROOT,
                    ",\"costs\":%s,\"perShardLoad\":%s,\"loadPeakToMean\":%.4f,\"loadMinToMean\":%.4f,\"movedLoadFraction\":%.6f",
                    JsonText.quote(costs.costs()), loads, costs.peakToMean(), costs.minToMean(), costs.movedFraction());
        }
        return json + "}";
    }

    String toTable() {
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                "strategy %s: %d -> %d shards, %d objects%n"
                        + "moved     %.2f%% of objects (optimal %.2f%%)%n"
                        + "balance   peak/mean %.3f, min/mean %.3f%n",
                strategy, shardsBefore, shardsAfter, objects, 100 * movedFraction, 100 * optimalMovedFraction,
                peakToMean(), minToMean()));
        if (load.isEmpty()) {
            table.append(String.format(Locale.ROOT, "%n%-12s %10s %8s%n", "SHARD", "OBJECTS", "SHARE"));
            perShard.forEach((shard, count) -> table.append(String.format(Locale.ROOT, "%-12s %10d %7.2f%%%n",
                    shard, count, 100.0 * count / objects)));
            return table.toString();
        }
        Load costs = load.get();
        double totalLoad = costs.perShard().values().stream().mapToDouble(Double::doubleValue).sum();
        table.append(String.format(Locale.ROOT,
                "costs     %s: load in objects of mean cost, moved %.2f%% of it%n"
                        + "load      peak/mean %.3f, min/mean %.3f%n%n"
                        + "%-12s %10s %8s %12s %8s%n",
                costs.costs(), 100 * costs.movedFraction(), costs.peakToMean(), costs.minToMean(),
                "SHARD", "OBJECTS", "SHARE", "LOAD", "SHARE"));
        perShard.forEach((shard, count) -> {
            double shardLoad = costs.perShard().get(shard);
            table.append(String.format(Locale.ROOT, "%-12s %10d %7.2f%% %12.1f %7.2f%%%n",
                    shard, count, 100.0 * count / objects, shardLoad, 100.0 * shardLoad / totalLoad));
        });
        return table.toString();
    }
}
