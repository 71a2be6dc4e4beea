package dev.ringmaster.sharder.kube;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.List;
import java.util.Map;

/** Evaluates a Kubernetes LabelSelector locally, with the API server's semantics. */
public final class LabelSelectors {

    private LabelSelectors() {
    }

    /**
     * Whether the labels match: every matchLabels entry and every requirement holds. A null selector
     * matches nothing (as in webhook and list selectors, an absent selector is handled by the caller);
     * an empty one matches everything.
     *
     * @throws IllegalArgumentException for an unknown operator
     */
    public static boolean matches(LabelSelector selector, Map<String, String> labels) {
        if (selector == null) {
            return false;
        }
        Map<String, String> actual = labels == null ? Map.of() : labels;
        if (selector.getMatchLabels() != null) {
            for (Map.Entry<String, String> wanted : selector.getMatchLabels().entrySet()) {
                if (!wanted.getValue().equals(actual.get(wanted.getKey()))) {
                    return false;
                }
            }
        }
        if (selector.getMatchExpressions() != null) {
            for (LabelSelectorRequirement requirement : selector.getMatchExpressions()) {
                if (!holds(requirement, actual)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean holds(LabelSelectorRequirement requirement, Map<String, String> labels) {
        String value = labels.get(requirement.getKey());
        List<String> values = requirement.getValues() == null ? List.of() : requirement.getValues();
        return switch (requirement.getOperator()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> labels.containsKey(requirement.getKey());
            case "DoesNotExist" -> !labels.containsKey(requirement.getKey());
            default -> throw new IllegalArgumentException("unknown label selector operator " + requirement.getOperator());
        };
    }
}
