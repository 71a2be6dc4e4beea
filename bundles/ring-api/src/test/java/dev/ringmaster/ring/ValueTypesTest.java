package dev.ringmaster.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ValueTypesTest {

    @Test
    void shardWeightDefaultsToOneAndIsBounded() {
        assertThat(Shard.of("shard-0").weight()).isEqualTo(1);
        assertThatThrownBy(() -> new Shard("shard-0", 0)).hasMessageContaining("between 1 and 1000");
        assertThatThrownBy(() -> new Shard("shard-0", Shard.MAX_WEIGHT + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Shard.of("")).hasMessageContaining("must not be empty");
    }

    @Test
    void stateAvailabilityAndLabels() {
        assertThat(ShardState.READY.isAvailable()).isTrue();
        assertThat(ShardState.EXPIRED.isAvailable()).isTrue();
        assertThat(ShardState.UNCERTAIN.isAvailable()).isTrue();
        assertThat(ShardState.DEAD.isAvailable()).isFalse();
        assertThat(ShardState.ORPHANED.isAvailable()).isFalse();
        assertThat(ShardState.ORPHANED.label()).isEqualTo("orphaned");
    }

    @Test
    void objectReferenceNormalizesAbsentValuesAndFindsController() {
        var owner = new OwnerReference("apps/v1", "Deployment", "web", true);
        var object = new ObjectReference(null, "v1", "Pod", null, null, "web-", null,
                List.of(new OwnerReference("v1", "ConfigMap", "cfg", false), owner));
        assertThat(object.group()).isEmpty();
        assertThat(object.namespace()).isEmpty();
        assertThat(object.name()).isEmpty();
        assertThat(object.labels()).isEqualTo(Map.of());
        assertThat(object.controller()).contains(owner);
        assertThat(owner.group()).isEqualTo("apps");
        assertThat(new OwnerReference("v1", "ConfigMap", "cfg", true).group()).isEmpty();
    }

    @Test
    void sortedByNameRejectsDuplicates() {
        assertThat(Shard.sortedByName(List.of(Shard.of("b"), Shard.of("a")))).extracting(Shard::name)
                .containsExactly("a", "b");
        assertThatThrownBy(() -> Shard.sortedByName(List.of(Shard.of("a"), new Shard("a", 2))))
                .hasMessageContaining("shard a is listed twice");
    }
}
