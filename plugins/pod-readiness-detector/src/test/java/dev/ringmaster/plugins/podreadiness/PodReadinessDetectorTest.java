package dev.ringmaster.plugins.podreadiness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.LeaseRecord;
import dev.ringmaster.ring.spi.ShardStatus;
import dev.ringmaster.sharder.lease.DefaultLeaseDetector;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The detector's table (docs/design.md section 3, refined by the Pod's readiness), composed with the
 * sharder's real default detector as it is at run time.
 */
class PodReadinessDetectorTest {

    private static final Instant RENEWED = Instant.parse("2026-01-01T00:00:00Z");
    private static final LeaseDetector DEFAULT = new DefaultLeaseDetector();

    private final List<String> lookups = new ArrayList<>();

    private PodReadinessDetector detector(PodReadiness readiness) {
        return new PodReadinessDetector(DEFAULT, (namespace, name) -> {
            lookups.add(namespace + "/" + name);
            return readiness;
        });
    }

    private static LeaseRecord lease(String holder, Instant renewTime, Integer durationSeconds) {
        return new LeaseRecord("shard-0", "shards", holder, renewTime, renewTime, durationSeconds, Map.of(), Map.of());
    }

    /** A 10 s lease renewed at RENEWED, seen {@code after} seconds later, with the Pod in a readiness. */
    @ParameterizedTest(name = "holder={0} +{1}s pod={2} -> {3}, revisit +{4}s")
    @CsvSource({
        // the lease is fresh or just expired: the Pod's readiness decides
        "shard-0,                0, READY,     READY,     10",
        "shard-0,                0, UNKNOWN,   READY,     10",
        "shard-0,                0, NOT_READY, DEAD,      10",
        "shard-0,                9, NOT_READY, DEAD,      10",
        "shard-0,               10, READY,     EXPIRED,   20",
        "shard-0,               10, UNKNOWN,   EXPIRED,   20",
        "shard-0,               10, NOT_READY, DEAD,      20",
        // no renewal for two durations: the sharder acquires the lease whatever the Pod says
        "shard-0,               20, READY,     UNCERTAIN, 20",
        "shard-0,               20, NOT_READY, UNCERTAIN, 20",
        // the lease is not held by the shard: the lease decides, a Ready Pod changes nothing
        "shardlease-controller,  0, READY,     DEAD,      70",
        "shardlease-controller,  0, NOT_READY, DEAD,      70",
        "shardlease-controller, 70, READY,     ORPHANED,  70",
        "'',                    30, READY,     DEAD,      70",
        "'',                   300, NOT_READY, ORPHANED,  300",
    })
    void refinesTheDefaultVerdictWithThePodsReadiness(String holder, long after, PodReadiness pod, ShardState state,
            long revisit) {
        ShardStatus status = detector(pod).detect(lease(holder.isEmpty() ? null : holder, RENEWED, 10),
                RENEWED.plusSeconds(after));
        assertThat(status).isEqualTo(new ShardStatus(state, RENEWED.plusSeconds(revisit)));
    }

    @Test
    void looksUpThePodNamedLikeTheLeaseInItsNamespace() {
        detector(PodReadiness.READY).detect(lease("shard-0", RENEWED, 10), RENEWED);
        assertThat(lookups).containsExactly("shards/shard-0");
    }

    @Test
    void asksForNoPodWhenTheLeaseAloneMakesTheShardUnavailableOrUncertain() {
        detector(PodReadiness.READY).detect(lease("shardlease-controller", RENEWED, 10), RENEWED);
        detector(PodReadiness.READY).detect(lease("shard-0", RENEWED, 10), RENEWED.plusSeconds(25));
        assertThat(lookups).isEmpty();
    }

    @Test
    void aNotReadyShardIsNeverOneTheSharderActsOn() {
        // dead is neither acquired (uncertain) nor deleted (orphaned): the shard keeps its lease
        for (long after = 0; after < 20; after++) {
            ShardState state = detector(PodReadiness.NOT_READY).detect(lease("shard-0", RENEWED, 10),
                    RENEWED.plusSeconds(after)).state();
            assertThat(state).isEqualTo(ShardState.DEAD);
            assertThat(state.isAvailable()).isFalse();
        }
    }
}
