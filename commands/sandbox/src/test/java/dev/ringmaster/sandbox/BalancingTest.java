package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.examples.checksum.Cost;
import dev.ringmaster.flags.Durations;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BalancingTest {

    @Test
    void theCostsAreSkewedWithTheMeanGivenAndNoShardSaturated() {
        List<String> annotations = Balancing.costAnnotations(100);
        assertThat(annotations).hasSize(100).allMatch(value -> value.matches("[0-9]+us"));
        double[] millis = annotations.stream().mapToDouble(value -> Durations.parse(value).toNanos() / 1e6).toArray();
        double sum = java.util.Arrays.stream(millis).sum();
        double max = java.util.Arrays.stream(millis).max().orElseThrow();
        assertThat(sum / 100).isCloseTo(Balancing.MEAN_COST.toMillis(), org.assertj.core.data.Offset.offset(0.01));
        assertThat(max).as("zipf:1.1: the top object a quarter of the cost").isBetween(100.0, 150.0);
        // each object once per resync: a third of all the cost per second is a shard's mean busy time
        assertThat(sum / 3 / Balancing.RESYNC.toMillis()).as("mean busy time per shard, s/s").isLessThan(0.25);
        assertThat(Balancing.costAnnotations(100)).as("the same workload every run").isEqualTo(annotations);
        assertThat(Cost.ANNOTATION).isEqualTo("checksums.ringmaster.dev/cost");
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
                .contains("busiest shard at 1.10 times the mean, but no Balanced Event yet");
        assertThat(Balancing.pending(Map.of("shard-0", 0.22, "shard-1", 0.18, "stopped", 9.0), usable, 1)).isEmpty();
    }
}
