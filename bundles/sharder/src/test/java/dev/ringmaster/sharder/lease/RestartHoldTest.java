package dev.ringmaster.sharder.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.LeaseRecord;
import dev.ringmaster.ring.spi.ShardStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The restart grace as a pure function of the Lease, the grace and the time (docs/design.md section 3). */
class RestartHoldTest {

    /** The shard's last renewal; it stops 3 s later, to restart. */
    private static final Instant RENEWED = Instant.parse("2026-03-01T12:00:00Z");
    private static final Instant STOPPED = Instant.parse("2026-03-01T12:00:03Z");
    private static final Duration GRACE = Duration.ofSeconds(60);
    private static final int DURATION = 15;
    /** What the detector said, to show that the hold overrides it. */
    private static final ShardStatus DETECTED = new ShardStatus(ShardState.UNCERTAIN, Instant.parse("2026-03-01T12:00:30Z"));

    @Test
    void holdsTheShardExpiredUntilTheStopPlusTheGrace() {
        LeaseRecord lease = lease("shard-0", "2026-03-01T12:00:03Z");
        Instant until = Instant.parse("2026-03-01T12:01:03Z");

        RestartHold before = RestartHold.of(lease, GRACE, until.minusMillis(1));
        assertThat(before).isEqualTo(new RestartHold(RestartHold.Phase.HOLDING, "2026-03-01T12:00:03Z", STOPPED, until));
        assertThat(before.holds()).isTrue();
        assertThat(before.apply(DETECTED)).isEqualTo(new ShardStatus(ShardState.EXPIRED, until));
        // at once after the stop too, and before it (a clock a little ahead)
        assertThat(RestartHold.of(lease, GRACE, STOPPED).holds()).isTrue();
        assertThat(RestartHold.of(lease, GRACE, RENEWED).holds()).isTrue();

        RestartHold at = RestartHold.of(lease, GRACE, until);
        assertThat(at.phase()).isEqualTo(RestartHold.Phase.OVER);
        assertThat(at.apply(DETECTED)).isEqualTo(DETECTED);
        assertThat(RestartHold.of(lease, GRACE, until.plusSeconds(3600)).phase()).isEqualTo(RestartHold.Phase.OVER);
    }

    @Test
    void aGraceOfZeroHoldsNothing() {
        RestartHold hold = RestartHold.of(lease("shard-0", "2026-03-01T12:00:03Z"), Duration.ZERO, STOPPED);
        assertThat(hold).isEqualTo(RestartHold.NONE);
        assertThat(hold.apply(DETECTED)).isEqualTo(DETECTED);
    }

    @Test
    void rfc3339TimesWithAnOffsetAndFractionsCount() {
        assertThat(RestartHold.of(lease("shard-0", "2026-03-01T13:00:03.250+01:00"), GRACE, STOPPED).stoppedAt())
                .isEqualTo(STOPPED.plusMillis(250));
    }

    @Test
    void anUnparseableValueIsIgnored() {
        for (String value : new String[] {"yes", "", "2026-03-01 12:00:03", "1772366403"}) {
            RestartHold hold = RestartHold.of(lease("shard-0", value), GRACE, STOPPED);
            assertThat(hold.phase()).as(value).isEqualTo(RestartHold.Phase.INVALID);
            assertThat(hold.value()).isEqualTo(value);
            assertThat(hold.apply(DETECTED)).isEqualTo(DETECTED);
        }
    }

    @Test
    void onlyALeaseHeldByItsOwnShardIsHeld() {
        String[] holders = {RingContract.LEASE_CONTROLLER_HOLDER, "", null, "shard-1"};
        for (String holder : holders) {
            LeaseRecord lease = new LeaseRecord("shard-0", "ns", holder, RENEWED, RENEWED, DURATION, Map.of(),
                    Map.of(RingContract.RESTARTING_ANNOTATION, "2026-03-01T12:00:03Z"));
            assertThat(RestartHold.of(lease, GRACE, STOPPED)).as("holder %s", holder).isEqualTo(RestartHold.NONE);
        }
    }

    @Test
    void aLeaseWithoutTheAnnotationIsNotHeld() {
        assertThat(RestartHold.of(lease("shard-0", null), GRACE, STOPPED)).isEqualTo(RestartHold.NONE);
        LeaseRecord noAnnotations = new LeaseRecord("shard-0", "ns", "shard-0", RENEWED, RENEWED, DURATION, Map.of(), null);
        assertThat(RestartHold.of(noAnnotations, GRACE, STOPPED)).isEqualTo(RestartHold.NONE);
    }

    /** A stop time after the Lease's own expiry counts as that expiry: a clock far ahead cannot hold objects for long. */
    @Test
    void aStopAfterTheLeaseRanOutCountsAsItsExpiry() {
        RestartHold hold = RestartHold.of(lease("shard-0", "2099-01-01T00:00:00Z"), GRACE, STOPPED);
        Instant expiry = RENEWED.plusSeconds(DURATION);
        assertThat(hold.stoppedAt()).isEqualTo(expiry);
        assertThat(hold.until()).isEqualTo(expiry.plus(GRACE));
    }

    private static LeaseRecord lease(String name, String restarting) {
        Map<String, String> annotations = new HashMap<>(Map.of(RingContract.WEIGHT_ANNOTATION, "2"));
        if (restarting != null) {
            annotations.put(RingContract.RESTARTING_ANNOTATION, restarting);
        }
        return new LeaseRecord(name, "ns", name, RENEWED, RENEWED, DURATION, Map.of(RingContract.RING_LABEL, "example"),
                annotations);
    }
}
