package dev.ringmaster.sharder.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The ClusterRing and ControllerRing CRDs generated at build time (into the bundle, under META-INF/fabric8/) and its
 * committed copy in manifests/crd/.
 */
class ClusterRingCrdTest {

    static final String CRD_FILE = crdFile(RingKind.CLUSTER_RING);
    static final String CRD_RESOURCE = resource(CRD_FILE);
    /** Run the test with this property set to true to refresh the committed copy. */
    private static final String UPDATE_PROPERTY = "ringmaster.crd.update";

    private final KubernetesSerialization serialization = new KubernetesSerialization();

    @ParameterizedTest
    @EnumSource(RingKind.class)
    void committedCopyMatchesTheGeneratedCrd(RingKind kind) throws IOException {
        String file = crdFile(kind);
        String generated = generatedCrd(file);
        Path committed = Path.of(System.getProperty("basedir", ".")).resolve("../../manifests/crd/" + file)
                .normalize();
        if (Boolean.getBoolean(UPDATE_PROPERTY)) {
            Files.writeString(committed, generated, StandardCharsets.UTF_8);
        }
        assertThat(committed).exists();
        assertThat(Files.readString(committed, StandardCharsets.UTF_8))
                .as("%s differs from the CRD generated from the model; copy target/classes/%s there"
                        + " (or run this test with -D%s=true)", committed, resource(file), UPDATE_PROPERTY)
                .isEqualTo(generated);
    }

    @Test
    void crdIsClusterScopedWithStatusSubresourceAndPrinterColumns() throws IOException {
        CustomResourceDefinition crd = crd();
        assertThat(crd.getApiVersion()).isEqualTo("apiextensions.k8s.io/v1");
        assertThat(crd.getMetadata().getName()).isEqualTo("clusterrings.sharding.timebertt.dev");
        assertThat(crd.getSpec().getGroup()).isEqualTo("sharding.timebertt.dev");
        assertThat(crd.getSpec().getScope()).isEqualTo("Cluster");
        assertThat(crd.getSpec().getNames().getKind()).isEqualTo("ClusterRing");
        assertThat(crd.getSpec().getNames().getPlural()).isEqualTo("clusterrings");
        assertThat(crd.getSpec().getNames().getSingular()).isEqualTo("clusterring");
        assertThat(crd.getSpec().getVersions()).hasSize(1);
        CustomResourceDefinitionVersion version = crd.getSpec().getVersions().get(0);
        assertThat(version.getName()).isEqualTo("v1alpha1");
        assertThat(version.getServed()).isTrue();
        assertThat(version.getStorage()).isTrue();
        assertThat(version.getSubresources().getStatus()).isNotNull();
        assertThat(version.getSubresources().getScale()).isNull();
        assertThat(version.getAdditionalPrinterColumns())
                .extracting(c -> c.getName(), c -> c.getType(), c -> c.getJsonPath(), c -> c.getPriority())
                .containsExactlyInAnyOrder(
                        tuple("Ready", "string", ".status.conditions[?(@.type == \"Ready\")].status", 0),
                        tuple("Available", "integer", ".status.availableShards", 0),
                        tuple("Shards", "integer", ".status.shards", 0),
                        tuple("Age", "date", ".metadata.creationTimestamp", 0));
    }

    @Test
    void schemaRequiresResourcesAndLimitsTheName() throws IOException {
        JSONSchemaProps root = crd().getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema();
        assertThat(root.getType()).isEqualTo("object");
        assertThat(root.getRequired()).containsExactly("spec");
        assertThat(root.getXKubernetesValidations())
                .singleElement()
                .satisfies(rule -> {
                    assertThat(rule.getRule()).isEqualTo("self.metadata.name.size() <= 63");
                    assertThat(rule.getMessage()).contains("63");
                });

        JSONSchemaProps spec = root.getProperties().get("spec");
        assertThat(spec.getRequired()).containsExactly("resources");
        assertThat(spec.getProperties()).containsOnlyKeys("resources", "namespaceSelector", "strategy",
                "shardRestartGraceSeconds", "ranges", "autoscaling", "balancing");
        JSONSchemaProps resources = spec.getProperties().get("resources");
        assertThat(resources.getType()).isEqualTo("array");
        assertThat(resources.getMinItems()).isEqualTo(1L);
        JSONSchemaProps resource = resources.getItems().getSchema();
        assertThat(resource.getRequired()).containsExactly("resource");
        assertThat(resource.getProperties()).containsOnlyKeys("group", "resource", "controlledResources", "interpreter");
        JSONSchemaProps controlled = resource.getProperties().get("controlledResources").getItems().getSchema();
        assertThat(controlled.getRequired()).containsExactly("resource");
        assertThat(controlled.getProperties()).containsOnlyKeys("group", "resource");

        JSONSchemaProps selector = spec.getProperties().get("namespaceSelector");
        assertThat(selector.getProperties()).containsOnlyKeys("matchLabels", "matchExpressions");
        assertThat(spec.getProperties().get("strategy").getType()).isEqualTo("string");
        JSONSchemaProps grace = spec.getProperties().get("shardRestartGraceSeconds");
        assertThat(grace.getType()).isEqualTo("integer");
        assertThat(grace.getMinimum()).isEqualTo(0.0);
        assertThat(grace.getMaximum()).isEqualTo(3600.0);
        assertThat(grace.getDescription()).contains("ringmaster.dev/restarting").contains("60");

        JSONSchemaProps status = root.getProperties().get("status");
        assertThat(status.getProperties())
                .containsOnlyKeys("observedGeneration", "shards", "availableShards", "autoscaling", "balancing",
                        "conditions");
        assertThat(status.getProperties().get("balancing").getProperties()).containsOnlyKeys("weightPercent",
                "lastStepTime");
        assertThat(status.getProperties().get("autoscaling").getProperties())
                .containsOnlyKeys("currentShards", "desiredShards", "lastScaleTime", "message");
    }

    @Test
    void autoscalingNamesItsTargetAndBoundsItsShardsTargetAndWindows() throws IOException {
        JSONSchemaProps spec = crd().getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema().getProperties()
                .get("spec");
        assertThat(spec.getRequired()).doesNotContain("autoscaling");
        JSONSchemaProps autoscaling = spec.getProperties().get("autoscaling");
        assertThat(autoscaling.getType()).isEqualTo("object");
        assertThat(autoscaling.getProperties()).containsOnlyKeys("scaleTargetRef", "minShards", "maxShards",
                "targetUtilizationPercent", "scaleUpStabilizationSeconds", "scaleDownStabilizationSeconds");
        assertThat(autoscaling.getRequired()).containsExactlyInAnyOrder("scaleTargetRef", "maxShards");
        JSONSchemaProps target = autoscaling.getProperties().get("scaleTargetRef");
        assertThat(target.getRequired()).containsExactlyInAnyOrder("apiVersion", "kind", "name", "namespace");
        assertThat(autoscaling.getProperties().get("minShards").getMinimum()).isEqualTo(1.0);
        assertThat(autoscaling.getProperties().get("maxShards").getMinimum()).isEqualTo(1.0);
        assertThat(autoscaling.getProperties().get("maxShards").getMaximum()).isEqualTo(1000.0);
        assertThat(autoscaling.getProperties().get("targetUtilizationPercent").getMinimum()).isEqualTo(1.0);
        assertThat(autoscaling.getProperties().get("targetUtilizationPercent").getMaximum()).isEqualTo(100.0);
        assertThat(autoscaling.getProperties().get("scaleUpStabilizationSeconds").getMinimum()).isEqualTo(0.0);
        assertThat(autoscaling.getProperties().get("scaleDownStabilizationSeconds").getMaximum()).isEqualTo(3600.0);
        assertThat(autoscaling.getXKubernetesValidations()).singleElement().satisfies(rule -> {
            assertThat(rule.getRule()).isEqualTo("!has(self.minShards) || self.maxShards >= self.minShards");
            assertThat(rule.getMessage()).contains("maxShards").contains("minShards");
        });
    }

    @Test
    void autoscalingRoundTripsWithHpaDefaults() {
        ClusterRing ring = serialization.unmarshal("""
                apiVersion: sharding.timebertt.dev/v1alpha1
                kind: ClusterRing
                metadata: {name: shop}
                spec:
                  resources: [{resource: configmaps}]
                  autoscaling:
                    scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: shards, namespace: shop}
                    maxShards: 10
                """, ClusterRing.class);
        RingAutoscaling autoscaling = ring.getSpec().getAutoscaling();
        assertThat(autoscaling.getScaleTargetRef()).isEqualTo(new ScaleTargetRef("apps/v1", "StatefulSet", "shards",
                "shop"));
        assertThat(autoscaling.settings()).isEqualTo(new RingAutoscaling.Settings(autoscaling.getScaleTargetRef(), 1,
                10, 0.6, Duration.ZERO, Duration.ofMinutes(5)));
    }

    @Test
    void rangesAreAnOptionalObjectOfAKeyEnumAndAPowerOfTwoBucketCountWithDefaults() throws IOException {
        JSONSchemaProps spec = crd().getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema().getProperties()
                .get("spec");
        JSONSchemaProps ranges = spec.getProperties().get("ranges");
        assertThat(ranges.getType()).isEqualTo("object");
        assertThat(ranges.getRequired()).isNullOrEmpty();
        assertThat(ranges.getDescription()).contains("ringmaster.dev/assigned-ranges");
        assertThat(ranges.getProperties()).containsOnlyKeys("key", "buckets", "balancing");
        JSONSchemaProps balancing = ranges.getProperties().get("balancing");
        assertThat(balancing.getType()).isEqualTo("object");
        assertThat(balancing.getProperties()).containsOnlyKeys("policy", "maxImbalancePercent", "maxMovePercent",
                "intervalSeconds", "stabilizationSeconds");
        assertThat(balancing.getProperties().get("maxMovePercent").getMinimum()).isEqualTo(1.0);
        assertThat(balancing.getProperties().get("maxMovePercent").getMaximum()).isEqualTo(100.0);
        assertThat(balancing.getProperties().get("intervalSeconds").getMinimum()).isEqualTo(5.0);
        assertThat(balancing.getProperties().get("stabilizationSeconds").getMinimum()).isEqualTo(0.0);
        JSONSchemaProps key = ranges.getProperties().get("key");
        assertThat(key.getType()).isEqualTo("string");
        assertThat(key.getEnum()).extracting(value -> value.asText()).containsExactlyInAnyOrder("uid", "namespace");
        assertThat(key.getDefault().asText()).isEqualTo("uid");
        assertThat(key.getXKubernetesValidations()).singleElement()
                .satisfies(rule -> assertThat(rule.getRule()).isEqualTo("self == oldSelf"));
        JSONSchemaProps buckets = ranges.getProperties().get("buckets");
        assertThat(buckets.getType()).isEqualTo("integer");
        assertThat(buckets.getMinimum()).isEqualTo(1.0);
        assertThat(buckets.getMaximum()).isEqualTo(4096.0);
        assertThat(buckets.getDefault().asInt()).isEqualTo(64);
        assertThat(buckets.getXKubernetesValidations()).singleElement().satisfies(rule -> {
            assertThat(rule.getRule()).isEqualTo(RingRanges.POWER_OF_TWO_RULE);
            assertThat(rule.getMessage()).contains("power of two");
        });
        // the rule lists exactly the powers of two the sharder accepts
        String rule = RingRanges.POWER_OF_TWO_RULE;
        List<Integer> listed = java.util.Arrays.stream(rule.substring(rule.indexOf('[') + 1, rule.indexOf(']'))
                .split(",")).map(String::strip).map(Integer::valueOf).toList();
        for (int n = -1; n <= 5000; n++) {
            assertThat(listed.contains(n)).as("%d in the rule", n).isEqualTo(RingRanges.isValidBucketCount(n));
        }
    }

    @Test
    void rangesRoundTripAndDefault() {
        ClusterRing ring = serialization.unmarshal("""
                apiVersion: sharding.timebertt.dev/v1alpha1
                kind: ClusterRing
                metadata: {name: example}
                spec:
                  resources:
                  - {group: "", resource: configmaps}
                  ranges: {key: namespace, buckets: 256}
                """, ClusterRing.class);
        assertThat(ring.getSpec().rangeMode()).isTrue();
        assertThat(ring.getSpec().getRanges().keyOrDefault()).isEqualTo(dev.ringmaster.ring.ranges.RangeKey.NAMESPACE);
        assertThat(ring.getSpec().getRanges().bucketsOrDefault()).isEqualTo(256);
        assertThat(serialization.asJson(ring)).contains("\"ranges\":{\"key\":\"namespace\",\"buckets\":256}");

        RingRanges omitted = new RingRanges();
        assertThat(omitted.keyOrDefault()).isEqualTo(dev.ringmaster.ring.ranges.RangeKey.UID);
        assertThat(omitted.bucketsOrDefault()).isEqualTo(64);
        assertThat(serialization.asJson(new RingSpec())).doesNotContain("ranges");
        assertThat(new RingSpec().rangeMode()).isFalse();
    }

    /** A real API server rejects non-structural schemas: every node needs a type. */
    @Test
    void schemaIsStructural() throws IOException {
        JSONSchemaProps root = crd().getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema();
        List<String> untyped = new ArrayList<>();
        collectUntyped("", root, untyped);
        assertThat(untyped).isEmpty();
    }

    @Test
    void designExampleRoundTrips() {
        String yaml = """
                apiVersion: sharding.timebertt.dev/v1alpha1
                kind: ClusterRing
                metadata: {name: example}
                spec:
                  resources:
                  - group: ""
                    resource: configmaps
                    controlledResources:
                    - group: ""
                      resource: secrets
                  namespaceSelector: {matchLabels: {role: project}}
                  strategy: rendezvous
                  shardRestartGraceSeconds: 120
                """;
        ClusterRing ring = serialization.unmarshal(yaml, ClusterRing.class);
        assertThat(ring.getSpec().getResources()).singleElement().satisfies(main -> {
            assertThat(main).isEqualTo(new GroupResource("", "configmaps"));
            assertThat(main.getControlledResources()).containsExactly(new GroupResource("", "secrets"));
        });
        assertThat(ring.getSpec().getNamespaceSelector().getMatchLabels()).isEqualTo(Map.of("role", "project"));
        assertThat(ring.getSpec().getStrategy()).isEqualTo("rendezvous");
        assertThat(ring.getSpec().shardRestartGraceOrDefault()).isEqualTo(Duration.ofSeconds(120));
        ClusterRing again = serialization.unmarshal(serialization.asJson(ring), ClusterRing.class);
        assertThat(serialization.asJson(again)).isEqualTo(serialization.asJson(ring));
    }

    @Test
    void omittedOrEmptyNamespaceSelectorMeansAllButSystemNamespaces() {
        RingSpec spec = new RingSpec();
        assertThat(spec.namespaceSelectorOrDefault().getMatchExpressions()).singleElement().satisfies(e -> {
            assertThat(e.getKey()).isEqualTo("kubernetes.io/metadata.name");
            assertThat(e.getOperator()).isEqualTo("NotIn");
            assertThat(e.getValues()).containsExactly("kube-system", "sharding-system");
        });
        spec.setNamespaceSelector(new LabelSelector());
        assertThat(spec.namespaceSelectorOrDefault().getMatchExpressions()).hasSize(1);
        LabelSelector own = new LabelSelectorBuilder().addToMatchLabels("role", "project").build();
        spec.setNamespaceSelector(own);
        assertThat(spec.namespaceSelectorOrDefault()).isSameAs(own);
    }

    @Test
    void anOmittedRestartGraceIsSixtySeconds() {
        RingSpec spec = new RingSpec();
        assertThat(spec.shardRestartGraceOrDefault()).isEqualTo(Duration.ofSeconds(60));
        spec.setShardRestartGraceSeconds(0);
        assertThat(spec.shardRestartGraceOrDefault()).isEqualTo(Duration.ZERO);
        spec.setShardRestartGraceSeconds(3600);
        assertThat(spec.shardRestartGraceOrDefault()).isEqualTo(Duration.ofHours(1));
        spec.setShardRestartGraceSeconds(-5);
        assertThat(spec.shardRestartGraceOrDefault()).isEqualTo(Duration.ZERO);
        assertThat(new KubernetesSerialization().asJson(new RingSpec())).doesNotContain("shardRestartGraceSeconds");
    }

    private static void collectUntyped(String path, JSONSchemaProps schema, List<String> untyped) {
        boolean exempt = Boolean.TRUE.equals(schema.getXKubernetesIntOrString())
                || Boolean.TRUE.equals(schema.getXKubernetesPreserveUnknownFields());
        if (schema.getType() == null && !exempt) {
            untyped.add(path.isEmpty() ? "<root>" : path);
        }
        if (schema.getProperties() != null) {
            schema.getProperties().forEach((name, child) -> collectUntyped(path + "." + name, child, untyped));
        }
        if (schema.getItems() != null && schema.getItems().getSchema() != null) {
            collectUntyped(path + "[]", schema.getItems().getSchema(), untyped);
        }
        if (schema.getAdditionalProperties() != null && schema.getAdditionalProperties().getSchema() != null) {
            collectUntyped(path + "{}", schema.getAdditionalProperties().getSchema(), untyped);
        }
    }

    /**
     * The ControllerRing's CRD is the ClusterRing's with the names of the other kind (the reference
     * sharder's ControllerRing: same group and version, cluster scope, the same spec and status).
     */
    @Test
    void theControllerRingCrdIsTheClusterRingCrdUnderItsOwnNames() throws IOException {
        String clusterRing = generatedCrd(CRD_FILE);
        String controllerRing = generatedCrd(crdFile(RingKind.CONTROLLER_RING));
        assertThat(controllerRing).isEqualTo(clusterRing
                .replace("clusterrings.sharding", "controllerrings.sharding")
                .replace("\"ClusterRing\"", "\"ControllerRing\"")
                .replace("\"clusterrings\"", "\"controllerrings\"")
                .replace("\"clusterring\"", "\"controllerring\"")
                .replace("the ClusterRing name", "the ControllerRing name"));
        CustomResourceDefinition crd = serialization.unmarshal(controllerRing, CustomResourceDefinition.class);
        assertThat(crd.getSpec().getNames().getKind()).isEqualTo("ControllerRing");
        assertThat(crd.getSpec().getNames().getPlural()).isEqualTo("controllerrings");
        assertThat(crd.getSpec().getScope()).isEqualTo("Cluster");
    }

    private CustomResourceDefinition crd() throws IOException {
        return serialization.unmarshal(generatedCrd(CRD_FILE), CustomResourceDefinition.class);
    }

    static String crdFile(RingKind kind) {
        return kind.plural() + ".sharding.timebertt.dev-v1.yml";
    }

    private static String resource(String crdFile) {
        return "META-INF/fabric8/" + crdFile;
    }

    static String generatedCrd(String crdFile) throws IOException {
        try (InputStream in = ClusterRingCrdTest.class.getClassLoader().getResourceAsStream(resource(crdFile))) {
            assertThat(in).as("the build generates %s (crd-generator-maven-plugin)", resource(crdFile)).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
