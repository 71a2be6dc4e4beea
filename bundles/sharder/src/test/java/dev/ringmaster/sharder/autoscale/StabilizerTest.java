package dev.ringmaster.sharder.autoscale;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.sharder.model.RingKey;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The recommendation and HPA's stabilization, on an injected clock; expected values worked out by hand. */
class StabilizerTest {

    private static final RingKey RING = RingKey.clusterRing("shop");
    private static final Duration UP = Duration.ZERO;
    private static final Duration DOWN = Duration.ofSeconds(300);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final Stabilizer stabilizer = new Stabilizer(clock);

    @Test
    void theRecommendationIsTheCeilingOfTotalOverTargetWithinMinAndMax() {
        assertThat(RingAutoscaler.recommend(2.4, 0.6, 2, 10)).isEqualTo(4); // exactly 4, not 5 by rounding
        assertThat(RingAutoscaler.recommend(2.41, 0.6, 2, 10)).isEqualTo(5);
        assertThat(RingAutoscaler.recommend(0.1, 0.6, 2, 10)).isEqualTo(2);
        assertThat(RingAutoscaler.recommend(0, 0.6, 1, 10)).isEqualTo(1);
        assertThat(RingAutoscaler.recommend(100, 0.6, 2, 10)).isEqualTo(10);
        assertThat(RingAutoscaler.recommend(1e9, 0.01, 1, 1000)).isEqualTo(1000);
    }

    @Test
    void shardsThatReportNothingCountAtTheMeanOfThoseThatDo() {
        Map<String, Optional<Double>> busy = new LinkedHashMap<>();
        busy.put("a", Optional.of(0.5));
        busy.put("b", Optional.of(0.3));
        busy.put("c", Optional.empty());
        assertThat(RingAutoscaler.totalLoad(busy)).hasValueSatisfying(total ->
                assertThat(total).isCloseTo(1.2, org.assertj.core.data.Offset.offset(1e-12)));
        assertThat(RingAutoscaler.totalLoad(Map.of("a", Optional.empty()))).isEmpty();
        assertThat(RingAutoscaler.totalLoad(Map.of())).isEmpty();
    }

    @Test
    void scaleUpIsImmediateWithAWindowOfZero() {
        assertThat(stabilizer.stabilize(RING, 5, 3, UP, DOWN)).isEqualTo(5);
    }

    @Test
    void scaleDownWaitsForTheWholeWindowOfLowerRecommendations() {
        assertThat(stabilizer.stabilize(RING, 6, 6, UP, DOWN)).isEqualTo(6);
        clock.advance(Duration.ofSeconds(5));
        // the load falls: 3 shards would do, but 6 was recommended within the last 300 s
        assertThat(stabilizer.stabilize(RING, 3, 6, UP, DOWN)).isEqualTo(6);
        clock.advance(Duration.ofSeconds(290));
        assertThat(stabilizer.stabilize(RING, 3, 6, UP, DOWN)).isEqualTo(6); // 6 was 295 s ago
        clock.advance(Duration.ofSeconds(10));
        assertThat(stabilizer.stabilize(RING, 3, 6, UP, DOWN)).isEqualTo(3); // 6 is 305 s old: gone
    }

    @Test
    void anOscillatingLoadScalesOnceAndNeverFlaps() {
        int current = 4;
        int changes = 0;
        // every 10 s the recommendation swings between 4 and 7, for 20 minutes
        for (int i = 0; i < 120; i++) {
            int recommendation = i % 2 == 0 ? 7 : 4;
            int next = stabilizer.stabilize(RING, recommendation, current, UP, DOWN);
            if (next != current) {
                changes++;
                current = next;
            }
            clock.advance(Duration.ofSeconds(10));
        }
        assertThat(current).isEqualTo(7); // up at once, never back down: 7 is always within the last 300 s
        assertThat(changes).isEqualTo(1);
    }

    @Test
    void aScaleUpWindowTakesTheLowestRecommendationWithinIt() {
        Duration up = Duration.ofSeconds(60);
        assertThat(stabilizer.stabilize(RING, 4, 4, up, DOWN)).isEqualTo(4);
        clock.advance(Duration.ofSeconds(10));
        assertThat(stabilizer.stabilize(RING, 8, 4, up, DOWN)).isEqualTo(4); // 4 was recommended 10 s ago
        clock.advance(Duration.ofSeconds(30));
        assertThat(stabilizer.stabilize(RING, 9, 4, up, DOWN)).isEqualTo(4);
        clock.advance(Duration.ofSeconds(25));
        assertThat(stabilizer.stabilize(RING, 9, 4, up, DOWN)).isEqualTo(8); // 4 is 65 s old; 8 is the lowest left
        clock.advance(Duration.ofSeconds(40));
        assertThat(stabilizer.stabilize(RING, 9, 8, up, DOWN)).isEqualTo(9);
    }

    @Test
    void atMostOneScaleEventPerWindowUnderASteadyLoad() {
        int current = 3;
        int changes = 0;
        for (int i = 0; i < 100; i++) {
            int next = stabilizer.stabilize(RING, 2, current, UP, DOWN);
            if (next != current) {
                changes++;
                current = next;
            }
            clock.advance(Duration.ofSeconds(5));
        }
        assertThat(current).isEqualTo(2);
        assertThat(changes).isEqualTo(1);
    }

    @Test
    void aForgottenRingStartsAfresh() {
        stabilizer.stabilize(RING, 8, 8, UP, DOWN);
        stabilizer.forget(RING);
        assertThat(stabilizer.stabilize(RING, 2, 8, UP, DOWN)).isEqualTo(2);
    }
}
