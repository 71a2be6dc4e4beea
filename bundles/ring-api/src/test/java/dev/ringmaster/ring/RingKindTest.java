package dev.ringmaster.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Both kinds' contract, pinned to the strings the reference sharder uses: ClusterRing as in
 * docs/design.md section 1; ControllerRing as in its source from v0.9.0 to v0.13.0
 * (pkg/apis/sharding/v1alpha1/constants.go, pkg/webhook/sharder/add.go,
 * pkg/controller/controllerring/reconciler.go).
 */
class RingKindTest {

    @Test
    void controllerRingUsesTheRingNameItself() {
        RingKind kind = RingKind.CONTROLLER_RING;
        assertThat(kind.kind()).isEqualTo("ControllerRing");
        assertThat(kind.plural()).isEqualTo("controllerrings");
        assertThat(kind.lowerCaseKind()).isEqualTo("controllerring");
        assertThat(kind.leaseLabel()).isEqualTo("alpha.sharding.timebertt.dev/controllerring");
        assertThat(kind.ringSuffix("example")).isEqualTo("example");
        assertThat(kind.shardLabel("example")).isEqualTo("shard.alpha.sharding.timebertt.dev/example");
        assertThat(kind.drainLabel("example")).isEqualTo("drain.alpha.sharding.timebertt.dev/example");
        assertThat(kind.webhookConfigurationName("example")).isEqualTo("controllerring-example");
        assertThat(kind.webhookPathPrefix()).isEqualTo("/webhooks/sharder/controllerring/");
        assertThat(kind.webhookPath("example")).isEqualTo("/webhooks/sharder/controllerring/example");
    }

    @Test
    void clusterRingHashesTheRingName() {
        RingKind kind = RingKind.CLUSTER_RING;
        assertThat(kind.kind()).isEqualTo("ClusterRing");
        assertThat(kind.plural()).isEqualTo("clusterrings");
        assertThat(kind.lowerCaseKind()).isEqualTo("clusterring");
        assertThat(kind.leaseLabel()).isEqualTo("alpha.sharding.timebertt.dev/clusterring");
        assertThat(kind.ringSuffix("example")).isEqualTo("clusterring-50d858e0-example");
        assertThat(kind.shardLabel("example")).isEqualTo("shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example");
        assertThat(kind.drainLabel("example")).isEqualTo("drain.alpha.sharding.timebertt.dev/clusterring-50d858e0-example");
        assertThat(kind.webhookConfigurationName("example")).isEqualTo("sharding-clusterring-50d858e0-example");
        assertThat(kind.webhookPathPrefix()).isEqualTo("/webhooks/sharder/clusterring/");
        assertThat(kind.webhookPath("example")).isEqualTo("/webhooks/sharder/clusterring/example");
        assertThat(kind.ringSuffix("a".repeat(60))).isEqualTo("clusterring-11ee3912-" + "a".repeat(42));
    }

    @Test
    void controllerRingNamesAreNotCut() {
        // the ControllerRing CRD caps names at 63 characters; the reference sharder appends the name as it is
        String name = "b".repeat(63);
        assertThat(RingKind.CONTROLLER_RING.shardLabel(name)).isEqualTo("shard.alpha.sharding.timebertt.dev/" + name);
    }

    @Test
    void webhookPathsNameTheirKindsRingsOnly() {
        assertThat(RingKind.CONTROLLER_RING.ringOfWebhookPath("/webhooks/sharder/controllerring/example")).isEqualTo("example");
        assertThat(RingKind.CONTROLLER_RING.ringOfWebhookPath("/webhooks/sharder/clusterring/example")).isNull();
        assertThat(RingKind.CLUSTER_RING.ringOfWebhookPath("/webhooks/sharder/controllerring/example")).isNull();
        assertThat(RingKind.CLUSTER_RING.ringOfWebhookPath("/webhooks/sharder/clusterring/example")).isEqualTo("example");
        assertThat(RingKind.CONTROLLER_RING.ringOfWebhookPath("/webhooks/sharder/controllerring/")).isNull();
        assertThat(RingKind.CONTROLLER_RING.ringOfWebhookPath("/webhooks/sharder/controllerring/a/b")).isNull();
        assertThat(RingKind.CONTROLLER_RING.ringOfWebhookPath(null)).isNull();
    }

    @ParameterizedTest
    @EnumSource(RingKind.class)
    void emptyRingNamesAreRejected(RingKind kind) {
        assertThatThrownBy(() -> kind.ringSuffix("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> kind.shardLabel(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void kindsAreFoundByNameIgnoringCase() {
        assertThat(RingKind.ofKind("ControllerRing")).isSameAs(RingKind.CONTROLLER_RING);
        assertThat(RingKind.ofKind("controllerring")).isSameAs(RingKind.CONTROLLER_RING);
        assertThat(RingKind.ofKind("clusterring")).isSameAs(RingKind.CLUSTER_RING);
        assertThatThrownBy(() -> RingKind.ofKind("ring")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ClusterRing or ControllerRing");
        assertThatThrownBy(() -> RingKind.ofKind(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
