package dev.ringmaster.sharder.model;

import dev.ringmaster.ring.ranges.RangePlacement;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks a ring object for everything the CRD schema cannot (or a lenient API server did not) reject.
 * A pure function: the problems are reported as the ring's {@code Ready=False/InvalidSpec} message,
 * so each names the field and says what is wrong in words a user can act on.
 */
public final class RingValidation {

    private static final int MAX_LABEL_NAME_LENGTH = 63;
    private static final int MAX_DNS_SUBDOMAIN_LENGTH = 253;
    private static final Pattern LABEL_NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Set<String> SET_OPERATORS = Set.of("In", "NotIn");
    private static final Set<String> EXISTENCE_OPERATORS = Set.of("Exists", "DoesNotExist");

    private RingValidation() {
    }

    /** The problems of the ring, in field order; empty when it is valid. */
    public static List<String> validate(RingObject ring) {
        String kind = ring.ringKind().kind();
        List<String> problems = new ArrayList<>();
        String name = ring.getMetadata() == null ? null : ring.getMetadata().getName();
        if (name != null && name.length() > RingObject.MAX_NAME_LENGTH) {
            problems.add("metadata.name: \"" + name + "\" is " + name.length() + " characters long, but a " + kind
                    + " name must be at most " + RingObject.MAX_NAME_LENGTH
                    + " characters because shard Leases carry it as a label value");
        }
        RingSpec spec = ring.getSpec();
        if (spec == null) {
            problems.add("spec: is missing; a " + kind + " needs spec.resources");
            return problems;
        }
        validateResources(kind, spec.getResources(), problems);
        if (spec.getNamespaceSelector() != null) {
            validateSelector("spec.namespaceSelector", spec.getNamespaceSelector(), problems);
        }
        String strategy = spec.getStrategy();
        if (strategy != null && !strategy.isEmpty() && !isValidStrategyName(strategy)) {
            problems.add("spec.strategy: \"" + strategy + "\" is not a valid strategy name: use at most 63 lowercase"
                    + " letters, digits and '-', starting and ending with a letter or digit (omit it for the"
                    + " sharder's default strategy)");
        }
        Integer grace = spec.getShardRestartGraceSeconds();
        if (grace != null && (grace < 0 || grace > RingSpec.MAX_SHARD_RESTART_GRACE_SECONDS)) {
            problems.add("spec.shardRestartGraceSeconds: " + grace + " is not from 0 to " + RingSpec.MAX_SHARD_RESTART_GRACE_SECONDS
                    + " (seconds a restarting shard keeps its objects; omit it for 60)");
        }
        RingRanges ranges = spec.getRanges();
        if (ranges != null) {
            String key = ranges.getKey();
            if (key != null && !key.isEmpty() && !key.equals("uid") && !key.equals("namespace")) {
                problems.add("spec.ranges.key: \"" + key + "\" is neither uid nor namespace (the field whose hash the"
                        + " ranges cut; omit it for uid)");
            }
            Integer buckets = ranges.getBuckets();
            if (buckets != null && !RingRanges.isValidBucketCount(buckets)) {
                problems.add("spec.ranges.buckets: " + buckets + " is not a power of two from 1 to "
                        + RangePlacement.MAX_BUCKETS + " (omit it for "
                        + RangePlacement.DEFAULT_BUCKETS + ")");
            }
            RingBalancing balancing = ranges.getBalancing();
            if (balancing != null) {
                String policy = balancing.getPolicy();
                if (policy != null && !policy.isEmpty() && !isValidStrategyName(policy)) {
                    problems.add("spec.ranges.balancing.policy: \"" + policy + "\" is not a valid policy name: use at"
                            + " most 63 lowercase letters, digits and '-', starting and ending with a letter or digit"
                            + " (omit it for " + RingBalancing.DEFAULT_POLICY + ")");
                }
                validateBalancing("spec.ranges.balancing.", balancing, problems);
            }
        }
        if (spec.getBalancing() != null) {
            if (ranges != null) {
                problems.add("spec.balancing: is for label mode; a range-mode ring is balanced with"
                        + " spec.ranges.balancing");
            }
            if (spec.getBalancing().getPolicy() != null) {
                problems.add("spec.balancing.policy: label mode balances by shard weights, with no placement policy;"
                        + " omit it");
            }
            validateBalancing("spec.balancing.", spec.getBalancing(), problems);
        }
        if (spec.getAutoscaling() != null) {
            validateAutoscaling(spec.getAutoscaling(), problems);
        }
        return problems;
    }

    private static void validateAutoscaling(RingAutoscaling autoscaling, List<String> problems) {
        String field = "spec.autoscaling.";
        ScaleTargetRef target = autoscaling.getScaleTargetRef();
        if (target == null) {
            problems.add(field + "scaleTargetRef: is missing; name the shards' workload (apiVersion, kind, name,"
                    + " namespace)");
        } else {
            required(field + "scaleTargetRef.apiVersion", target.getApiVersion(), "e.g. apps/v1", problems);
            required(field + "scaleTargetRef.kind", target.getKind(), "e.g. StatefulSet", problems);
            required(field + "scaleTargetRef.name", target.getName(), "the workload's name", problems);
            required(field + "scaleTargetRef.namespace", target.getNamespace(), "the workload's namespace", problems);
        }
        Integer min = autoscaling.getMinShards();
        Integer max = autoscaling.getMaxShards();
        within(field + "minShards", min, 1, RingAutoscaling.MAX_SHARDS, problems);
        if (max == null) {
            problems.add(field + "maxShards: is missing; the most shards the workload may have (1 to "
                    + RingAutoscaling.MAX_SHARDS + ")");
        } else {
            within(field + "maxShards", max, 1, RingAutoscaling.MAX_SHARDS, problems);
            int least = min == null ? RingAutoscaling.DEFAULT_MIN_SHARDS : min;
            if (max < least) {
                problems.add(field + "maxShards: " + max + " is less than minShards (" + least + ")");
            }
        }
        within(field + "targetUtilizationPercent", autoscaling.getTargetUtilizationPercent(), 1, 100, problems);
        within(field + "scaleUpStabilizationSeconds", autoscaling.getScaleUpStabilizationSeconds(), 0,
                RingAutoscaling.MAX_STABILIZATION_SECONDS, problems);
        within(field + "scaleDownStabilizationSeconds", autoscaling.getScaleDownStabilizationSeconds(), 0,
                RingAutoscaling.MAX_STABILIZATION_SECONDS, problems);
    }

    private static void required(String field, String value, String example, List<String> problems) {
        if (value == null || value.isBlank()) {
            problems.add(field + ": is missing (" + example + ")");
        }
    }

    private static void validateBalancing(String field, RingBalancing balancing, List<String> problems) {
        within(field + "maxImbalancePercent", balancing.getMaxImbalancePercent(), 1, 1000, problems);
        within(field + "maxMovePercent", balancing.getMaxMovePercent(), 1, 100, problems);
        within(field + "intervalSeconds", balancing.getIntervalSeconds(), RingBalancing.MIN_INTERVAL_SECONDS,
                RingBalancing.MAX_SECONDS, problems);
        within(field + "stabilizationSeconds", balancing.getStabilizationSeconds(), 0, RingBalancing.MAX_SECONDS,
                problems);
    }

    private static void within(String field, Integer value, int min, int max, List<String> problems) {
        if (value != null && (value < min || value > max)) {
            problems.add(field + ": " + value + " is not from " + min + " to " + max);
        }
    }

    /** Whether {@code name} may name a partitioning strategy or resource interpreter: a lowercase DNS label. */
    public static boolean isValidStrategyName(String name) {
        return name != null && name.length() <= MAX_LABEL_NAME_LENGTH && DNS_LABEL.matcher(name).matches();
    }

    private static void validateResources(String kind, List<RingResourceSpec> resources, List<String> problems) {
        if (resources == null || resources.isEmpty()) {
            problems.add("spec.resources: lists no resource; a " + kind + " needs at least one main resource");
            return;
        }
        // Where each resource was first seen, by role: a resource may appear once in the whole ring,
        // since every object of it must follow exactly one rule (its own key, or its controller's).
        Map<GroupResource, String> mains = new LinkedHashMap<>();
        Map<GroupResource, String> controlled = new LinkedHashMap<>();
        for (int i = 0; i < resources.size(); i++) {
            String path = "spec.resources[" + i + "]";
            RingResourceSpec main = resources.get(i);
            if (main == null) {
                problems.add(path + ": must not be null");
                continue;
            }
            if (checkResourceName(path, main, problems)) {
                String first = mains.putIfAbsent(key(main), path);
                if (first != null) {
                    problems.add(path + ": " + main + " is listed twice as a main resource (first in " + first + ")");
                }
            }
            String interpreter = main.getInterpreter();
            if (interpreter != null && !interpreter.isEmpty() && !isValidStrategyName(interpreter)) {
                problems.add(path + ".interpreter: \"" + interpreter + "\" is not a valid interpreter name: use at most"
                        + " 63 lowercase letters, digits and '-', starting and ending with a letter or digit (omit it"
                        + " for the sharder's default interpreter)");
            }
            List<GroupResource> children = main.getControlledResources();
            for (int j = 0; children != null && j < children.size(); j++) {
                String childPath = path + ".controlledResources[" + j + "]";
                GroupResource child = children.get(j);
                if (child == null) {
                    problems.add(childPath + ": must not be null");
                } else if (checkResourceName(childPath, child, problems)) {
                    String first = controlled.putIfAbsent(key(child), childPath);
                    if (first != null) {
                        problems.add(childPath + ": " + child + " is listed twice as a controlled resource (first in "
                                + first + "); list it once: a controlled object follows its controller, whatever"
                                + " the controller's kind");
                    }
                }
            }
        }
        // Checked after collecting both roles, so the order in the list does not matter.
        controlled.forEach((resource, childPath) -> {
            String mainPath = mains.get(resource);
            if (mainPath != null) {
                problems.add(childPath + ": " + resource + " is listed both as a main resource (" + mainPath
                        + ") and as a controlled resource; each resource may have only one role in a ring");
            }
        });
    }

    private static boolean checkResourceName(String path, GroupResource resource, List<String> problems) {
        if (resource.getResource() == null || resource.getResource().isBlank()) {
            problems.add(path + ".resource: must name a resource (the plural, e.g. configmaps)");
            return false;
        }
        return true;
    }

    private static GroupResource key(GroupResource resource) {
        return new GroupResource(resource.getGroup(), resource.getResource());
    }

    private static void validateSelector(String path, LabelSelector selector, List<String> problems) {
        Map<String, String> matchLabels = selector.getMatchLabels();
        if (matchLabels != null) {
            matchLabels.forEach((key, value) -> {
                String labelPath = path + ".matchLabels[\"" + key + "\"]";
                checkLabelKey(labelPath, key, problems);
                checkLabelValue(labelPath, value, problems);
            });
        }
        List<LabelSelectorRequirement> expressions = selector.getMatchExpressions();
        for (int i = 0; expressions != null && i < expressions.size(); i++) {
            String expressionPath = path + ".matchExpressions[" + i + "]";
            LabelSelectorRequirement expression = expressions.get(i);
            checkLabelKey(expressionPath + ".key", expression.getKey(), problems);
            String operator = expression.getOperator();
            List<String> values = expression.getValues() == null ? List.of() : expression.getValues();
            if (SET_OPERATORS.contains(operator)) {
                if (values.isEmpty()) {
                    problems.add(expressionPath + ".values: operator " + operator + " needs at least one value");
                }
            } else if (EXISTENCE_OPERATORS.contains(operator)) {
                if (!values.isEmpty()) {
                    problems.add(expressionPath + ".values: operator " + operator + " takes no values");
                }
            } else {
                problems.add(expressionPath + ".operator: \"" + operator
                        + "\" is not an operator; use In, NotIn, Exists or DoesNotExist");
            }
            for (int j = 0; j < values.size(); j++) {
                checkLabelValue(expressionPath + ".values[" + j + "]", values.get(j), problems);
            }
        }
    }

    /** A label key: an optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
    private static void checkLabelKey(String path, String key, List<String> problems) {
        if (key == null || key.isEmpty()) {
            problems.add(path + ": the label key must not be empty");
            return;
        }
        String[] parts = key.split("/", -1);
        if (parts.length > 2) {
            problems.add(path + ": label key \"" + key + "\" may contain at most one '/'");
            return;
        }
        String name = parts[parts.length - 1];
        if (parts.length == 2) {
            String prefix = parts[0];
            if (prefix.isEmpty() || prefix.length() > MAX_DNS_SUBDOMAIN_LENGTH
                    || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
                problems.add(path + ": label key prefix \"" + prefix + "\" must be a DNS subdomain of at most "
                        + MAX_DNS_SUBDOMAIN_LENGTH + " characters (lowercase letters, digits, '-' and '.')");
            }
        }
        if (name.isEmpty() || name.length() > MAX_LABEL_NAME_LENGTH || !LABEL_NAME.matcher(name).matches()) {
            problems.add(path + ": label key name \"" + name + "\" must be 1 to " + MAX_LABEL_NAME_LENGTH
                    + " characters of letters, digits, '-', '_' and '.', starting and ending with a letter or"
                    + " digit");
        }
    }

    /** A label value: empty, or at most 63 characters with the charset of a label name. */
    private static void checkLabelValue(String path, String value, List<String> problems) {
        if (value == null || value.isEmpty()) {
            return;
        }
        if (value.length() > MAX_LABEL_NAME_LENGTH || !LABEL_NAME.matcher(value).matches()) {
            problems.add(path + ": label value \"" + value + "\" must be at most " + MAX_LABEL_NAME_LENGTH
                    + " characters of letters, digits, '-', '_' and '.', starting and ending with a letter or"
                    + " digit");
        }
    }
}
