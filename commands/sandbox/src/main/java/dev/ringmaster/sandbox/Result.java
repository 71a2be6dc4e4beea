package dev.ringmaster.sandbox;

import dev.ringmaster.flags.JsonText;
import dev.ringmaster.ring.ranges.RangeSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
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
 * @param ranges                range mode ({@code --ranges}): the ranges and what must not have happened; empty in label mode
 * @param balance               the {@code balance} scenario: the shards' load and the leader's steps; empty otherwise
 */
record Result(Optional<Scenario> scenario, int shards, int objects, double seconds, double scenarioSeconds,
        SortedMap<String, Integer> perShard,
        SortedMap<String, String> shardStates, Map<String, String> processes, int unassigned, int draining,
        int onUnavailableShards, long moves, long overlappingReconciles, long reconciles, Optional<String> error,
        Optional<RangeFacts> ranges, Optional<BalanceFacts> balance) {

    /**
     * What the {@code balance} scenario adds to a result.
     *
     * @param busy           the busy time (s/s) each shard reported last, from its Lease's load report
     * @param load           the busy time (s/s) the objects each shard serves cost it ({@link Balancing#load})
     * @param imbalance      the busiest shard's reported busy time over the mean; empty with none reported
     * @param balancedEvents the notes of the {@code Balanced} Events the leader recorded on the ring, oldest first
     * @param balanced       whether the scenario reached its end: busy times within {@link Balancing#BALANCED_RATIO}
     *                       of the mean, ranges served as assigned, at least one {@code Balanced} Event
     */
    record BalanceFacts(SortedMap<String, Double> busy, SortedMap<String, Double> load, OptionalDouble imbalance,
            List<String> balancedEvents, boolean balanced) {
    }

    /** A result without the {@code balance} scenario's facts. */
    Result(Optional<Scenario> scenario, int shards, int objects, double seconds, double scenarioSeconds,
            SortedMap<String, Integer> perShard, SortedMap<String, String> shardStates, Map<String, String> processes,
            int unassigned, int draining, int onUnavailableShards, long moves, long overlappingReconciles,
            long reconciles, Optional<String> error, Optional<RangeFacts> ranges) {
        this(scenario, shards, objects, seconds, scenarioSeconds, perShard, shardStates, processes, unassigned, draining,
                onUnavailableShards, moves, overlappingReconciles, reconciles, error, ranges, Optional.empty());
    }

    /**
     * What range mode adds to a result. Objects count as assigned to (and moves as changes of) the
     * shard whose served ranges hold the hash of their uid.
     *
     * @param buckets              the ring's {@code spec.ranges.buckets}
     * @param served               the served ranges per shard (every shard started)
     * @param configMapWrites      ConfigMap updates after their creation: the sharder (and the shards) write none
     * @param labelled             ConfigMaps carrying the ring's shard or drain label at the end
     * @param notReconciledByOwner objects whose latest reconcile was not by the shard that serves them
     */
    record RangeFacts(int buckets, SortedMap<String, RangeSet> served, long configMapWrites, int labelled,
            int notReconciledByOwner) {

        /** The share of the hash space the shards serve together (1 when every hash is served, ranges being disjoint). */
        double servedShare() {
            return served.values().stream().mapToDouble(RangeSet::fraction).sum();
        }
    }

    /** A result in label mode. */
    Result(Optional<Scenario> scenario, int shards, int objects, double seconds, double scenarioSeconds,
            SortedMap<String, Integer> perShard, SortedMap<String, String> shardStates, Map<String, String> processes,
            int unassigned, int draining, int onUnavailableShards, long moves, long overlappingReconciles,
            long reconciles, Optional<String> error) {
        this(scenario, shards, objects, seconds, scenarioSeconds, perShard, shardStates, processes, unassigned, draining,
                onUnavailableShards, moves, overlappingReconciles, reconciles, error, Optional.empty());
    }

    /**
     * Every object ended on an available, running shard; no object was reconciled by two shards at once;
     * in range mode also: no ConfigMap was written or labelled, and every object was last reconciled by its owner.
     */
    boolean ok() {
        return error.isEmpty() && unassigned == 0 && onUnavailableShards == 0 && overlappingReconciles == 0
                && ranges.map(facts -> facts.configMapWrites() == 0 && facts.labelled() == 0
                        && facts.notReconciledByOwner() == 0).orElse(true)
                && balance.map(BalanceFacts::balanced).orElse(true);
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
        ranges.ifPresent(facts -> {
            if (facts.configMapWrites() > 0) {
                problems.add(facts.configMapWrites() + " ConfigMap write(s) after creation in range mode");
            }
            if (facts.labelled() > 0) {
                problems.add(facts.labelled() + " ConfigMap(s) carrying a shard or drain label in range mode");
            }
            if (facts.notReconciledByOwner() > 0) {
                problems.add(facts.notReconciledByOwner() + " object(s) not last reconciled by the shard serving them");
            }
        });
        balance.filter(facts -> !facts.balanced()).ifPresent(facts -> problems.add("the load was not balanced"));
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", problems));
    }

    /** The result as one JSON object on one line. */
    String toJson() {
        StringBuilder json = new StringBuilder("{");
        json.append("\"scenario\":").append(scenario.map(s -> JsonText.quote(s.text())).orElse("null"));
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
        appendEntries(json, shardStates, JsonText::quote);
        json.append('}');
        ranges.ifPresent(facts -> {
            json.append(",\"mode\":\"ranges\",\"buckets\":").append(facts.buckets());
            json.append(",\"ranges\":{");
            appendEntries(json, facts.served(), set -> "{\"ranges\":" + set.ranges().size() + ",\"share\":"
                    + String.format(Locale.ROOT, "%.4f", set.fraction()) + "}");
            json.append("},\"servedShare\":").append(String.format(Locale.ROOT, "%.4f", facts.servedShare()));
            json.append(",\"configMapWrites\":").append(facts.configMapWrites());
            json.append(",\"labelledObjects\":").append(facts.labelled());
            json.append(",\"notReconciledByOwner\":").append(facts.notReconciledByOwner());
        });
        balance.ifPresent(facts -> {
            json.append(",\"busy\":{");
            appendEntries(json, facts.busy(), busy -> String.format(Locale.ROOT, "%.4f", busy));
            json.append("},\"load\":{");
            appendEntries(json, facts.load(), load -> String.format(Locale.ROOT, "%.4f", load));
            json.append("},\"imbalance\":").append(facts.imbalance().isPresent()
                    ? String.format(Locale.ROOT, "%.3f", facts.imbalance().getAsDouble()) : "null");
            json.append(",\"balancedEvents\":[");
            json.append(String.join(",", facts.balancedEvents().stream().map(JsonText::quote).toList()));
            json.append("],\"balanced\":").append(facts.balanced());
        });
        json.append(",\"ok\":").append(ok());
        error.ifPresent(message -> json.append(",\"error\":").append(JsonText.quote(message)));
        return json.append('}').toString();
    }

    /** The final distribution as a table with a summary, for people. */
    String toText() {
        StringBuilder text = new StringBuilder();
        text.append(scenario.map(s -> String.format(Locale.ROOT, "scenario %s (%.1f s)", s.text(), scenarioSeconds))
                .orElse("no scenario"))
                .append(String.format(Locale.ROOT, ", %.1f s in all: %d shard(s) at the start, %d objects%n",
                        seconds, shards, objects));
        text.append(ranges.map(facts -> Table.render(perShard, shardStates, processes, facts.served(),
                        balance.map(BalanceFacts::busy).orElse(null)))
                .orElseGet(() -> Table.render(perShard, shardStates, processes)));
        text.append(String.format(Locale.ROOT,
                "unassigned %d, draining %d, moves %d, overlapping reconciles %d (of %d reconciles)%n",
                unassigned, draining, moves, overlappingReconciles, reconciles));
        ranges.ifPresent(facts -> text.append(String.format(Locale.ROOT,
                "range mode, %d buckets: ConfigMap writes %d, labelled ConfigMaps %d, not last reconciled by their"
                        + " owner %d%n", facts.buckets(), facts.configMapWrites(), facts.labelled(),
                facts.notReconciledByOwner())));
        balance.ifPresent(facts -> {
            text.append(String.format(Locale.ROOT, "load: busiest shard at %s the mean busy time (balanced at %.2f);"
                    + " %d Balanced Event(s)%n", facts.imbalance().isPresent()
                    ? String.format(Locale.ROOT, "%.2f times", facts.imbalance().getAsDouble()) : "? times",
                    Balancing.BALANCED_RATIO, facts.balancedEvents().size()));
            facts.balancedEvents().forEach(note -> text.append("  Balanced: ").append(note).append(System.lineSeparator()));
        });
        text.append(problem().map(problem -> "FAILED: " + problem)
                .orElse("OK: every object is on an available shard and no object was reconciled by two shards"
                        + " at overlapping times" + (ranges.isPresent()
                        ? "; no ConfigMap written, every object last reconciled by the shard serving its hash" : "")
                        + (balance.isPresent() ? "; the load balanced by the leader's load steps" : "")))
                .append(System.lineSeparator());
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
            json.append(JsonText.quote(entry.getKey())).append(':').append(value.apply(entry.getValue()));
        }
    }
}
