package dev.ringmaster.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RingContractTest {

    @Test
    void suffixOfExampleMatchesReferenceSharder() {
        assertThat(RingContract.ringSuffix("example")).isEqualTo("clusterring-50d858e0-example");
        assertThat(RingContract.shardLabel("example"))
                .isEqualTo("shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example");
        assertThat(RingContract.drainLabel("example"))
                .isEqualTo("drain.alpha.sharding.timebertt.dev/clusterring-50d858e0-example");
        assertThat(RingContract.webhookConfigurationName("example"))
                .isEqualTo("sharding-clusterring-50d858e0-example");
        assertThat(RingContract.webhookPath("example")).isEqualTo("/webhooks/sharder/clusterring/example");
    }

    @Test
    void longNamesAreCutAt63Characters() {
        String name = "a".repeat(60);
        String suffix = RingContract.ringSuffix(name);
        assertThat(suffix).isEqualTo("clusterring-11ee3912-" + "a".repeat(42)).hasSize(63);
        // the label name part after the prefix must be a valid label name: at most 63 characters
        assertThat(RingContract.shardLabel(name).substring(RingContract.shardLabel(name).indexOf('/') + 1))
                .hasSize(63);
    }

    @Test
    void emptyRingNameIsRejected() {
        assertThatThrownBy(() -> RingContract.ringSuffix("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RingContract.ringSuffix(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void webhookPathRoundTrips() {
        assertThat(RingContract.ringOfWebhookPath(RingContract.webhookPath("example"))).isEqualTo("example");
        assertThat(RingContract.ringOfWebhookPath("/webhooks/sharder/clusterring/")).isNull();
        assertThat(RingContract.ringOfWebhookPath("/webhooks/sharder/clusterring/a/b")).isNull();
        assertThat(RingContract.ringOfWebhookPath("/other")).isNull();
    }

    @Test
    void prefixesAndDefaultStrategyAreTheReferenceSharders() {
        assertThat(RingContract.SHARD_LABEL_PREFIX).isEqualTo("shard.alpha.sharding.timebertt.dev/");
        assertThat(RingContract.DRAIN_LABEL_PREFIX).isEqualTo("drain.alpha.sharding.timebertt.dev/");
        assertThat(RingContract.WEBHOOK_PATH_PREFIX).isEqualTo("/webhooks/sharder/clusterring/");
        assertThat(RingContract.DEFAULT_STRATEGY).isEqualTo("consistent-hash");
    }

    @Test
    void partitionKeysAreGroupKindNamespaceName() {
        assertThat(RingContract.partitionKey("", "ConfigMap", "default", "foo")).isEqualTo("/ConfigMap/default/foo");
        assertThat(RingContract.partitionKey("apps", "Deployment", "shop", "web")).isEqualTo("apps/Deployment/shop/web");
        assertThat(RingContract.partitionKey("rbac.authorization.k8s.io", "ClusterRole", "", "view"))
                .isEqualTo("rbac.authorization.k8s.io/ClusterRole//view");
    }
}
