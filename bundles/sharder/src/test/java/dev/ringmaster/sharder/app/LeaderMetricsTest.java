package dev.ringmaster.sharder.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.rebalance.PassSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class LeaderMetricsTest {

    private static final RingKey CONTROLLER_RING = RingKey.controllerRing("shop");
    private static final RingKey CLUSTER_RING = RingKey.clusterRing("shop");

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final LeaderMetrics metrics = new LeaderMetrics(meters, new SharderMetrics(meters));

    @Test
    void passesAreCountedAndTimedByResultAndWhatTheyLeftIsCountedByReason() {
        metrics.passed(CONTROLLER_RING, new PassSummary(100, 1, 5, 2, 0, 7, 3, 4, 0, 0), Duration.ofMillis(250));
        metrics.passed(CONTROLLER_RING, new PassSummary(100, 0, 0, 0, 0, 1, 0, 0, 0, 5), Duration.ofMillis(50));
        metrics.passFailed(CLUSTER_RING, Duration.ofSeconds(2));

        assertThat(counter("ringmaster.rebalance.passes", "controllerring", "shop", "result", "completed")).isEqualTo(2);
        assertThat(counter("ringmaster.rebalance.passes", "clusterring", "shop", "controllerring", "", "result", "failed")).isEqualTo(1);
        assertThat(counter("ringmaster.rebalance.moves.not.written", "controllerring", "shop", "reason", "deferred")).isEqualTo(8);
        assertThat(counter("ringmaster.rebalance.moves.not.written", "controllerring", "shop", "reason", "conflict")).isEqualTo(3);
        assertThat(counter("ringmaster.rebalance.moves.not.written", "controllerring", "shop", "reason", "failed")).isEqualTo(4);
        assertThat(meters.get("ringmaster.rebalance.pass").tags("controllerring", "shop").timer().count()).isEqualTo(2);
        assertThat(meters.get("ringmaster.rebalance.pass").tags("controllerring", "shop").timer().totalTime(
                java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(300);
    }

    @Test
    void rangeAssignmentsAreGaugedPerShardAndHandoversCountedAndTimed() {
        dev.ringmaster.ring.ranges.RangeSet half = dev.ringmaster.ring.ranges.RangeSet.parse(
                "0x0000000000000000-0x4000000000000000,0xc000000000000000-0x10000000000000000");
        metrics.assigned(CLUSTER_RING, Map.of("shard-0", half, "shard-1", half.complement(),
                "shard-2", dev.ringmaster.ring.ranges.RangeSet.EMPTY));
        assertThat(meters.get("ringmaster.ring.shard.ranges").tags("clusterring", "shop", "shard", "shard-0").gauge()
                .value()).isEqualTo(2);
        assertThat(meters.get("ringmaster.ring.shard.ranges").tags("clusterring", "shop", "shard", "shard-1").gauge()
                .value()).isEqualTo(1);
        assertThat(meters.get("ringmaster.ring.shard.range.share").tags("clusterring", "shop", "shard", "shard-0")
                .gauge().value()).isEqualTo(0.5);
        assertThat(meters.get("ringmaster.ring.shard.range.share").tags("clusterring", "shop", "shard", "shard-2")
                .gauge().value()).isEqualTo(0.0);

        metrics.handedOver(CLUSTER_RING, 3, Duration.ofMillis(700));
        metrics.handedOver(CLUSTER_RING, 1, Duration.ZERO);
        assertThat(meters.get("ringmaster.ring.range.handovers").tags("clusterring", "shop").counter().count())
                .isEqualTo(4);
        assertThat(meters.get("ringmaster.ring.range.handover").tags("clusterring", "shop").timer().count())
                .isEqualTo(2);

        metrics.forget(CLUSTER_RING);
        assertThat(meters.find("ringmaster.ring.shard.ranges").gauges()).isEmpty();
        metrics.assigned(CLUSTER_RING, Map.of("shard-0", half));
        metrics.noRings();
        assertThat(meters.find("ringmaster.ring.shard.range.share").gauges()).isEmpty();
    }

    @Test
    void aBalancedRingsLoadIsGaugedAndItsStepsCountedWithWhatTheyMoved() {
        metrics.balanced(CLUSTER_RING, Map.of("shard-0", 0.6, "shard-1", 0.2), 1.5, OptionalDouble.empty());
        assertThat(meters.get("ringmaster.ring.shard.load").tags("clusterring", "shop", "shard", "shard-0").gauge()
                .value()).isEqualTo(0.6);
        assertThat(meters.get("ringmaster.ring.load.imbalance").tags("clusterring", "shop").gauge().value())
                .isEqualTo(1.5);
        assertThat(meters.find("ringmaster.ring.balancing.steps").counters()).as("no step yet").isEmpty();

        metrics.balanced(CLUSTER_RING, Map.of("shard-0", 0.45, "shard-1", 0.35), 1.125, OptionalDouble.of(0.08));
        metrics.balanced(CLUSTER_RING, Map.of("shard-0", 0.41, "shard-1", 0.39), 1.025, OptionalDouble.of(0.08));
        assertThat(meters.get("ringmaster.ring.balancing.steps").tags("clusterring", "shop").counter().count())
                .isEqualTo(2);
        assertThat(meters.get("ringmaster.ring.balancing.moved").tags("clusterring", "shop").counter().count())
                .isEqualTo(0.16);
        assertThat(meters.get("ringmaster.ring.load.imbalance").tags("clusterring", "shop").gauge().value())
                .isEqualTo(1.025);

        metrics.forget(CLUSTER_RING);
        assertThat(meters.find("ringmaster.ring.shard.load").gauges()).isEmpty();
        assertThat(meters.find("ringmaster.ring.load.imbalance").gauges()).isEmpty();
    }

    @Test
    void ringGaugesReadWhatTheLeaderSeesAtEachScrapeAndGoWithLeadership() {
        Map<RingKey, Long> inDrain = new ConcurrentHashMap<>(Map.of(CONTROLLER_RING, 3L, CLUSTER_RING, 0L));
        metrics.rings(List.of(CONTROLLER_RING, CLUSTER_RING), new LeaderMetrics.RingObjects() {
            @Override
            public long inDrain(RingKey ring) {
                return inDrain.get(ring);
            }

            @Override
            public Optional<Duration> oldestDrain(RingKey ring) {
                return ring.equals(CONTROLLER_RING) ? Optional.of(Duration.ofMillis(90_500)) : Optional.empty();
            }

            @Override
            public long unassigned(RingKey ring) {
                return ring.equals(CLUSTER_RING) ? 12 : 0;
            }
        });

        assertThat(gauge("ringmaster.ring.objects.in.drain", "controllerring", "shop", "clusterring", "")).isEqualTo(3);
        inDrain.put(CONTROLLER_RING, 1L);
        assertThat(gauge("ringmaster.ring.objects.in.drain", "controllerring", "shop", "clusterring", "")).isEqualTo(1);
        assertThat(gauge("ringmaster.ring.oldest.drain.age", "controllerring", "shop")).isEqualTo(90.5);
        assertThat(gauge("ringmaster.ring.oldest.drain.age", "clusterring", "shop")).as("no drain").isZero();
        assertThat(gauge("ringmaster.ring.unassigned.objects", "clusterring", "shop")).isEqualTo(12);

        metrics.noRings();
        assertThat(meters.find("ringmaster.ring.objects.in.drain").gauges()).isEmpty();
        assertThat(meters.find("ringmaster.ring.oldest.drain.age").gauges()).isEmpty();
        assertThat(meters.find("ringmaster.ring.unassigned.objects").gauges()).isEmpty();
    }

    @Test
    void objectsPerShardAreWhatEachRingsLastPassListedAndGoWithTheirRing() {
        ResolvedResource configMaps = new ResolvedResource("", "v1", "configmaps", "ConfigMap", true);
        metrics.objectsPerShard(CONTROLLER_RING, Map.of(configMaps, Map.of("shard-0", 7L, "shard-1", 5L, "", 2L)));
        metrics.objectsPerShard(CLUSTER_RING, Map.of(configMaps, Map.of("shard-0", 1L)));
        metrics.objectsPerShard(CONTROLLER_RING, Map.of(configMaps, Map.of("shard-0", 6L, "shard-1", 6L)));

        assertThat(gauge("ringmaster.ring.shard.objects", "controllerring", "shop", "shard", "shard-0", "group", "",
                "resource", "configmaps")).isEqualTo(6);
        assertThat(gauge("ringmaster.ring.shard.objects", "clusterring", "shop", "shard", "shard-0")).isEqualTo(1);
        assertThat(meters.find("ringmaster.ring.shard.objects").tags("shard", "").gauges()).as("unassigned").isEmpty();

        metrics.rings(List.of(CLUSTER_RING), NO_OBJECTS);
        assertThat(meters.find("ringmaster.ring.shard.objects").tags("controllerring", "shop").gauges()).isEmpty();
        assertThat(gauge("ringmaster.ring.shard.objects", "clusterring", "shop", "shard", "shard-0")).isEqualTo(1);
    }

    private static final LeaderMetrics.RingObjects NO_OBJECTS = new LeaderMetrics.RingObjects() {
        @Override
        public long inDrain(RingKey ring) {
            return 0;
        }

        @Override
        public Optional<Duration> oldestDrain(RingKey ring) {
            return Optional.empty();
        }

        @Override
        public long unassigned(RingKey ring) {
            return 0;
        }
    };

    private double counter(String name, String... tags) {
        return meters.get(name).tags(tags).counter().count();
    }

    private double gauge(String name, String... tags) {
        return meters.get(name).tags(tags).gauge().value();
    }
}
