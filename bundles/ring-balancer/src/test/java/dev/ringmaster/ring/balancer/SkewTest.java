package dev.ringmaster.ring.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.load.LoadMap;
import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.ring.spi.Placement;
import dev.ringmaster.ring.spi.PlacementRequest;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Skewed work on 6 shards with 64 buckets, from the rendezvous placement: the test plays the leader, one load step
 * after another, each result the next step's {@code current}, and measures with its own objects.
 */
class SkewTest {

    private static final List<String> SHARDS = EqualCostTest.shards(6);
    private static final int BUCKETS = 64;
    private static final double TOLERANCE = 1.10;
    private static final double STEP_SHARE = 0.10;
    private static final int MAX_STEPS = 30;

    private final LoadAwarePolicy policy = new LoadAwarePolicy();

    static Stream<Arguments> workloads() {
        return Stream.of(1L, 2L, 3L, 42L, 2026L).flatMap(seed -> Stream.of(
                Arguments.of(Workload.zipf(seed, 10_000, 1.1)),
                Arguments.of(Workload.hotSpots(seed, 10_000, 0.01, 100))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("workloads")
    void loadStepsBalanceWithinTheirShareOfObjects(Workload workload) {
        LoadMap load = workload.loadMap();
        Map<String, RangeSet> current = RangePlacement.place(SHARDS, BUCKETS);
        double start = workload.imbalance(current);
        StringBuilder log = new StringBuilder(String.format(Locale.ROOT, "%s: imbalance %.3f", workload.name(), start));
        double total = 0;
        int steps = 0;
        for (; steps < MAX_STEPS; steps++) {
            Placement placement = policy.place(
                    new PlacementRequest(BUCKETS, SHARDS, current, load, TOLERANCE, STEP_SHARE, true));
            double moved = workload.moved(current, placement.ranges());
            if (moved == 0) {
                break;
            }
            assertThat(moved).as("step %d of %s", steps + 1, workload.name()).isLessThanOrEqualTo(STEP_SHARE);
            total += moved;
            current = placement.ranges();
            log.append(String.format(Locale.ROOT, " | step %d moved %.1f%% -> %.3f", steps + 1, 100 * moved,
                    workload.imbalance(current)));
        }
        double end = workload.imbalance(current);
        log.append(String.format(Locale.ROOT, " | %d steps, moved %.1f%% in all, imbalance %.3f -> %.3f", steps,
                100 * total, start, end));
        System.out.println(log);
        assertThat(total).as(log.toString()).isLessThanOrEqualTo(0.30);
        assertThat(end).as(log.toString()).isLessThanOrEqualTo(1.15);
    }
}
