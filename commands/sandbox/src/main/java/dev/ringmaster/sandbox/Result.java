package dev.ringmaster.sandbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * How a sandbox run ended: the final distribution and whether the sharding contract held.
 *
 * @param scenario              the scenario run, empty for none
 * @param shards                shards at the start
 * @param objects               ConfigMaps created
 * @param seconds               wall time from start to this result
 * @param scenarioSeconds       wall time of the scenario alone, from its first step until the ring was at rest
 * @param perShard              objects per shard (every shard started, zero when it holds none)
 * @param shardStates           lease state label per shard ({@code -} while it has none)
 * @param processes             what became of each shard's process (running, stopped, killed)
 * @param unassigned            objects without shard label
 * @param draining              objects carrying the drain label
 * @param onUnavailableShards   objects assigned to a shard that is not available or not running
 * @param moves                 shard-label changes away from a shard since every object was first assigned
 * @param overlappingReconciles pairs of reconciles of one object by two shards at overlapping times
 * @param reconciles            reconciles of all shards
 * @param error                 why the run failed before its end (a timeout), if it did
 */
record Result(Optional<Scenario> scenario, int shards, int objects, double seconds, double scenarioSeconds,
        SortedMap<String, Integer> perShard,
        SortedMap<String, String> shardStates, Map<String, String> processes, int unassigned, int draining,
        int onUnavailableShards, long moves, long overlappingReconciles, long reconciles, Optional<String> error) {

    /** Every object ended on an available, running shard; no object was reconciled by two shards at once. */
    boolean ok() {
        return error.isEmpty() && unassigned == 0 && onUnavailableShards == 0 && overlappingReconciles == 0;
    }

    /** Why the run is not {@link #ok()}, in one line; empty if it is. */
    Optional<String> problem() {
        if (error.isPresent()) {
            return error;
        }
        List<String> problems = new ArrayList<>();
        if (unassigned > 0) {
            problems.add(unassigned + " object(s) unassigned");
        }
        if (onUnavailableShards > 0) {
            problems.add(onUnavailableShards + " object(s) on a shard that is not available");
        }
        if (overlappingReconciles > 0) {
            problems.add(overlappingReconciles + " pair(s) of reconciles of one object by two shards at overlapping times");
        }
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", problems));
    }

    /** The result as one JSON object on one line. */
    String toJson() {
        StringBuilder json = new StringBuilder("{");
        json.append("\"scenario\":").append(scenario.map(s -> quote(s.text())).orElse("null"));
        json.append(",\"shards\":").append(shards);
        json.append(",\"objects\":").append(objects);
        json.append(",\"seconds\":").append(String.format(Locale.ROOT, "%.1f", seconds));
        json.append(",\"scenarioSeconds\":").append(String.format(Locale.ROOT, "%.1f", scenarioSeconds));
        json.append(",\"perShard\":{");
        appendEntries(json, perShard, String::valueOf);
        json.append("},\"unassigned\":").append(unassigned);
        json.append(",\"draining\":").append(draining);
        json.append(",\"onUnavailableShards\":").append(onUnavailableShards);
        json.append(",\"moves\":").append(moves);
        json.append(",\"overlappingReconciles\":").append(overlappingReconciles);
        json.append(",\"reconciles\":").append(reconciles);
        json.append(",\"shardStates\":{");
        appendEntries(json, shardStates, Result::quote);
        json.append("},\"ok\":").append(ok());
        error.ifPresent(message -> json.append(",\"error\":").append(quote(message)));
        return json.append('}').toString();
    }

    /** The final distribution as a table with a summary, for people. */
    String toText() {
        StringBuilder text = new StringBuilder();
        text.append(scenario.map(s -> String.format(Locale.ROOT, "scenario %s (%.1f s)", s.text(), scenarioSeconds))
                .orElse("no scenario"))
                .append(String.format(Locale.ROOT, ", %.1f s in all: %d shard(s) at the start, %d objects%n",
                        seconds, shards, objects));
        text.append(Table.render(perShard, shardStates, processes));
        text.append(String.format(Locale.ROOT,
                "unassigned %d, draining %d, moves %d, overlapping reconciles %d (of %d reconciles)%n",
                unassigned, draining, moves, overlappingReconciles, reconciles));
        text.append(problem().map(problem -> "FAILED: " + problem)
                .orElse("OK: every object is on an available shard and no object was reconciled by two shards"
                        + " at overlapping times")).append(System.lineSeparator());
        return text.toString();
    }

    private static <V> void appendEntries(StringBuilder json, Map<String, V> map,
            java.util.function.Function<V, String> value) {
        boolean first = true;
        for (Map.Entry<String, V> entry : map.entrySet()) {
            if (!first) {
                json.append(',');
            }
            first = false;
            json.append(quote(entry.getKey())).append(':').append(value.apply(entry.getValue()));
        }
    }

    /** A JSON string literal. */
    static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
