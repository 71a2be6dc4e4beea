package dev.ringmaster.sharder.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ClusterRing CRD, exactly as the build generates it, on a real API server (the mock server
 * enforces no schema): what the schema and its CEL rule reject, and with which message; that a valid
 * ring is stored as written; the status subresource; the printer columns.
 */
class ClusterRingCrdIT {

    private static final String CRD_NAME = "clusterrings.sharding.timebertt.dev";
    private static final ResourceDefinitionContext RINGS = new ResourceDefinitionContext.Builder()
            .withGroup("sharding.timebertt.dev").withVersion("v1alpha1").withPlural("clusterrings")
            .withKind("ClusterRing").withNamespaced(false).build();
    private static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
    private static final String VALID_SPEC = "spec: {resources: [{resource: configmaps}]}";

    private static final KubernetesClient ADMIN = RealApiServer.shared().admin();

    @BeforeAll
    static void installTheGeneratedCrd() throws Exception {
        // The generator writes target/classes/META-INF/fabric8/<crd>.yml, which the bundle ships and the
        // test class path serves; manifests/crd/ holds a copy that ClusterRingCrdTest keeps equal to it.
        CustomResourceDefinition crd = ADMIN.getKubernetesSerialization()
                .unmarshal(ClusterRingCrdTest.generatedCrd(ClusterRingCrdTest.CRD_FILE), CustomResourceDefinition.class);
        ADMIN.apiextensions().v1().customResourceDefinitions().resource(crd).forceConflicts().serverSideApply();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            CustomResourceDefinition served = ADMIN.apiextensions().v1().customResourceDefinitions().withName(CRD_NAME).get();
            return served.getStatus() != null && served.getStatus().getConditions().stream()
                    .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
        });
    }

    static Stream<Arguments> invalidRings() {
        return Stream.of(
                Arguments.of("a name longer than 63 characters", "crd-it-" + "n".repeat(57), VALID_SPEC,
                        "the ClusterRing name must be at most 63 characters long"),
                Arguments.of("no spec", "crd-it-no-spec", "",
                        "spec: Required value"),
                Arguments.of("no resources", "crd-it-no-resources", "spec: {strategy: rendezvous}",
                        "spec.resources: Required value"),
                Arguments.of("an empty list of resources", "crd-it-empty-resources", "spec: {resources: []}",
                        "spec.resources: Invalid value: 0: spec.resources in body should have at least 1 items"),
                Arguments.of("a main resource without its name", "crd-it-no-main-name",
                        "spec: {resources: [{group: apps}]}",
                        "spec.resources[0].resource: Required value"),
                Arguments.of("a controlled resource without its name", "crd-it-no-controlled-name",
                        "spec: {resources: [{resource: configmaps, controlledResources: [{group: ''}]}]}",
                        "spec.resources[0].controlledResources[0].resource: Required value"),
                Arguments.of("resources not a list", "crd-it-resources-object",
                        "spec: {resources: {resource: configmaps}}",
                        wrongType("spec.resources", "object", "array")),
                Arguments.of("a resource name not a string", "crd-it-resource-number",
                        "spec: {resources: [{resource: 7}]}",
                        wrongType("spec.resources[0].resource", "integer", "string")),
                Arguments.of("controlled resources not a list", "crd-it-controlled-string",
                        "spec: {resources: [{resource: configmaps, controlledResources: secrets}]}",
                        wrongType("spec.resources[0].controlledResources", "string", "array")),
                Arguments.of("an interpreter not a string", "crd-it-interpreter-list",
                        "spec: {resources: [{resource: configmaps, interpreter: [namespace]}]}",
                        wrongType("spec.resources[0].interpreter", "array", "string")),
                Arguments.of("a strategy not a string", "crd-it-strategy-number",
                        "spec: {resources: [{resource: configmaps}], strategy: 3}",
                        wrongType("spec.strategy", "integer", "string")),
                Arguments.of("a namespace selector not an object", "crd-it-selector-string",
                        "spec: {resources: [{resource: configmaps}], namespaceSelector: role=project}",
                        wrongType("spec.namespaceSelector", "string", "object")),
                Arguments.of("a selector label value not a string", "crd-it-selector-label-number",
                        "spec: {resources: [{resource: configmaps}], namespaceSelector: {matchLabels: {tier: 1}}}",
                        wrongType("spec.namespaceSelector.matchLabels.tier", "integer", "string")),
                Arguments.of("selector expression values not a list", "crd-it-selector-values-string",
                        "spec: {resources: [{resource: configmaps}], namespaceSelector: {matchExpressions:"
                                + " [{key: tier, operator: In, values: gold}]}}",
                        wrongType("spec.namespaceSelector.matchExpressions[0].values", "string", "array")),
                Arguments.of("a range bucket count not a power of two", "crd-it-ranges-buckets",
                        "spec: {resources: [{resource: configmaps}], ranges: {buckets: 48}}",
                        "spec.ranges.buckets must be a power of two from 1 to 4096"),
                Arguments.of("a range bucket count above 4096", "crd-it-ranges-buckets-high",
                        "spec: {resources: [{resource: configmaps}], ranges: {buckets: 8192}}",
                        "spec.ranges.buckets: Invalid value: 8192: spec.ranges.buckets in body should be less than or"
                                + " equal to 4096"),
                Arguments.of("a range key neither uid nor namespace", "crd-it-ranges-key",
                        "spec: {resources: [{resource: configmaps}], ranges: {key: name}}",
                        "spec.ranges.key: Unsupported value: \"name\""),
                Arguments.of("a balancing step moving more than all objects", "crd-it-balancing-move",
                        "spec: {resources: [{resource: configmaps}], ranges: {balancing: {maxMovePercent: 101}}}",
                        "spec.ranges.balancing.maxMovePercent: Invalid value: 101: spec.ranges.balancing.maxMovePercent"
                                + " in body should be less than or equal to 100"),
                Arguments.of("a balancing interval under 5 s", "crd-it-balancing-interval",
                        "spec: {resources: [{resource: configmaps}], ranges: {balancing: {intervalSeconds: 1}}}",
                        "spec.ranges.balancing.intervalSeconds: Invalid value: 1: spec.ranges.balancing.intervalSeconds"
                                + " in body should be greater than or equal to 5"),
                Arguments.of("a balancing policy not a string", "crd-it-balancing-policy",
                        "spec: {resources: [{resource: configmaps}], ranges: {balancing: {policy: 7}}}",
                        wrongType("spec.ranges.balancing.policy", "integer", "string")),
                Arguments.of("label-mode balancing beside ranges", "crd-it-weights-ranges",
                        "spec: {resources: [{resource: configmaps}], ranges: {}, balancing: {}}",
                        "spec.balancing is for label mode: a range-mode ring is balanced with spec.ranges.balancing"),
                Arguments.of("label-mode balancing with a policy", "crd-it-weights-policy",
                        "spec: {resources: [{resource: configmaps}], balancing: {policy: load-aware}}",
                        "spec.balancing.policy: label mode balances by shard weights, with no placement policy; omit"
                                + " it"),
                Arguments.of("label-mode balancing tolerating no imbalance", "crd-it-weights-imbalance",
                        "spec: {resources: [{resource: configmaps}], balancing: {maxImbalancePercent: 0}}",
                        "spec.balancing.maxImbalancePercent: Invalid value: 0: spec.balancing.maxImbalancePercent in"
                                + " body should be greater than or equal to 1"));
    }

    /** The API server's message for a field of the wrong JSON type. */
    private static String wrongType(String path, String given, String expected) {
        return path + ": Invalid value: \"" + given + "\": " + path + " in body must be of type " + expected;
    }

    @Test
    void rangesDefaultTheirKeyAndBucketsAndTheKeyCannotChange() {
        rings().resource(ring("crd-it-ranges", "spec: {resources: [{resource: configmaps}], ranges: {}}")).create();
        try {
            GenericKubernetesResource stored = rings().withName("crd-it-ranges").get();
            assertThat((Object) stored.get("spec", "ranges")).isEqualTo(java.util.Map.of("key", "uid", "buckets", 64));
            GenericKubernetesResource changed = ring("crd-it-ranges",
                    "spec: {resources: [{resource: configmaps}], ranges: {key: namespace}}");
            changed.getMetadata().setResourceVersion(stored.getMetadata().getResourceVersion());
            assertThatThrownBy(() -> rings().resource(changed).update())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(422);
                        assertThat(e.getStatus().getMessage()).contains("spec.ranges.key cannot be changed");
                    });
            GenericKubernetesResource moreBuckets = ring("crd-it-ranges",
                    "spec: {resources: [{resource: configmaps}], ranges: {buckets: 256}}");
            moreBuckets.getMetadata().setResourceVersion(stored.getMetadata().getResourceVersion());
            rings().resource(moreBuckets).update();
            assertThat((Object) rings().withName("crd-it-ranges").get().get("spec", "ranges"))
                    .isEqualTo(java.util.Map.of("key", "uid", "buckets", 256));
        } finally {
            rings().withName("crd-it-ranges").delete();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidRings")
    void anInvalidRingIsRejectedWith422AndSaysWhy(String description, String name, String spec, String message) {
        GenericKubernetesResource ring = ring(name, spec);

        assertThatThrownBy(() -> rings().resource(ring).create())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getStatus().getReason()).isEqualTo("Invalid");
                    assertThat(e.getStatus().getMessage())
                            .startsWith("ClusterRing.sharding.timebertt.dev \"" + name + "\" is invalid: ")
                            .contains(message);
                });
        assertThat(rings().withName(name).get()).isNull();
    }

    @Test
    void aValidRingIsStoredAsWrittenAndUnknownFieldsArePruned() {
        GenericKubernetesResource written = ring("crd-it-valid", """
                spec:
                  resources:
                  - group: ""
                    resource: configmaps
                    interpreter: namespace
                    controlledResources:
                    - {group: "", resource: secrets}
                  - {group: apps, resource: deployments}
                  namespaceSelector:
                    matchLabels: {role: project}
                    matchExpressions: [{key: tier, operator: In, values: [gold]}]
                  strategy: rendezvous
                  shardCount: 3
                """);
        rings().resource(written).create();

        ClusterRing stored = typedRings().withName("crd-it-valid").get();
        assertThat(stored.getSpec().getResources()).hasSize(2);
        RingResourceSpec configMaps = stored.getSpec().getResources().get(0);
        assertThat(configMaps.getGroup()).isEmpty();
        assertThat(configMaps.getResource()).isEqualTo("configmaps");
        assertThat(configMaps.getInterpreter()).isEqualTo("namespace");
        assertThat(configMaps.getControlledResources()).containsExactly(new GroupResource("", "secrets"));
        assertThat(stored.getSpec().getResources().get(1)).isEqualTo(new GroupResource("apps", "deployments"));
        assertThat(stored.getSpec().getNamespaceSelector()).isEqualTo(new LabelSelectorBuilder()
                .addToMatchLabels("role", "project")
                .addNewMatchExpression().withKey("tier").withOperator("In").withValues("gold").endMatchExpression()
                .build());
        assertThat(stored.getSpec().getStrategy()).isEqualTo("rendezvous");
        // a field the schema does not know (a typo, a field of a newer release) is dropped, not kept
        Map<String, Object> rawSpec = rings().withName("crd-it-valid").get().get("spec");
        assertThat(rawSpec).containsOnlyKeys("resources", "namespaceSelector", "strategy");

        String longestName = "crd-it-" + "n".repeat(56);
        assertThat(longestName).hasSize(63);
        rings().resource(ring(longestName, VALID_SPEC)).create();
        assertThat(rings().withName(longestName).get()).isNotNull();
    }

    @Test
    void theStatusSubresourceWritesOnlyStatusAndTheMainResourceOnlyTheRest() {
        ClusterRing ring = configMapRing("crd-it-status");
        ring.setStatus(status(7, 7, "True"));
        ClusterRing created = typedRings().resource(ring).create();
        assertThat(created.getMetadata().getGeneration()).isEqualTo(1L);
        assertThat(rings().withName("crd-it-status").get().getAdditionalProperties())
                .as("a create does not write the status").doesNotContainKey("status");

        // status write: the status is stored, a spec change in the same request is ignored
        created.setStatus(status(3, 2, "True"));
        created.getSpec().setStrategy("set-through-status");
        ClusterRing afterStatus = typedRings().resource(created).updateStatus();
        assertThat(afterStatus.getMetadata().getGeneration()).isEqualTo(1L);
        ClusterRing stored = typedRings().withName("crd-it-status").get();
        assertThat(stored.getSpec().getStrategy()).isNull();
        assertThat(stored.getStatus().getShards()).isEqualTo(3);
        assertThat(stored.getStatus().getAvailableShards()).isEqualTo(2);
        assertThat(stored.getStatus().getObservedGeneration()).isEqualTo(1L);
        assertThat(stored.getStatus().getConditions()).extracting(c -> c.getType() + "=" + c.getStatus())
                .containsExactly("Ready=True", "Other=False");

        // main resource write: the spec change is stored and counts as a new generation; the status is not
        stored.getSpec().setStrategy("rendezvous");
        stored.setStatus(status(9, 9, "False"));
        typedRings().resource(stored).update();
        ClusterRing afterSpec = typedRings().withName("crd-it-status").get();
        assertThat(afterSpec.getSpec().getStrategy()).isEqualTo("rendezvous");
        assertThat(afterSpec.getMetadata().getGeneration()).isEqualTo(2L);
        assertThat(afterSpec.getStatus().getShards()).isEqualTo(3);
        assertThat(afterSpec.getStatus().getConditions()).extracting(c -> c.getType() + "=" + c.getStatus())
                .containsExactly("Ready=True", "Other=False");

        // the status schema applies to status writes
        GenericKubernetesResource badStatus = rings().withName("crd-it-status").get();
        badStatus.setAdditionalProperty("status", Map.of("shards", "three"));
        assertThatThrownBy(() -> rings().resource(badStatus).updateStatus())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getStatus().getMessage()).contains(
                            "status.shards: Invalid value: \"string\": shards in body must be of type integer");
                });
    }

    @Test
    void printerColumnsShowReadyAvailableShardsAndAge() throws Exception {
        ClusterRing ring = configMapRing("crd-it-columns");
        ClusterRing created = typedRings().resource(ring).create();
        created.setStatus(status(5, 4, "True"));
        typedRings().resource(created).updateStatus();

        JsonNode table = getAsTable("/apis/sharding.timebertt.dev/v1alpha1/clusterrings/crd-it-columns");

        assertThat(table.path("kind").asText()).isEqualTo("Table");
        // the generator orders the columns by JSON path (docs/sharder.md); Name comes first on its own
        assertThat(table.path("columnDefinitions").findValuesAsText("name"))
                .containsExactly("Name", "Age", "Available", "Ready", "Shards");
        assertThat(table.path("rows")).hasSize(1);
        JsonNode cells = table.path("rows").get(0).path("cells");
        assertThat(cells.get(0).asText()).isEqualTo("crd-it-columns");
        assertThat(cells.get(1).asText()).as("an age, as kubectl shows it").matches("\\d+[smhdy](\\d+[smh])?");
        assertThat(cells.get(2).isInt()).isTrue();
        assertThat(cells.get(2).asInt()).isEqualTo(4);
        assertThat(cells.get(3).asText()).as("the Ready condition's status, not Other's").isEqualTo("True");
        assertThat(cells.get(4).asInt()).isEqualTo(5);

        // a ring the sharder has not reported on yet shows empty cells, not errors
        typedRings().resource(configMapRing("crd-it-columns-fresh")).create();
        JsonNode freshCells = getAsTable("/apis/sharding.timebertt.dev/v1alpha1/clusterrings/crd-it-columns-fresh")
                .path("rows").get(0).path("cells");
        assertThat(freshCells.get(2).isNull()).isTrue();
        assertThat(freshCells.get(3).isNull()).isTrue();
        assertThat(freshCells.get(4).isNull()).isTrue();
    }

    private static ClusterRing configMapRing(String name) {
        ClusterRing ring = new ClusterRing();
        ring.getMetadata().setName(name);
        ring.getSpec().getResources().add(new RingResourceSpec("", "configmaps", List.of()));
        return ring;
    }

    /** A status of the sharder's shape, with a second condition the Ready column must not show. */
    private static RingStatus status(int shards, int available, String ready) {
        String now = ZonedDateTime.now().truncatedTo(ChronoUnit.SECONDS).format(DateTimeFormatter.ISO_INSTANT);
        RingStatus status = new RingStatus();
        status.setObservedGeneration(1L);
        status.setShards(shards);
        status.setAvailableShards(available);
        status.setConditions(List.of(
                new ConditionBuilder().withType("Ready").withStatus(ready).withReason("ReconciliationSucceeded")
                        .withMessage("test").withLastTransitionTime(now).withObservedGeneration(1L).build(),
                new ConditionBuilder().withType("Other").withStatus("False").withReason("Test")
                        .withMessage("test").withLastTransitionTime(now).build()));
        return status;
    }

    /** GET with the Table representation kubectl asks for, with the admin's credentials. */
    private static JsonNode getAsTable(String path) throws Exception {
        HttpRequest request = ADMIN.getHttpClient().newHttpRequestBuilder()
                .uri(ADMIN.getMasterUrl().toString().replaceAll("/$", "") + path).header("Accept", TABLE).build();
        HttpResponse<String> response = ADMIN.getHttpClient().sendAsync(request, String.class).get(30, TimeUnit.SECONDS);
        assertThat(response.code()).as(response.body()).isEqualTo(200);
        return ADMIN.getKubernetesSerialization().unmarshal(response.body(), JsonNode.class);
    }

    private static GenericKubernetesResource ring(String name, String spec) {
        return ADMIN.getKubernetesSerialization().unmarshal("""
                apiVersion: sharding.timebertt.dev/v1alpha1
                kind: ClusterRing
                metadata: {name: %s}
                %s
                """.formatted(name, spec), GenericKubernetesResource.class);
    }

    private static NonNamespaceOperation<GenericKubernetesResource, ?, Resource<GenericKubernetesResource>> rings() {
        return ADMIN.genericKubernetesResources(RINGS);
    }

    private static MixedOperation<ClusterRing, ?, Resource<ClusterRing>> typedRings() {
        return ADMIN.resources(ClusterRing.class);
    }
}
