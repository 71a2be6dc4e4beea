package dev.ringmaster.sharder.lease;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.LeaseRecord;
import dev.ringmaster.ring.spi.ShardStatus;
import dev.ringmaster.sharder.model.RingSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Objects;

/**
 * The restart grace (docs/design.md section 3): a shard that stops to be restarted keeps holding its
 * Lease and marks it with {@value RingContract#RESTARTING_ANNOTATION}{@code : <time of the stop>}. While
 * {@code now < stop + grace} the shard is expired whatever the lease detector says (available: it keeps its
 * objects and still gets new ones), and is looked at again at {@code stop + grace}; from then on the
 * detector decides as for any other lease.
 *
 * <p>A pure function of the Lease, the grace and the time. A stop time later than the Lease's own expiry
 * ({@code renewTime + leaseDuration}, on the shard's clock like the stop time) counts as that expiry: a
 * shard's clock running ahead, or a wrong value, cannot hold its objects longer than a stop at the last
 * moment it could have held the Lease.
 *
 * @param phase     what the annotation says now
 * @param value     the annotation's value, {@code null} when there is none (or it does not count)
 * @param stoppedAt the stop time that counts, {@code null} unless {@link Phase#HOLDING} or {@link Phase#OVER}
 * @param until     {@code stoppedAt + grace}, {@code null} unless {@link Phase#HOLDING} or {@link Phase#OVER}
 */
public record RestartHold(Phase phase, String value, Instant stoppedAt, Instant until) {

    /** The grace of a ring that sets none, and of a Lease of no known ring. */
    public static final Duration DEFAULT_GRACE = RingSpec.DEFAULT_SHARD_RESTART_GRACE;

    public static final RestartHold NONE = new RestartHold(Phase.NONE, null, null, null);

    public enum Phase {
        /** Not marked as restarting (or not held by the shard itself, or a grace of 0): the detector decides. */
        NONE,
        /** Marked, but the value is no RFC 3339 time: ignored, the detector decides. */
        INVALID,
        /** Within the grace: expired, whatever the detector says, until {@code until}. */
        HOLDING,
        /** Marked, but the grace ran out: the detector decides. */
        OVER
    }

    public RestartHold {
        Objects.requireNonNull(phase, "phase");
    }

    /**
     * Whether and how a restart holds this Lease at {@code now}.
     *
     * @param grace the restart grace of the Lease's rings; zero or negative: no hold
     */
    public static RestartHold of(LeaseRecord lease, Duration grace, Instant now) {
        Map<String, String> annotations = lease.annotations();
        String value = annotations == null ? null : annotations.get(RingContract.RESTARTING_ANNOTATION);
        if (value == null || !lease.name().equals(lease.holderIdentity()) || grace.isNegative() || grace.isZero()) {
            return NONE;
        }
        Instant stopped;
        try {
            stopped = OffsetDateTime.parse(value.trim()).toInstant();
        } catch (DateTimeParseException e) {
            return new RestartHold(Phase.INVALID, value, null, null);
        }
        if (lease.renewTime() != null && lease.leaseDurationSeconds() != null && lease.leaseDurationSeconds() > 0) {
            Instant expiry = lease.renewTime().plusSeconds(lease.leaseDurationSeconds());
            if (stopped.isAfter(expiry)) {
                stopped = expiry;
            }
        }
        Instant until = stopped.plus(grace);
        return new RestartHold(now.isBefore(until) ? Phase.HOLDING : Phase.OVER, value, stopped, until);
    }

    /** Whether the shard is held available for its restart now. */
    public boolean holds() {
        return phase == Phase.HOLDING;
    }

    /** The verdict with the hold applied: expired until the grace ends while holding, else the detector's. */
    public ShardStatus apply(ShardStatus detected) {
        return holds() ? new ShardStatus(ShardState.EXPIRED, until) : detected;
    }
}
