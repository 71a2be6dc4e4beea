package dev.ringmaster.sharder.autoscale;

import dev.ringmaster.sharder.model.RingKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The stabilization of Kubernetes' HorizontalPodAutoscaler (its {@code behavior}'s stabilization windows), per ring:
 * a scale-down goes only to the highest recommendation of the scale-down window, a scale-up only to the lowest of the
 * scale-up window, so a load that swings back and forth within a window changes nothing.
 */
final class Stabilizer {

    private record Recommendation(Instant at, int shards) {
    }

    private final Clock clock;
    private final Map<RingKey, Deque<Recommendation>> recommendations = new ConcurrentHashMap<>();

    Stabilizer(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Records {@code recommendation} and returns the shards to have now: {@code current} raised to the lowest
     * recommendation within {@code scaleUp}, lowered to the highest within {@code scaleDown} (this one included).
     */
    int stabilize(RingKey ring, int recommendation, int current, Duration scaleUp, Duration scaleDown) {
        Instant now = clock.instant();
        Instant upCutoff = now.minus(scaleUp);
        Instant downCutoff = now.minus(scaleDown);
        Instant oldest = upCutoff.isBefore(downCutoff) ? upCutoff : downCutoff;
        Deque<Recommendation> history = recommendations.computeIfAbsent(ring, any -> new ArrayDeque<>());
        synchronized (history) {
            while (!history.isEmpty() && !history.peekFirst().at().isAfter(oldest)) {
                history.removeFirst();
            }
            int up = recommendation;
            int down = recommendation;
            for (Recommendation earlier : history) {
                if (earlier.at().isAfter(upCutoff)) {
                    up = Math.min(up, earlier.shards());
                }
                if (earlier.at().isAfter(downCutoff)) {
                    down = Math.max(down, earlier.shards());
                }
            }
            history.addLast(new Recommendation(now, recommendation));
            int shards = current;
            if (shards < up) {
                shards = up;
            }
            if (shards > down) {
                shards = down;
            }
            return shards;
        }
    }

    void forget(RingKey ring) {
        recommendations.remove(ring);
    }
}
