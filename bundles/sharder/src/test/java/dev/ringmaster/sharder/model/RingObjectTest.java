package dev.ringmaster.sharder.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.HasMetadata;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Each kind's model class carries the names of its kind's wire contract, and knows its kind by them. */
class RingObjectTest {

    @ParameterizedTest
    @EnumSource(RingKind.class)
    void theModelClassOfAKindHasItsNames(RingKind kind) {
        Class<? extends RingObject> type = RingObject.typeOf(kind);
        assertThat(HasMetadata.getApiVersion(type)).isEqualTo("sharding.timebertt.dev/v1alpha1");
        assertThat(HasMetadata.getKind(type)).isEqualTo(kind.kind());
        assertThat(HasMetadata.getPlural(type)).isEqualTo(kind.plural());
        assertThat(HasMetadata.getSingular(type)).isEqualTo(kind.lowerCaseKind());
    }

    @ParameterizedTest
    @EnumSource(RingKind.class)
    void aRingObjectIsOfTheKindOfItsClass(RingKind kind) throws ReflectiveOperationException {
        RingObject ring = RingObject.typeOf(kind).getDeclaredConstructor().newInstance();
        ring.getMetadata().setName("example");
        assertThat(ring.ringKind()).isEqualTo(kind);
        assertThat(ring.getKind()).isEqualTo(kind.kind());
        assertThat(ring.key()).isEqualTo(new RingKey(kind, "example"));
    }
}
