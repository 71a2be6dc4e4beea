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
}
