package dev.ringmaster.sharder.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.LeaseRecord;
import dev.ringmaster.ring.spi.ShardStatus;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class DefaultLeaseDetectorTest {

    private static final Instant RENEWED = Instant.parse("2026-01-01T00:00:00Z");
    private final DefaultLeaseDetector detector = new DefaultLeaseDetector();

    private static LeaseRecord lease(String holder, Instant renewTime, Integer durationSeconds) {
        return new LeaseRecord("shard-0", "default", holder, renewTime, renewTime, durationSeconds, null, null);
    }

    /** A 10 s lease renewed at RENEWED, seen {@code after} seconds later. */
    @ParameterizedTest(name = "holder={0} +{1}s -> {2}, revisit +{3}s")
    @CsvSource({
        "shard-0,               0, READY,     10",
        "shard-0,               9, READY,     10",
        "shard-0,              10, EXPIRED,   20",
        "shard-0,              19, EXPIRED,   20",
        "shard-0,              20, UNCERTAIN, 20",
        "shard-0,            3600, UNCERTAIN, 3600",
        "shardlease-controller, 0, DEAD,      70",
        "shardlease-controller,69, DEAD,      70",
        "shardlease-controller,70, ORPHANED,  70",
        "'',                   30, DEAD,      70",
        "'',                  300, ORPHANED,  300",
    })
    void classifiesEveryStateAndRevisitsWhenItWouldChange(String holder, long after, ShardState state, long revisit) {
        ShardStatus status = detector.detect(lease(holder.isEmpty() ? null : holder, RENEWED, 10),
                RENEWED.plusSeconds(after));
        assertThat(status).isEqualTo(new ShardStatus(state, RENEWED.plusSeconds(revisit)));
    }

    @Test
    void sharderHeldLeaseWithDoubledDurationIsDeadUntilOrphaned() {
        LeaseRecord acquired = lease("shardlease-controller", RENEWED, 20);
        assertThat(detector.detect(acquired, RENEWED.plusSeconds(79)).state()).isEqualTo(ShardState.DEAD);
        assertThat(detector.detect(acquired, RENEWED.plusSeconds(80)).state()).isEqualTo(ShardState.ORPHANED);
    }

    @Test
    void missingFieldsCountAsExpiredLongAgo() {
        Instant now = RENEWED;
        assertThat(detector.detect(lease("shard-0", null, 10), now).state()).isEqualTo(ShardState.UNCERTAIN);
        assertThat(detector.detect(lease("shard-0", RENEWED.minusSeconds(1), null), now).state())
                .isEqualTo(ShardState.UNCERTAIN);
        assertThat(detector.detect(lease(null, null, null), now).state()).isEqualTo(ShardState.ORPHANED);
    }

    @Test
    void availabilityFollowsTheState() {
        assertThat(detector.detect(lease("shard-0", RENEWED, 10), RENEWED.plusSeconds(25)).state().isAvailable())
                .isTrue();
        assertThat(detector.detect(lease("other", RENEWED, 10), RENEWED).state().isAvailable()).isFalse();
    }
}
