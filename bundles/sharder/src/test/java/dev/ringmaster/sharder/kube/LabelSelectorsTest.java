package dev.ringmaster.sharder.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorsTest {

    private static LabelSelector expression(String key, String operator, String... values) {
        return new LabelSelectorBuilder().addNewMatchExpression().withKey(key).withOperator(operator)
                .withValues(values).endMatchExpression().build();
    }

    @Test
    void matchLabelsAndEveryOperator() {
        Map<String, String> labels = Map.of("role", "project", "tier", "gold");
        assertThat(LabelSelectors.matches(new LabelSelectorBuilder().addToMatchLabels("role", "project").build(), labels)).isTrue();
        assertThat(LabelSelectors.matches(new LabelSelectorBuilder().addToMatchLabels("role", "infra").build(), labels)).isFalse();
        assertThat(LabelSelectors.matches(expression("tier", "In", "gold", "silver"), labels)).isTrue();
        assertThat(LabelSelectors.matches(expression("tier", "In", "silver"), labels)).isFalse();
        assertThat(LabelSelectors.matches(expression("tier", "NotIn", "silver"), labels)).isTrue();
        assertThat(LabelSelectors.matches(expression("absent", "NotIn", "x"), labels)).isTrue();
        assertThat(LabelSelectors.matches(expression("role", "Exists"), labels)).isTrue();
        assertThat(LabelSelectors.matches(expression("role", "DoesNotExist"), labels)).isFalse();
        assertThat(LabelSelectors.matches(expression("absent", "DoesNotExist"), null)).isTrue();
    }

    @Test
    void emptySelectorsMatchEverythingAndNullNothing() {
        assertThat(LabelSelectors.matches(new LabelSelector(), Map.of("a", "b"))).isTrue();
        assertThat(LabelSelectors.matches(null, Map.of())).isFalse();
    }

    @Test
    void unknownOperatorsAreAnError() {
        assertThatThrownBy(() -> LabelSelectors.matches(expression("a", "Like", "b"), Map.of()))
                .hasMessageContaining("unknown label selector operator Like");
    }
}
