package dev.ringmaster.cli.simulate;

import dev.ringmaster.flags.JsonText;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A strategy change previewed against a ring. Object counts are of main objects with a partition key.
 *
 * @param ring                  {@code ClusterRing/name}
 * @param currentStrategy       the strategy in force
 * @param currentStrategySource where {@code currentStrategy} comes from
 * @param strategy              the candidate strategy
 * @param shards                the ring's shard Leases
 * @param availableShards       of them, those objects may be assigned to
 * @param objects               main objects
 * @param controlled            controlled objects with a controller (they follow their owners)
 * @param unkeyed               objects the ring's interpreter gives no key (never assigned)
 * @param moved                 main objects the candidate puts on another shard than the current strategy
 * @param controlledMoved       controlled objects that move with their owners
 * @param elsewhere             main objects labelled with another shard than the current strategy's, not in drain
 * @param draining              main objects in drain
 * @param unassigned            main objects without a shard label
 * @param perShard              per shard: its state and its main objects by label, current strategy and candidate
 * @param judgedOtherwise       shards available here but not by the state the sharder labelled their Lease
 *                              with, or the other way round (a sharder with another lease detector)
 * @param unservedResources     ring resources the API server does not serve
 */
record RingPreviewResult(String ring, String currentStrategy, String currentStrategySource, String strategy,
        int shards, int availableShards, int objects, int controlled, int unkeyed, int moved, int controlledMoved,
        int elsewhere, int draining, int unassigned, Map<String, ShardCounts> perShard,
        List<String> judgedOtherwise, List<String> unservedResources) {

    /**
     * One shard's main objects.
     *
     * @param state        the Lease's state as judged here with the sharder's default detector, or {@value #NO_LEASE}
     * @param sharderState the state the sharder wrote in the Lease's label; empty if none
     * @param labelled     labelled with it now
     * @param current      where the current strategy puts them
     * @param candidate    where the candidate strategy puts them
     */
    record ShardCounts(String state, String sharderState, int labelled, int current, int candidate) {
        /** The state of a shard that objects are labelled with but that has no Lease. */
        static final String NO_LEASE = "no-lease";
    }

    /** Main objects not where the current strategy puts them. */
    int notWhereCurrentPuts() {
        return elsewhere + draining + unassigned;
    }

    double movedFraction() {
        return objects == 0 ? 0 : (double) moved / objects;
    }

    String toJson() {
        String rows = perShard.entrySet().stream()
                .map(entry -> JsonText.quote(entry.getKey()) + ":" + String.format(Locale.ROOT,
                        "{\"state\":%s,\"sharderState\":%s,\"labelled\":%d,\"current\":%d,\"candidate\":%d}",
                        JsonText.quote(entry.getValue().state()), JsonText.quote(entry.getValue().sharderState()),
                        entry.getValue().labelled(),
                        entry.getValue().current(), entry.getValue().candidate()))
                .collect(Collectors.joining(",", "{", "}"));
        String unserved = unservedResources.stream().map(JsonText::quote).collect(Collectors.joining(",", "[", "]"));
        String otherwise = judgedOtherwise.stream().map(JsonText::quote).collect(Collectors.joining(",", "[", "]"));
        return String.format(Locale.ROOT,
                "{\"ring\":%s,\"currentStrategy\":%s,\"currentStrategySource\":%s,\"strategy\":%s,"
                        + "\"shards\":%d,\"availableShards\":%d,\"objects\":%d,\"controlledObjects\":%d,"
                        + "\"unkeyedObjects\":%d,\"moved\":%d,\"movedFraction\":%.6f,\"controlledMoved\":%d,"
                        + "\"notWhereCurrentPuts\":{\"elsewhere\":%d,\"draining\":%d,\"unassigned\":%d},"
                        + "\"perShard\":%s,\"judgedOtherwiseBySharder\":%s,\"unservedResources\":%s}",
                JsonText.quote(ring), JsonText.quote(currentStrategy), JsonText.quote(currentStrategySource),
                JsonText.quote(strategy), shards, availableShards, objects, controlled, unkeyed, moved, movedFraction(),
                controlledMoved, elsewhere, draining, unassigned, rows, otherwise, unserved);
    }

    String toTable() {
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT,
                "ring      %s: %d shards, %d available; %d objects, %d controlled objects follow their owners%s%n"
                        + "current   %s (%s)%n"
                        + "candidate %s%n"
                        + "moved     %d of %d objects (%.2f%%), and %d controlled objects with them%n"
                        + "labels    %d objects not where %s puts them: %d on another shard, %d in drain, %d unassigned%n",
                ring, shards, availableShards, objects, controlled, unkeyed == 0 ? "" : "; " + unkeyed + " without a key",
                currentStrategy, currentStrategySource, strategy, moved, objects, 100 * movedFraction(), controlledMoved,
                notWhereCurrentPuts(), currentStrategy, elsewhere, draining, unassigned));
        if (availableShards == 0) {
            table.append("          no shard is available: neither strategy places any object\n");
        }
        if (!judgedOtherwise.isEmpty()) {
            table.append("          the sharder's state label says otherwise of ").append(String.join(", ", judgedOtherwise))
                    .append(" (SHARDER column): a sharder with another lease detector places by its own verdicts\n");
        }
        if (!unservedResources.isEmpty()) {
            table.append("          not served by the API server, not counted: ")
                    .append(String.join(", ", unservedResources)).append('\n');
        }
        table.append(String.format(Locale.ROOT, "%n%-24s %-10s %-10s %9s %9s %9s%n", "SHARD", "STATE", "SHARDER",
                "LABELLED", "CURRENT", "CANDIDATE"));
        perShard.forEach((shard, counts) -> table.append(String.format(Locale.ROOT, "%-24s %-10s %-10s %9d %9d %9d%n",
                shard, counts.state(), counts.sharderState().isEmpty() ? "-" : counts.sharderState(), counts.labelled(),
                counts.current(), counts.candidate())));
        return table.toString();
    }
}
