package dev.ringmaster.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ringmaster.examples.checksum.Cost;
import dev.ringmaster.flags.Durations;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Workloads in durations: the mean the costs are scaled to, their annotations, the load step. */
class WorkloadsTest {

    /** H(1000, 1.1) = ζ(1.1) − ζ(1.1, 1001), by mpmath: what the Zipf head is scaled by. */
    private static final double HARMONIC_1000_1_1 = 5.5728266763527411656;

    @Test
    void zipfCostsAverageTheMeanAndTheHeadCostsNOverH() {
        Workloads.Workload workload = Workloads.of("zipf:1.1", 42, 1000, Duration.ofMillis(20), "load");
        // each cost is rounded to the microsecond: the sum is 1000 × 20 ms within 1000 × 0.5 µs
        assertThat(workload.total().toNanos()).isCloseTo(Duration.ofSeconds(20).toNanos(), within(500_000L));
        Duration max = Arrays.stream(workload.costs()).max(Duration::compareTo).orElseThrow();
        // 1000 / H × 20 ms = 3588842.9986 µs, rounded to 3588843 µs
        assertThat(max.toNanos() / 1e6).isCloseTo(1000 / HARMONIC_1000_1_1 * 20, within(0.001));
        assertThat(max).isEqualTo(Duration.ofNanos(3_588_843_000L));
        assertThat(workload.cost(572)).as("rank 1 of seed 42, as CostDistributionTest pins it").isEqualTo(max);
        assertThat(workload.annotations(572)).containsExactly(Map.entry("checksums.ringmaster.dev/cost", "3588843us"));
        assertThat(workload.spec()).isEqualTo("zipf:1.1");
    }

    @Test
    void hotObjectsCostFTimesAndTheAnnotationsSayItInTheirUnits() {
        Workloads.Workload workload = Workloads.of("hot:1:100", 42, 1000, Duration.ofMillis(10), "load");
        // cold: 10 ms × 1000 / 1990 = 5025.126 µs; hot: 100 times that, 502512.563 µs
        Map<Duration, Long> counts = Arrays.stream(workload.costs())
                .collect(Collectors.groupingBy(cost -> cost, Collectors.counting()));
        assertThat(counts).containsOnly(Map.entry(Duration.ofNanos(5_025_000), 990L),
                Map.entry(Duration.ofNanos(502_513_000), 10L));
        assertThat(workload.annotations(0).get(Cost.ANNOTATION)).isEqualTo("5025us");
        assertThat(workload.annotations(6).get(Cost.ANNOTATION)).isEqualTo("502513us");
        for (int i = 0; i < workload.objects(); i++) {
            assertThat(Durations.parse(workload.annotations(i).get(Cost.ANNOTATION))).isEqualTo(workload.cost(i));
        }
        assertThat(Workloads.of("equal", 1, 3, Duration.ofMillis(250), "ns").annotations(2))
                .containsEntry(Cost.ANNOTATION, "250ms");
    }

    @Test
    void namespacesSpreadUnlessTheSpecPlacesThem() {
        Workloads.Workload half = Workloads.of("namespace-half", 42, 1000, Duration.ofMillis(1), "load");
        assertThat(Arrays.stream(half.namespaces()).filter("load-0"::equals).count()).isEqualTo(500);
        assertThat(Arrays.stream(half.namespaces()).distinct().count()).isEqualTo(100);
        assertThat(half.costs()).containsOnly(Duration.ofMillis(1));

        Workloads.Workload zipf = Workloads.of("zipf:1.1", 42, 250, Duration.ofMillis(1), "load");
        assertThat(zipf.namespace(0)).isEqualTo("load-0");
        assertThat(zipf.namespace(199)).isEqualTo("load-99");
        assertThat(zipf.namespace(201)).isEqualTo("load-1");
    }

    @Test
    void aLoadStepDoublesEveryCostThenHalvesItBack() {
        Workloads.Workload workload = Workloads.of("zipf:1.1", 7, 500, Duration.ofMillis(15), "load");
        var phases = workload.step();
        assertThat(phases).hasSize(2);
        for (int i = 0; i < workload.objects(); i++) {
            assertThat(phases.get(0).cost(i)).isEqualTo(workload.cost(i).multipliedBy(2));
        }
        assertThat(phases.get(0).total()).isEqualTo(workload.total().multipliedBy(2));
        assertThat(phases.get(1)).as("back where it started, exactly").isEqualTo(workload);
        assertThat(phases.get(0).namespaces()).containsExactly(workload.namespaces());
        assertThat(workload.scaled(1, 3).cost(0)).isEqualTo(Duration.ofNanos(workload.cost(0).toNanos() / 3));
        assertThatThrownBy(() -> workload.scaled(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSameSeedGivesTheSameWorkload() {
        assertThat(Workloads.of("hot:1:100", 3, 100, Duration.ofMillis(5), "a"))
                .isEqualTo(Workloads.of("hot:1:100", 3, 100, Duration.ofMillis(5), "a"))
                .isNotEqualTo(Workloads.of("hot:1:100", 4, 100, Duration.ofMillis(5), "a"));
    }

    @Test
    void aBadSpecNamesItself() {
        assertThatThrownBy(() -> Workloads.of("hot:1", 1, 10, Duration.ofMillis(1), "a"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("'hot:1' is not a cost distribution");
        assertThatThrownBy(() -> Workloads.of("equal", 1, 10, Duration.ofMillis(-1), "a"))
                .hasMessageStartingWith("the mean cost must not be negative");
    }

    @Test
    void loadSkewComparesTheMostLoadedShardWithTheMean() {
        var one = LoadSkew.placement(1, 64);
        assertThat(LoadSkew.mostLoadedToMean(dev.ringmaster.cli.workload.CostDistribution.parse("zipf:1.1"), 1, 1000, one))
                .isCloseTo(1.0, within(1e-12));
        var six = LoadSkew.placement(6, 64);
        double equal = LoadSkew.mostLoadedToMean(dev.ringmaster.cli.workload.CostDistribution.equal(), 1, 10_000, six);
        // the most-loaded shard has at least the mean, and with 64 buckets over 6 shards not twice it
        assertThat(equal).isBetween(1.0, 2.0);
        // one hot object alone carries 100/199 of the load of 100 objects: its shard has 6 × that over the mean
        assertThat(LoadSkew.mostLoadedToMean(dev.ringmaster.cli.workload.CostDistribution.parse("hot:1:100"), 1, 100, six))
                .isGreaterThanOrEqualTo(6 * 100 / 199.0);
        assertThat(LoadSkew.percentile(new double[] {5, 1, 4, 2, 3}, 50)).isEqualTo(3);
        assertThat(LoadSkew.percentile(new double[] {5, 1, 4, 2, 3, 6, 7, 8, 9, 10}, 90)).isEqualTo(9);
    }
}
