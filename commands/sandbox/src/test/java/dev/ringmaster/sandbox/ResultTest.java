package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ranges.RangeSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ResultTest {

    @Test
    void aCleanRunIsOkAndItsJsonIsOneObject() {
        Result result = result(0, 0, 0, Optional.empty());

        assertThat(result.ok()).isTrue();
        assertThat(result.problem()).isEmpty();
        assertThat(result.toJson()).isEqualTo("{\"scenario\":\"kill-shard\",\"shards\":3,\"objects\":60,"
                + "\"seconds\":47.3,\"scenarioSeconds\":33.1,\"perShard\":{\"shard-0\":0,\"shard-1\":27,\"shard-2\":33},"
                + "\"unassigned\":0,\"draining\":0,\"onUnavailableShards\":0,\"moves\":24,\"overlappingReconciles\":0,"
                + "\"reconciles\":84,\"shardStates\":{\"shard-0\":\"dead\",\"shard-1\":\"ready\",\"shard-2\":\"ready\"},"
                + "\"ok\":true}");
    }

    @Test
    void unassignedObjectsObjectsOnUnavailableShardsAndOverlapsFail() {
        assertThat(result(1, 0, 0, Optional.empty()).ok()).isFalse();
        assertThat(result(0, 2, 0, Optional.empty()).ok()).isFalse();
        Result overlapping = result(0, 0, 3, Optional.empty());
        assertThat(overlapping.ok()).isFalse();
        assertThat(overlapping.problem())
                .contains("3 pair(s) of reconciles of one object by two shards at overlapping times");
        assertThat(overlapping.toJson()).contains("\"overlappingReconciles\":3", "\"ok\":false");
    }

    @Test
    void anErrorFailsAndIsInTheJson() {
        Result timedOut = result(0, 0, 0, Optional.of("kill-shard: not done within 120 s (shard-0 still holds 3 \"objects\")"));

        assertThat(timedOut.ok()).isFalse();
        assertThat(timedOut.toJson()).endsWith(
                ",\"ok\":false,\"error\":\"kill-shard: not done within 120 s (shard-0 still holds 3 \\\"objects\\\")\"}");
        assertThat(timedOut.toText()).contains("FAILED: kill-shard: not done within 120 s");
    }

    @Test
    void theTextIsATableWithASummary() {
        String text = result(0, 0, 0, Optional.empty()).toText();

        assertThat(text).startsWith("scenario kill-shard (33.1 s), 47.3 s in all: 3 shard(s) at the start, 60 objects")
                .contains("SHARD    LEASE STATE  PROCESS   OBJECTS")
                .containsPattern("shard-0\\s+dead\\s+killed\\s+0")
                .containsPattern("shard-2\\s+ready\\s+running\\s+33")
                .contains("unassigned 0, draining 0, moves 24, overlapping reconciles 0 (of 84 reconciles)")
                .contains("OK: every object is on an available shard");
    }

    @Test
    void inRangeModeTheResultShowsTheRangesAndFailsOnConfigMapWritesLabelsAndObjectsNotReconciledByTheirOwner() {
        RangeSet lower = RangeSet.parse("0x0000000000000000-0x8000000000000000");
        TreeMap<String, RangeSet> served = new TreeMap<>(Map.of("shard-0", RangeSet.EMPTY, "shard-1", lower,
                "shard-2", lower.complement()));
        Result clean = ranged(new Result.RangeFacts(64, served, 0, 0, 0));

        assertThat(clean.ok()).isTrue();
        assertThat(clean.toJson()).contains("\"mode\":\"ranges\",\"buckets\":64,\"ranges\":{"
                + "\"shard-0\":{\"ranges\":0,\"share\":0.0000},\"shard-1\":{\"ranges\":1,\"share\":0.5000},"
                + "\"shard-2\":{\"ranges\":1,\"share\":0.5000}},\"servedShare\":1.0000,\"configMapWrites\":0,"
                + "\"labelledObjects\":0,\"notReconciledByOwner\":0,\"ok\":true}");
        assertThat(clean.toText()).contains("RANGES", "SHARE").containsPattern("shard-1\\s+ready\\s+running\\s+27\\s+1\\s+50.0%")
                .contains("range mode, 64 buckets: ConfigMap writes 0, labelled ConfigMaps 0")
                .contains("OK: every object is on an available shard");
        assertThat(result(0, 0, 0, Optional.empty()).toJson()).as("label mode as before").doesNotContain("ranges");

        Result written = ranged(new Result.RangeFacts(64, served, 2, 1, 3));
        assertThat(written.ok()).isFalse();
        assertThat(written.problem()).contains("2 ConfigMap write(s) after creation in range mode, 1 ConfigMap(s)"
                + " carrying a shard or drain label in range mode, 3 object(s) not last reconciled by the shard serving them");
        assertThat(ranged(new Result.RangeFacts(64, served, 0, 0, 1)).ok()).isFalse();
        assertThat(ranged(new Result.RangeFacts(64, served, 0, 1, 0)).ok()).isFalse();
    }

    @Test
    void theBalanceScenarioShowsTheBusyTimesAndTheBalancedEventsAndFailsUnbalanced() {
        RangeSet lower = RangeSet.parse("0x0000000000000000-0x8000000000000000");
        Result.RangeFacts ranges = new Result.RangeFacts(64, new TreeMap<>(Map.of("shard-0", RangeSet.EMPTY,
                "shard-1", lower, "shard-2", lower.complement())), 0, 0, 0);
        TreeMap<String, Double> busy = new TreeMap<>(Map.of("shard-1", 0.2, "shard-2", 0.16));
        TreeMap<String, Double> load = new TreeMap<>(Map.of("shard-1", 0.24, "shard-2", 0.16));
        Result balanced = balanced(ranges, new Result.BalanceFacts(busy, load, OptionalDouble.of(1.2),
                List.of("moved 1 range \"a\""), true));

        assertThat(balanced.ok()).isTrue();
        assertThat(balanced.toJson()).contains("\"notReconciledByOwner\":0,\"busy\":{\"shard-1\":0.2000,"
                + "\"shard-2\":0.1600},\"load\":{\"shard-1\":0.2400,\"shard-2\":0.1600},\"imbalance\":1.200,"
                + "\"balancedEvents\":[\"moved 1 range \\\"a\\\"\"],"
                + "\"balanced\":true,\"ok\":true}");
        assertThat(balanced.toText()).containsPattern("SHARE\\s+BUSY \\(s/s\\)")
                .containsPattern("shard-1\\s+ready\\s+running\\s+27\\s+1\\s+50.0%\\s+0.200")
                .containsPattern("shard-0\\s+dead\\s+killed\\s+0\\s+0\\s+0.0%\\s+-")
                .contains("load: busiest shard at 1.20 times the mean busy time (balanced at 1.25); 1 Balanced Event(s)")
                .contains("  Balanced: moved 1 range \"a\"");
        assertThat(ranged(ranges).toText()).as("other range-mode scenarios as before").doesNotContain("BUSY", "load:");
        assertThat(ranged(ranges).toJson()).doesNotContain("busy");

        Result unbalanced = balanced(ranges, new Result.BalanceFacts(busy, load, OptionalDouble.empty(), List.of(),
                false));
        assertThat(unbalanced.ok()).isFalse();
        assertThat(unbalanced.problem()).contains("the load was not balanced");
        assertThat(unbalanced.toJson()).contains("\"imbalance\":null,\"balancedEvents\":[],\"balanced\":false");
    }

    private static Result balanced(Result.RangeFacts ranges, Result.BalanceFacts facts) {
        Result label = result(0, 0, 0, Optional.empty());
        return new Result(Optional.of(Scenario.BALANCE), label.shards(), label.objects(), label.seconds(),
                label.scenarioSeconds(), label.perShard(), label.shardStates(), label.processes(), 0, 0, 0, label.moves(),
                0, label.reconciles(), Optional.empty(), Optional.of(ranges), Optional.of(facts));
    }

    private static Result ranged(Result.RangeFacts facts) {
        Result label = result(0, 0, 0, Optional.empty());
        return new Result(label.scenario(), label.shards(), label.objects(), label.seconds(), label.scenarioSeconds(),
                label.perShard(), label.shardStates(), label.processes(), 0, 0, 0, label.moves(), 0, label.reconciles(),
                Optional.empty(), Optional.of(facts));
    }

    private static Result result(int unassigned, int onUnavailable, long overlaps, Optional<String> error) {
        return new Result(Optional.of(Scenario.KILL_SHARD), 3, 60, 47.3, 33.1,
                new TreeMap<>(Map.of("shard-0", 0, "shard-1", 27, "shard-2", 33)),
                new TreeMap<>(Map.of("shard-0", "dead", "shard-1", "ready", "shard-2", "ready")),
                Map.of("shard-0", "killed", "shard-1", "running", "shard-2", "running"),
                unassigned, 0, onUnavailable, 24, overlaps, 84, error);
    }
}
