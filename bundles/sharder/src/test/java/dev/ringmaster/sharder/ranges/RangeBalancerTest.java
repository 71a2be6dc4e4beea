package dev.ringmaster.sharder.ranges;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.load.CellLoad;
import dev.ringmaster.ring.load.LoadMap;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.ring.spi.Placement;
import dev.ringmaster.ring.spi.PlacementPolicy;
import dev.ringmaster.ring.spi.PlacementRequest;
import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.sharder.model.RingBalancing;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ring.RingView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The pacing of load steps: only after the imbalance lasted the stabilization time, at most one step per interval,
 * never while a handover is in flight, and none without a report. The policy here records what it was asked and
 * answers with a fixed placement: what it decides is the policy bundle's to test; when it is asked to is this class's.
 */
class RangeBalancerTest {

    private static final RingKey RING = RingKey.clusterRing("shop");
    private static final RangeSet LOW = RangeSet.parse("0x0000000000000000-0x8000000000000000");
    private static final RangeSet HIGH = RangeSet.parse("0x8000000000000000-0x10000000000000000");
    /** a holds the low half, b the high half. */
    private static final Map<String, RangeSet> HALVES = Map.of("a", LOW, "b", HIGH);
    /** The recording policy's first step: a quarter moves from a to b. */
    private static final Map<String, RangeSet> STEPPED = Map.of(
            "a", RangeSet.parse("0x0000000000000000-0x4000000000000000"),
            "b", RangeSet.parse("0x4000000000000000-0x10000000000000000"));
    private static final List<String> SHARDS = List.of("a", "b");

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-28T00:00:00Z"));
    private final RangeBalancer balancer = new RangeBalancer(clock);
    private final List<PlacementRequest> asked = new ArrayList<>();
    /** On a load step, a gives the upper half of its one range to b. */
    private final PlacementPolicy recording = request -> {
        asked.add(request);
        if (!request.loadStep()) {
            return new Placement(request.current(), 0, 0, 0, "nothing to do");
        }
        HashRange a = request.current().get("a").ranges().get(0);
        RangeSet kept = RangeSet.of(List.of(new HashRange(a.first(), a.first() + (a.last() - a.first()) / 2)));
        return new Placement(Map.of("a", kept, "b", kept.complement()), 0, 0, 0.25, "test step");
    };
    /** interval 30 s, stabilization 60 s, tolerance 1.1. */
    private final RingBalancing.Settings settings = new RingBalancing("test", 10, 10, 30, 60).settings();

    /** a's half three times as busy as b's: imbalance 3 / 2 = 1.5. */
    private static LoadMap skewed() {
        return LoadMap.builder()
                .report(LOW, new LoadReport(Duration.ofSeconds(15), 3, 0, 30, List.of(new CellLoad(0, 2047, 3, 30))))
                .report(HIGH, new LoadReport(Duration.ofSeconds(15), 1, 0, 30, List.of(new CellLoad(2048, 4095, 1, 30))))
                .build();
    }

    private RangeBalancer.Decision pass(LoadMap load, boolean reported, boolean settled, Map<String, RangeSet> assigned) {
        RingView.Balancing balancing = new RingView.Balancing(settings, Optional.of(recording));
        return balancer.decide(RING, new RingView.RangeMode(RangeKey.UID, 64, Optional.of(balancing)), balancing,
                assigned, SHARDS, load, reported, settled);
    }

    @Test
    void aSustainedImbalanceStepsOnceTheStabilizationTimePassedAndThenOncePerInterval() {
        RangeBalancer.Decision first = pass(skewed(), true, true, HALVES);
        assertThat(first.imbalance()).isEqualTo(1.5);
        assertThat(first.step()).isEmpty();
        assertThat(first.desired()).isEqualTo(HALVES);
        clock.advance(Duration.ofSeconds(59));
        assertThat(pass(skewed(), true, true, HALVES).step()).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        RangeBalancer.Decision stepped = pass(skewed(), true, true, HALVES);
        assertThat(stepped.step()).map(Placement::reason).contains("test step");
        assertThat(stepped.desired()).isEqualTo(STEPPED);
        assertThat(asked).extracting(PlacementRequest::loadStep).containsExactly(false, false, true);
        assertThat(asked.get(2).current()).isEqualTo(HALVES);

        // handed over and still off balance: a new stabilization time, and the interval, before the next step
        clock.advance(Duration.ofSeconds(30));
        assertThat(pass(skewed(), true, true, STEPPED).step()).isEmpty();
        clock.advance(Duration.ofSeconds(59));
        assertThat(pass(skewed(), true, true, STEPPED).step()).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        assertThat(pass(skewed(), true, true, STEPPED).step()).isPresent();
    }

    @Test
    void noStepWhileAHandoverIsInFlightOrTheLastPlacementIsNotAssignedYet() {
        pass(skewed(), true, true, HALVES);
        clock.advance(Duration.ofSeconds(60));
        assertThat(pass(skewed(), true, false, HALVES).step()).as("a shard serves other than its assignment").isEmpty();
        assertThat(pass(skewed(), true, true, HALVES).step()).isPresent();
        clock.advance(Duration.ofSeconds(120));
        assertThat(pass(skewed(), true, true, HALVES).step()).as("the last step is not assigned yet").isEmpty();
        assertThat(asked.get(asked.size() - 1).current()).as("the policy sees the last placement").isEqualTo(STEPPED);
    }

    @Test
    void withoutAReportOrWithinToleranceNothingSteps() {
        for (int i = 0; i < 5; i++) {
            assertThat(pass(skewed(), false, true, HALVES).step()).isEmpty();
            assertThat(pass(LoadMap.uniform(), true, true, HALVES).step()).isEmpty();
            clock.advance(Duration.ofMinutes(5));
        }
        assertThat(asked).extracting(PlacementRequest::loadStep).containsOnly(false);
    }

    @Test
    void aMissingPolicyOrAFailingOneLeavesTheRangesWhereTheyAre() {
        RingView.Balancing missing = new RingView.Balancing(settings, Optional.empty());
        RangeBalancer.Decision kept = balancer.decide(RING, new RingView.RangeMode(RangeKey.UID, 64,
                Optional.of(missing)), missing, HALVES, List.of("a", "b", "c"), skewed(), true, true);
        assertThat(kept.desired()).isEqualTo(HALVES);

        RingView.Balancing failing = new RingView.Balancing(settings, Optional.of(request -> {
            throw new IllegalStateException("broken plug-in");
        }));
        RangeBalancer.Decision failed = balancer.decide(RING, new RingView.RangeMode(RangeKey.UID, 64,
                Optional.of(failing)), failing, HALVES, List.of("a", "b", "c"), skewed(), true, true);
        assertThat(failed.desired()).isEqualTo(HALVES);
        assertThat(failed.step()).isEmpty();
    }
}
