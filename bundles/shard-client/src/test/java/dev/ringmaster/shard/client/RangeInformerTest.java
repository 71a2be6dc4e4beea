package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The client-side filter, with FNV-1a 64 test vectors: "" hashes to 0xcbf29ce484222325, "a" to 0xaf63dc4c8601ec8c. */
class RangeInformerTest {

    private static final RangeSet LOWER_HALF = RangeSet.of(List.of(HashRange.of("0x0000000000000000", "0x8000000000000000")));
    private static final RangeSet UPPER_HALF = RangeSet.of(List.of(HashRange.of("0x8000000000000000", "0x10000000000000000")));
    /** Just the hash of "a", 0xaf63dc4c8601ec8c. */
    private static final RangeSet JUST_A = RangeSet.of(List.of(HashRange.of("0xaf63dc4c8601ec8c", "0xaf63dc4c8601ec8d")));

    @Test
    void byUid() {
        ConfigMap a = object("a", "ns");
        assertThat(RangeInformer.inRanges(a, UPPER_HALF, RangeKey.UID)).isTrue();
        assertThat(RangeInformer.inRanges(a, LOWER_HALF, RangeKey.UID)).isFalse();
        assertThat(RangeInformer.inRanges(a, JUST_A, RangeKey.UID)).isTrue();
        assertThat(RangeInformer.inRanges(object("b", "ns"), JUST_A, RangeKey.UID)).isFalse();
        assertThat(RangeInformer.inRanges(a, RangeSet.EMPTY, RangeKey.UID)).isFalse();
        assertThat(RangeInformer.inRanges(a, RangeSet.ALL, RangeKey.UID)).isTrue();
    }

    @Test
    void byNamespace() {
        assertThat(RangeInformer.inRanges(object("x", "a"), JUST_A, RangeKey.NAMESPACE)).isTrue();
        assertThat(RangeInformer.inRanges(object("a", "b"), JUST_A, RangeKey.NAMESPACE)).isFalse();
        // a cluster-scoped object hashes "": 0xcbf29ce484222325, in the upper half
        assertThat(RangeInformer.inRanges(object("x", null), UPPER_HALF, RangeKey.NAMESPACE)).isTrue();
        assertThat(RangeInformer.inRanges(object("x", null), LOWER_HALF, RangeKey.NAMESPACE)).isFalse();
    }

    @Test
    void nothingWithoutMetadata() {
        assertThat(RangeInformer.inRanges(null, RangeSet.ALL, RangeKey.UID)).isFalse();
        assertThat(RangeInformer.inRanges(new ConfigMap(), RangeSet.ALL, RangeKey.NAMESPACE)).isFalse();
    }

    private static ConfigMap object(String uid, String namespace) {
        return new ConfigMapBuilder().withNewMetadata().withName("cm").withNamespace(namespace).withUid(uid).endMetadata().build();
    }
}
