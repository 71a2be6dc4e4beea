package dev.ringmaster.cli.simulate;

import dev.ringmaster.flags.JsonText;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Outcome of a simulation. Loads are objects relative to a shard's fair share, so for weighted
 * fleets {@code peakToMean} and {@code minToMean} compare like with like.
 */
record SimulationResult(
        String strategy, int shardsBefore, int shardsAfter, int objects, Map<String, Integer> perShard,
        double[] loads, double movedFraction, double optimalMovedFraction) {

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
        return String.format(Locale.ROOT,
                "{\"strategy\":%s,\"shardsBefore\":%d,\"shardsAfter\":%d,\"objects\":%d,\"perShard\":%s,"
                        + "\"peakToMean\":%.4f,\"minToMean\":%.4f,\"movedFraction\":%.6f,\"optimalMovedFraction\":%.6f}",
                JsonText.quote(strategy), shardsBefore, shardsAfter, objects, shards, peakToMean(), minToMean(),
                movedFraction, optimalMovedFraction);
    }

    String toTable() {
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                "strategy %s: %d -> %d shards, %d objects%n"
                        + "moved     %.2f%% of objects (optimal %.2f%%)%n"
                        + "balance   peak/mean %.3f, min/mean %.3f%n%n"
                        + "%-12s %10s %8s%n",
                strategy, shardsBefore, shardsAfter, objects, 100 * movedFraction, 100 * optimalMovedFraction,
                peakToMean(), minToMean(), "SHARD", "OBJECTS", "SHARE"));
        perShard.forEach((shard, count) -> table.append(String.format(Locale.ROOT, "%-12s %10d %7.2f%%%n",
                shard, count, 100.0 * count / objects)));
        return table.toString();
    }
}
