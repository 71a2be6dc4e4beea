package dev.ringmaster.sharder.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ShardState;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.RingKey;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SharderMetricsTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final SharderMetrics metrics = new SharderMetrics(meters);

    private double gauge(String name, String... tags) {
        return meters.get(name).tags(tags).gauge().value();
    }

    @Test
    void ringSizesFollowMembership() {
        metrics.membership(new Membership(Map.of(RingKey.clusterRing("example"), List.of(
                new ShardInfo("shard-0", ShardState.READY, 1), new ShardInfo("shard-1", ShardState.DEAD, 1)),
                RingKey.clusterRing("gone"), List.of(new ShardInfo("shard-2", ShardState.READY, 1)))));
        assertThat(gauge("controller.sharding.ring.shards", "clusterring", "example")).isEqualTo(2);
        assertThat(gauge("controller.sharding.ring.available.shards", "clusterring", "example")).isEqualTo(1);

        metrics.membership(new Membership(Map.of(RingKey.clusterRing("example"), List.of(new ShardInfo("shard-0", ShardState.EXPIRED, 1)))));
        assertThat(gauge("controller.sharding.ring.shards", "clusterring", "example")).isEqualTo(1);
        assertThat(meters.find("controller.sharding.ring.shards").tags("clusterring", "gone").gauges()).isEmpty();
    }

    @Test
    void shardsHeldForARestartAreCountedPerRing() {
        metrics.membership(new Membership(Map.of(RingKey.controllerRing("example"), List.of(
                new ShardInfo("shard-0", ShardState.EXPIRED, 1, true), new ShardInfo("shard-1", ShardState.EXPIRED, 1),
                new ShardInfo("shard-2", ShardState.READY, 1)))));
        assertThat(gauge("controller.sharding.ring.restarting.shards", "controllerring", "example", "clusterring", ""))
                .isEqualTo(1);

        // back: held no more
        metrics.membership(new Membership(Map.of(RingKey.controllerRing("example"), List.of(
                new ShardInfo("shard-0", ShardState.READY, 1), new ShardInfo("shard-1", ShardState.EXPIRED, 1)))));
        assertThat(gauge("controller.sharding.ring.restarting.shards", "controllerring", "example")).isZero();
    }

    /**
     * A ring's name goes into its kind's label, the reference's label of each era; every series has
     * both labels, so a Prometheus registry (which wants one set of label names per metric) takes them.
     */
    @Test
    void ringsOfBothKindsAreLabelledByTheirKind() {
        metrics.membership(new Membership(Map.of(
                RingKey.clusterRing("example"), List.of(new ShardInfo("shard-0", ShardState.READY, 1)),
                RingKey.controllerRing("example"), List.of(new ShardInfo("shard-0", ShardState.READY, 1),
                        new ShardInfo("shard-1", ShardState.READY, 1)))));

        assertThat(gauge("controller.sharding.ring.shards", "clusterring", "example", "controllerring", "")).isEqualTo(1);
        assertThat(gauge("controller.sharding.ring.shards", "controllerring", "example", "clusterring", "")).isEqualTo(2);
        assertThat(meters.find("controller.sharding.ring.shards").gauges()).allSatisfy(gauge -> assertThat(
                gauge.getId().getTags()).extracting(Tag::getKey).containsExactlyInAnyOrder("clusterring", "controllerring"));
    }

    @Test
    void closingRemovesTheGaugesSoASuccessorStartsClean() {
        metrics.membership(new Membership(Map.of(RingKey.clusterRing("example"), List.of(new ShardInfo("shard-0", ShardState.READY, 1)))));
        metrics.close();
        assertThat(meters.find("controller.sharding.ring.shards").gauges()).isEmpty();

        SharderMetrics successor = new SharderMetrics(meters);
        successor.membership(new Membership(Map.of(RingKey.clusterRing("example"), List.of(new ShardInfo("shard-0", ShardState.DEAD, 1)))));
        assertThat(gauge("controller.sharding.ring.available.shards", "clusterring", "example")).isZero();
    }
}
