package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.RingKind;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShardLabelsTest {

    private static final String SHARD = "shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example";
    private static final String DRAIN = "drain.alpha.sharding.timebertt.dev/clusterring-50d858e0-example";
    private final ShardLabels labels = ShardLabels.of("example", "shard-0");

    @Test
    void selectorMatchesTheReferenceContract() {
        assertThat(labels.selector()).isEqualTo(SHARD + "=shard-0");
    }

    @Test
    void ownershipAndDrain() {
        assertThat(labels.owns(Map.of(SHARD, "shard-0"))).isTrue();
        assertThat(labels.owns(Map.of(SHARD, "shard-1"))).isFalse();
        assertThat(labels.owns(null)).isFalse();
        assertThat(labels.mustDrain(Map.of(SHARD, "shard-0", DRAIN, ""))).isTrue();
        assertThat(labels.mustDrain(Map.of(SHARD, "shard-1", DRAIN, "true"))).isFalse();
        assertThat(labels.mustDrain(Map.of(SHARD, "shard-0"))).isFalse();
    }

    @Test
    void aControllerRingShardReadsTheLabelsNamedAfterTheRing() {
        ShardLabels controllerRing = ShardLabels.of(RingKind.CONTROLLER_RING, "example", "shard-0");
        String shard = "shard.alpha.sharding.timebertt.dev/example";
        String drain = "drain.alpha.sharding.timebertt.dev/example";

        assertThat(controllerRing.selector()).isEqualTo("shard.alpha.sharding.timebertt.dev/example=shard-0");
        assertThat(controllerRing.kind()).isEqualTo(RingKind.CONTROLLER_RING);
        assertThat(controllerRing.ring()).isEqualTo("example");
        assertThat(controllerRing.owns(Map.of(shard, "shard-0"))).isTrue();
        assertThat(controllerRing.mustDrain(Map.of(shard, "shard-0", drain, "true"))).isTrue();
        // the ClusterRing of the same name is another ring: its labels mean nothing to this shard
        assertThat(controllerRing.owns(Map.of(SHARD, "shard-0"))).isFalse();
        assertThat(controllerRing.mustDrain(Map.of(shard, "shard-0", DRAIN, "true"))).isFalse();
        assertThat(labels.owns(Map.of(shard, "shard-0"))).isFalse();
    }

    @Test
    void theClusterRingIsTheDefaultKind() {
        assertThat(labels.kind()).isEqualTo(RingKind.CLUSTER_RING);
        assertThat(labels.ring()).isEqualTo("example");
    }

    @Test
    void namesAreValidated() {
        assertThatThrownBy(() -> ShardLabels.of("example", "")).hasMessageContaining("shard name");
        assertThatThrownBy(() -> ShardLabels.of("", "shard-0")).hasMessageContaining("ring name");
        assertThatThrownBy(() -> ShardLabels.of(RingKind.CONTROLLER_RING, "", "shard-0")).hasMessageContaining("ring name");
    }
}
