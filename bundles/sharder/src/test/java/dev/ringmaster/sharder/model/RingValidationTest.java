package dev.ringmaster.sharder.model;

import static dev.ringmaster.sharder.testing.TestRings.main;
import static dev.ringmaster.sharder.testing.TestRings.ring;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RingValidationTest {

    private static ClusterRing valid() {
        return ring("example", main("", "configmaps", new GroupResource("", "secrets")),
                main("apps", "deployments", new GroupResource("apps", "replicasets")));
    }

    private static List<String> problemsWithSelector(LabelSelector selector) {
        ClusterRing ring = valid();
        ring.getSpec().setNamespaceSelector(selector);
        return RingValidation.validate(ring);
    }

    @Test
    void validRingHasNoProblems() {
        ClusterRing ring = valid();
        ring.getSpec().setStrategy("rendezvous");
        ring.getSpec().setNamespaceSelector(new LabelSelectorBuilder()
                .addToMatchLabels("example.com/role", "project")
                .addToMatchLabels("tier", "")
                .addNewMatchExpression().withKey("env").withOperator("In").withValues("dev", "prod_1").endMatchExpression()
                .addNewMatchExpression().withKey("skip").withOperator("DoesNotExist").endMatchExpression()
                .build());
        assertThat(RingValidation.validate(ring)).isEmpty();
    }

    @Test
    void nameOf63CharactersIsValidButNot64() {
        assertThat(RingValidation.validate(ring("a".repeat(63), main("", "configmaps")))).isEmpty();
        assertThat(RingValidation.validate(ring("a".repeat(64), main("", "configmaps"))))
                .singleElement().asString()
                .startsWith("metadata.name: ")
                .contains("is 64 characters long", "at most 63 characters");
    }

    @Test
    void ringWithoutResourcesIsInvalid() {
        assertThat(RingValidation.validate(ring("example")))
                .containsExactly("spec.resources: lists no resource; a ClusterRing needs at least one main resource");
        ClusterRing withoutList = ring("example");
        withoutList.getSpec().setResources(null);
        assertThat(RingValidation.validate(withoutList)).hasSize(1);
        ClusterRing withoutSpec = ring("example");
        withoutSpec.setSpec(null);
        assertThat(RingValidation.validate(withoutSpec)).singleElement().asString().startsWith("spec: ");
    }

    @Test
    void emptyResourceNamesAreInvalid() {
        assertThat(RingValidation.validate(ring("example", main("apps", ""),
                main("", "configmaps", new GroupResource("", null)))))
                .containsExactly(
                        "spec.resources[0].resource: must name a resource (the plural, e.g. configmaps)",
                        "spec.resources[1].controlledResources[0].resource: must name a resource (the plural, e.g."
                                + " configmaps)");
    }

    @Test
    void resourceListedTwiceIsInvalid() {
        assertThat(RingValidation.validate(ring("example", main("", "configmaps"), main("", "configmaps"))))
                .containsExactly("spec.resources[1]: configmaps is listed twice as a main resource (first in"
                        + " spec.resources[0])");
        assertThat(RingValidation.validate(ring("example",
                main("", "configmaps", new GroupResource("", "secrets")),
                main("apps", "deployments", new GroupResource("", "secrets")))))
                .singleElement().asString()
                .startsWith("spec.resources[1].controlledResources[0]: secrets is listed twice as a controlled"
                        + " resource (first in spec.resources[0].controlledResources[0])");
    }

    @Test
    void sameResourceInAnotherGroupIsNotADuplicate() {
        assertThat(RingValidation.validate(ring("example", main("", "events"), main("events.k8s.io", "events"))))
                .isEmpty();
    }

    @Test
    void resourceBothMainAndControlledIsInvalid() {
        // Controlled before main in the list: still found.
        assertThat(RingValidation.validate(ring("example",
                main("apps", "deployments", new GroupResource("apps", "replicasets")),
                main("apps", "replicasets"))))
                .containsExactly("spec.resources[0].controlledResources[0]: replicasets.apps is listed both as a main"
                        + " resource (spec.resources[1]) and as a controlled resource; each resource may have only one"
                        + " role in a ring");
        assertThat(RingValidation.validate(ring("example",
                main("", "configmaps", new GroupResource("", "configmaps")))))
                .singleElement().asString().contains("listed both as a main resource (spec.resources[0])");
    }

    @Test
    void invalidOperatorIsReported() {
        assertThat(problemsWithSelector(new LabelSelectorBuilder()
                .addNewMatchExpression().withKey("env").withOperator("Equals").withValues("dev").endMatchExpression()
                .build()))
                .containsExactly("spec.namespaceSelector.matchExpressions[0].operator: \"Equals\" is not an operator;"
                        + " use In, NotIn, Exists or DoesNotExist");
    }

    @Test
    void setOperatorsNeedValues() {
        assertThat(problemsWithSelector(new LabelSelectorBuilder()
                .addNewMatchExpression().withKey("env").withOperator("In").endMatchExpression()
                .addNewMatchExpression().withKey("env").withOperator("NotIn").withValues().endMatchExpression()
                .build()))
                .containsExactly(
                        "spec.namespaceSelector.matchExpressions[0].values: operator In needs at least one value",
                        "spec.namespaceSelector.matchExpressions[1].values: operator NotIn needs at least one value");
    }

    @Test
    void existenceOperatorsTakeNoValues() {
        assertThat(problemsWithSelector(new LabelSelectorBuilder()
                .addNewMatchExpression().withKey("env").withOperator("Exists").withValues("dev").endMatchExpression()
                .addNewMatchExpression().withKey("env").withOperator("DoesNotExist").withValues("x").endMatchExpression()
                .build()))
                .containsExactly(
                        "spec.namespaceSelector.matchExpressions[0].values: operator Exists takes no values",
                        "spec.namespaceSelector.matchExpressions[1].values: operator DoesNotExist takes no values");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-env", "env-", "with space", "a/b/c", "/env", "Example.com/env", "ex_ample.com/env",
            "example.com/", "x.", "ünïcode"})
    void invalidLabelKeysAreReported(String key) {
        assertThat(problemsWithSelector(new LabelSelectorBuilder().addToMatchLabels(key, "v").build()))
                .singleElement().asString().startsWith("spec.namespaceSelector.matchLabels[\"" + key + "\"]: ");
        assertThat(problemsWithSelector(new LabelSelectorBuilder()
                .addNewMatchExpression().withKey(key).withOperator("Exists").endMatchExpression().build()))
                .singleElement().asString().startsWith("spec.namespaceSelector.matchExpressions[0].key: ");
    }

    @Test
    void labelKeyLengthLimits() {
        String prefix253 = ("a".repeat(63) + ".").repeat(3) + "a".repeat(61);
        assertThat(prefix253).hasSize(253);
        assertThat(problemsWithSelector(new LabelSelectorBuilder()
                .addToMatchLabels(prefix253 + "/" + "n".repeat(63), "v").build())).isEmpty();
        assertThat(problemsWithSelector(new LabelSelectorBuilder()
                .addToMatchLabels(prefix253 + "a/n", "v").build()))
                .singleElement().asString().contains("must be a DNS subdomain of at most 253 characters");
        assertThat(problemsWithSelector(new LabelSelectorBuilder()
                .addToMatchLabels("n".repeat(64), "v").build()))
                .singleElement().asString().contains("must be 1 to 63 characters");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-dev", "dev-", "dev ops", "dev/ops", "dév"})
    void invalidLabelValuesAreReported(String value) {
        assertThat(problemsWithSelector(new LabelSelectorBuilder().addToMatchLabels("env", value).build()))
                .singleElement().asString()
                .startsWith("spec.namespaceSelector.matchLabels[\"env\"]: label value \"" + value + "\"");
        assertThat(problemsWithSelector(new LabelSelectorBuilder()
                .addNewMatchExpression().withKey("env").withOperator("In").withValues("ok", value).endMatchExpression()
                .build()))
                .singleElement().asString().startsWith("spec.namespaceSelector.matchExpressions[0].values[1]: ");
    }

    @Test
    void labelValueLengthLimit() {
        assertThat(problemsWithSelector(new LabelSelectorBuilder().addToMatchLabels("env", "v".repeat(63)).build()))
                .isEmpty();
        assertThat(problemsWithSelector(new LabelSelectorBuilder().addToMatchLabels("env", "v".repeat(64)).build()))
                .singleElement().asString().contains("at most 63 characters");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Rendezvous", "jump_hash", "-consistent", "consistent-", "con.sistent", "a b"})
    void invalidStrategyNamesAreReported(String strategy) {
        ClusterRing ring = valid();
        ring.getSpec().setStrategy(strategy);
        assertThat(RingValidation.validate(ring))
                .containsExactly("spec.strategy: \"" + strategy + "\" is not a valid strategy name: use at most 63"
                        + " lowercase letters, digits and '-', starting and ending with a letter or digit (omit it"
                        + " for the sharder's default strategy)");
    }

    @Test
    void aResourceInterpreterIsNamedLikeAStrategy() {
        ClusterRing ring = valid();
        ring.getSpec().getResources().get(0).setInterpreter("namespace");
        assertThat(RingValidation.validate(ring)).isEmpty();

        ring.getSpec().getResources().get(0).setInterpreter("By_Namespace");
        assertThat(RingValidation.validate(ring)).singleElement().asString()
                .startsWith("spec.resources[0].interpreter: \"By_Namespace\" is not a valid interpreter name");
    }

    @Test
    void strategyNames() {
        assertThat(RingValidation.isValidStrategyName("consistent")).isTrue();
        assertThat(RingValidation.isValidStrategyName("jump-hash2")).isTrue();
        assertThat(RingValidation.isValidStrategyName("s".repeat(63))).isTrue();
        assertThat(RingValidation.isValidStrategyName("s".repeat(64))).isFalse();
        assertThat(RingValidation.isValidStrategyName(null)).isFalse();
        ClusterRing ring = valid();
        ring.getSpec().setStrategy("");
        assertThat(RingValidation.validate(ring)).as("empty means the default").isEmpty();
    }

    @Test
    void theRestartGraceIsFromZeroToAnHour() {
        ClusterRing ring = valid();
        for (int seconds : new int[] {0, 60, 3600}) {
            ring.getSpec().setShardRestartGraceSeconds(seconds);
            assertThat(RingValidation.validate(ring)).as("%s s", seconds).isEmpty();
        }
        for (int seconds : new int[] {-1, 3601}) {
            ring.getSpec().setShardRestartGraceSeconds(seconds);
            assertThat(RingValidation.validate(ring)).singleElement().asString()
                    .isEqualTo("spec.shardRestartGraceSeconds: " + seconds + " is not from 0 to 3600 (seconds a"
                            + " restarting shard keeps its objects; omit it for 60)");
        }
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        ClusterRing ring = ring("n".repeat(70), main("", "configmaps"), main("", "configmaps"));
        ring.getSpec().setStrategy("Bad");
        ring.getSpec().setNamespaceSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("-k", "v")).build());
        ring.getSpec().setShardRestartGraceSeconds(-1);
        assertThat(RingValidation.validate(ring))
                .extracting(problem -> problem.substring(0, problem.indexOf(':')))
                .containsExactly("metadata.name", "spec.resources[1]", "spec.namespaceSelector.matchLabels[\"-k\"]",
                        "spec.strategy", "spec.shardRestartGraceSeconds");
    }

    @org.junit.jupiter.api.Test
    void rangesNeedAKnownKeyAndAPowerOfTwoBucketCount() {
        ClusterRing ring = dev.ringmaster.sharder.testing.TestRings.configMapRing("ranges");
        ring.getSpec().setRanges(new RingRanges());
        assertThat(RingValidation.validate(ring)).isEmpty();
        ring.getSpec().setRanges(new RingRanges("namespace", 4096));
        assertThat(RingValidation.validate(ring)).isEmpty();
        ring.getSpec().setRanges(new RingRanges("uid", 1));
        assertThat(RingValidation.validate(ring)).isEmpty();

        ring.getSpec().setRanges(new RingRanges("name", 48));
        assertThat(RingValidation.validate(ring)).containsExactly(
                "spec.ranges.key: \"name\" is neither uid nor namespace (the field whose hash the ranges cut; omit it"
                        + " for uid)",
                "spec.ranges.buckets: 48 is not a power of two from 1 to 4096 (omit it for 64)");
        for (int buckets : new int[] {0, -2, 3, 8192}) {
            ring.getSpec().setRanges(new RingRanges(null, buckets));
            assertThat(RingValidation.validate(ring)).singleElement().asString().startsWith("spec.ranges.buckets: " + buckets);
        }
    }

    @org.junit.jupiter.api.Test
    void balancingNeedsAPolicyNameAndSettingsWithinTheirBounds() {
        ClusterRing ring = dev.ringmaster.sharder.testing.TestRings.configMapRing("ranges");
        RingRanges ranges = new RingRanges();
        ring.getSpec().setRanges(ranges);
        ranges.setBalancing(new RingBalancing());
        assertThat(RingValidation.validate(ring)).isEmpty();
        assertThat(ranges.getBalancing().settings()).isEqualTo(new RingBalancing.Settings("load-aware", 1.1, 0.1,
                java.time.Duration.ofSeconds(30), java.time.Duration.ofSeconds(60)));
        ranges.setBalancing(new RingBalancing("load-aware", 1, 100, 5, 0));
        assertThat(RingValidation.validate(ring)).isEmpty();

        ranges.setBalancing(new RingBalancing("Load Aware", 0, 101, 4, -1));
        assertThat(RingValidation.validate(ring)).containsExactly(
                "spec.ranges.balancing.policy: \"Load Aware\" is not a valid policy name: use at most 63 lowercase"
                        + " letters, digits and '-', starting and ending with a letter or digit (omit it for load-aware)",
                "spec.ranges.balancing.maxImbalancePercent: 0 is not from 1 to 1000",
                "spec.ranges.balancing.maxMovePercent: 101 is not from 1 to 100",
                "spec.ranges.balancing.intervalSeconds: 4 is not from 5 to 3600",
                "spec.ranges.balancing.stabilizationSeconds: -1 is not from 0 to 3600");
    }

    @Test
    void labelModeBalancingTakesTheSameBoundsNoPolicyAndNoRanges() {
        ClusterRing ring = valid();
        ring.getSpec().setBalancing(new RingBalancing());
        assertThat(RingValidation.validate(ring)).isEmpty();

        ring.getSpec().setBalancing(new RingBalancing("load-aware", 0, 101, 4, -1));
        ring.getSpec().setRanges(new RingRanges());
        assertThat(RingValidation.validate(ring)).containsExactly(
                "spec.balancing: is for label mode; a range-mode ring is balanced with spec.ranges.balancing",
                "spec.balancing.policy: label mode balances by shard weights, with no placement policy; omit it",
                "spec.balancing.maxImbalancePercent: 0 is not from 1 to 1000",
                "spec.balancing.maxMovePercent: 101 is not from 1 to 100",
                "spec.balancing.intervalSeconds: 4 is not from 5 to 3600",
                "spec.balancing.stabilizationSeconds: -1 is not from 0 to 3600");
    }

    @Test
    void autoscalingNeedsATargetAndShardsTargetAndWindowsWithinTheirBounds() {
        ClusterRing ring = valid();
        ScaleTargetRef target = new ScaleTargetRef("apps/v1", "StatefulSet", "shards", "shop");
        ring.getSpec().setAutoscaling(new RingAutoscaling(target, 2, 10, 60, 0, 300));
        assertThat(RingValidation.validate(ring)).isEmpty();
        ring.getSpec().setAutoscaling(new RingAutoscaling(target, null, 1, null, null, null));
        assertThat(RingValidation.validate(ring)).isEmpty();

        ring.getSpec().setAutoscaling(new RingAutoscaling(new ScaleTargetRef("", null, "shards", " "), 0, 1001, 0,
                -1, 3601));
        assertThat(RingValidation.validate(ring)).containsExactly(
                "spec.autoscaling.scaleTargetRef.apiVersion: is missing (e.g. apps/v1)",
                "spec.autoscaling.scaleTargetRef.kind: is missing (e.g. StatefulSet)",
                "spec.autoscaling.scaleTargetRef.namespace: is missing (the workload's namespace)",
                "spec.autoscaling.minShards: 0 is not from 1 to 1000",
                "spec.autoscaling.maxShards: 1001 is not from 1 to 1000",
                "spec.autoscaling.targetUtilizationPercent: 0 is not from 1 to 100",
                "spec.autoscaling.scaleUpStabilizationSeconds: -1 is not from 0 to 3600",
                "spec.autoscaling.scaleDownStabilizationSeconds: 3601 is not from 0 to 3600");

        ring.getSpec().setAutoscaling(new RingAutoscaling(null, 5, 4, 101, null, null));
        assertThat(RingValidation.validate(ring)).containsExactly(
                "spec.autoscaling.scaleTargetRef: is missing; name the shards' workload (apiVersion, kind, name,"
                        + " namespace)",
                "spec.autoscaling.maxShards: 4 is less than minShards (5)",
                "spec.autoscaling.targetUtilizationPercent: 101 is not from 1 to 100");
        ring.getSpec().setAutoscaling(new RingAutoscaling(target, null, null, null, null, null));
        assertThat(RingValidation.validate(ring)).containsExactly(
                "spec.autoscaling.maxShards: is missing; the most shards the workload may have (1 to 1000)");
    }
}
