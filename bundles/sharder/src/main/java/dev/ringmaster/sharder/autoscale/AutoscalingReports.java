package dev.ringmaster.sharder.autoscale;

import dev.ringmaster.sharder.model.RingAutoscaling;
import dev.ringmaster.sharder.model.RingAutoscalingStatus;
import dev.ringmaster.sharder.model.RingKey;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * What the leader's autoscaler last found per ring, for the ring status controller, the one writer of the rings'
 * status: the autoscaler writes here, and the status controller reads it into {@code status.autoscaling} and, for a
 * scale target that cannot be used, the Ready condition. In memory, for one term of leadership: a new leader's first
 * pass fills it again.
 */
public final class AutoscalingReports {

    /**
     * A ring's autoscaling as its last pass found it.
     *
     * @param spec      the {@code spec.autoscaling} the pass acted on: a report of another spec is stale
     * @param current   the scale target's replicas; null when it cannot be read
     * @param desired   the stabilized recommendation; null when nothing was decided
     * @param lastScale when this leader last scaled the target; null: not in this term
     * @param problem   why the scale target cannot be used (the Ready condition's message); null when it can
     * @param message   why nothing is decided (no shard reports its load); null when something is
     */
    public record Report(RingAutoscaling spec, Integer current, Integer desired, Instant lastScale, String problem,
            String message) {

        /** The ring's {@code status.autoscaling}; {@code previous} gives the last scale time of an earlier term. */
        public RingAutoscalingStatus status(RingAutoscalingStatus previous) {
            String last = lastScale != null
                    ? DateTimeFormatter.ISO_INSTANT.format(lastScale.truncatedTo(ChronoUnit.SECONDS))
                    : previous == null ? null : previous.getLastScaleTime();
            return new RingAutoscalingStatus(current, desired, last, problem != null ? null : message);
        }
    }

    private final Map<RingKey, Report> reports = new ConcurrentHashMap<>();
    private volatile Consumer<RingKey> changed = any -> { };

    /** Who is told of a ring whose report changed (the status controller's queue). */
    public void onChange(Consumer<RingKey> listener) {
        this.changed = Objects.requireNonNull(listener, "listener");
    }

    /** The ring's report, if it is of this {@code spec}. */
    public Optional<Report> get(RingKey ring, RingAutoscaling spec) {
        return Optional.ofNullable(reports.get(ring)).filter(report -> Objects.equals(report.spec(), spec));
    }

    void put(RingKey ring, Report report) {
        if (!report.equals(reports.put(ring, report))) {
            changed.accept(ring);
        }
    }

    void remove(RingKey ring) {
        if (reports.remove(ring) != null) {
            changed.accept(ring);
        }
    }
}
