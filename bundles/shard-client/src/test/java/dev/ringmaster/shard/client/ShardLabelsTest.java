package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void namesAreValidated() {
        assertThatThrownBy(() -> ShardLabels.of("example", "")).hasMessageContaining("shard name");
        assertThatThrownBy(() -> ShardLabels.of("", "shard-0")).hasMessageContaining("ring name");
    }
}
