package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.examples.checksum.Cost;
import dev.ringmaster.flags.Durations;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BalancingTest {

    @Test
    void theCostsAreSkewedWithTheMeanGivenAndNoShardSaturated() {
        List<Duration> costs = Balancing.costs(100);
        assertThat(costs).hasSize(100).allMatch(cost -> cost.toNanos() % 1000 == 0, "whole microseconds");
        double[] millis = costs.stream().mapToDouble(cost -> cost.toNanos() / 1e6).toArray();
        double sum = java.util.Arrays.stream(millis).sum();
        double max = java.util.Arrays.stream(millis).max().orElseThrow();
        assertThat(sum / 100).isCloseTo(20.0, org.assertj.core.data.Offset.offset(0.01));
        assertThat(max).as("zipf:1.1: the top object a quarter of the cost").isBetween(400.0, 600.0);
        // each object once per 2 s resync: a third of all the cost per second is a shard's mean busy time
        assertThat(sum / 3 / 2000).as("mean busy time per shard, s/s").isBetween(0.3, 0.4);
        assertThat(Balancing.costs(100)).as("the same workload every run").isEqualTo(costs);
        // the annotation as the example controller reads it (Durations, as --resync)
        assertThat(Balancing.annotation(Duration.ofNanos(1_234_000))).isEqualTo("1234us");
        assertThat(Durations.parse(Balancing.annotation(costs.get(0)))).isEqualTo(costs.get(0));
        assertThat(Cost.ANNOTATION).isEqualTo("checksums.ringmaster.dev/cost");
    }

    @Test
    void aShardsLoadIsWhatItsObjectsCostPerResync() {
        Map<String, String> shardOf = new java.util.HashMap<>(Map.of("cm-0", "shard-0", "cm-1", "shard-0",
                "cm-2", "shard-1", "cm-3", "stopped"));
        shardOf.put("cm-4", null);
        Map<String, Duration> costOf = Map.of("cm-0", Duration.ofMillis(500), "cm-1", Duration.ofMillis(100),
                "cm-2", Duration.ofMillis(200), "cm-3", Duration.ofSeconds(9), "cm-4", Duration.ofSeconds(9));
        // 600 ms and 200 ms per 2 s resync; the stopped shard and the unowned object count for nobody
        assertThat(Balancing.load(shardOf, costOf, Set.of("shard-0", "shard-1", "shard-2")))
                .containsExactly(Map.entry("shard-0", 0.3), Map.entry("shard-1", 0.1), Map.entry("shard-2", 0.0));
    }

    @Test
    void theBusyTimeIsReadFromTheLoadReport() {
        assertThat(Balancing.busy("window=2s busy=0.4120 wait=0.0130 objects=33 cells=0-63:0.4120:33")).hasValue(0.412);
        assertThat(Balancing.busy(null)).isEmpty();
        assertThat(Balancing.busy("")).isEmpty();
        assertThat(Balancing.busy("busy=lots")).isEmpty();
    }

    @Test
    void theImbalanceIsTheBusiestOverTheMean() {
        assertThat(Balancing.imbalance(List.of(0.3, 0.1, 0.2))).hasValue(1.5);
        assertThat(Balancing.imbalance(List.of(0.2, 0.2))).hasValue(1.0);
        assertThat(Balancing.imbalance(List.of())).isEmpty();
        assertThat(Balancing.imbalance(List.of(0.0, 0.0))).isEmpty();
        assertThat(Balancing.ofShards(Map.of("shard-0", 0.1, "shard-1", 0.2, "gone", 5.0), Set.of("shard-0", "shard-1")))
                .containsExactly(Map.entry("shard-0", 0.1), Map.entry("shard-1", 0.2));
    }

    @Test
    void itIsDoneWhenEveryShardReportedTheBusiestIsWithinTheRatioAndAStepWasTold() {
        Set<String> usable = Set.of("shard-0", "shard-1");
        assertThat(Balancing.pending(Map.of("shard-0", 0.2), usable, 1)).contains("no load report yet from shard-1");
        assertThat(Balancing.pending(Map.of("shard-0", 0.0, "shard-1", 0.0), usable, 1))
                .contains("no busy time reported yet");
        assertThat(Balancing.pending(Map.of("shard-0", 0.3, "shard-1", 0.1), usable, 1))
                .contains("busiest shard at 1.50 times the mean busy time (done at 1.25)");
        assertThat(Balancing.pending(Map.of("shard-0", 0.22, "shard-1", 0.18), usable, 0))
                .contains("busiest shard at 1.10 times the mean busy time, but no Balanced Event yet");
        // a stopped shard's report is left out
        assertThat(Balancing.pending(Map.of("shard-0", 0.22, "shard-1", 0.18, "stopped", 9.0), usable, 1)).isEmpty();
    }
}
