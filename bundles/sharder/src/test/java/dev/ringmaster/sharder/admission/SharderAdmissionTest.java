package dev.ringmaster.sharder.admission;

import static dev.ringmaster.sharder.testing.PinnedPlacements.RENDEZVOUS_TWO_SHARDS;
import static dev.ringmaster.sharder.testing.TestRings.configMapControllerRing;
import static dev.ringmaster.sharder.testing.TestRings.configMapRing;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.ring.spi.AdmissionResponse.PatchOperation;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.app.SharderMetrics;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingStatus;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.StrategyBinding;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every branch of the sharder's webhook (docs/design.md section 5), on in-memory ring views. */
class SharderAdmissionTest {

    private static final String RING = "example";
    private static final RingKey KEY = RingKey.clusterRing(RING);
    private static final String PATH = RingContract.webhookPath(RING);
    private static final String SHARD_LABEL = RingContract.shardLabel(RING);

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private static final Map<String, ResourceInterpreter> INTERPRETERS =
            Map.of(DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter());

    private final RingRegistry registry = new RingRegistry();
    private final SharderAdmission admission = new SharderAdmission(registry, new SharderMetrics(meters));

    @BeforeEach
    void ring() {
        registry.update(inputs -> inputs.withDefaultStrategy("rendezvous")
                .withStrategies(Map.of("rendezvous", new StrategyBinding(new RendezvousStrategy(), Map.of())))
                .withInterpreters(INTERPRETERS)
                .withRings(RingKind.CLUSTER_RING, List.of(configMapRing(RING)))
                .withMembership(new Membership(Map.of(KEY, List.of(new ShardInfo("shard-0", ShardState.READY, 1),
                        new ShardInfo("shard-1", ShardState.READY, 1), new ShardInfo("shard-2", ShardState.DEAD, 1))))));
    }

    @Test
    void pathPrefixCoversTheWebhookPathsOfBothKinds() {
        assertThat(RingKind.CLUSTER_RING.webhookPath("web")).isEqualTo("/webhooks/sharder/clusterring/web")
                .startsWith(SharderAdmission.PATH_PREFIX);
        assertThat(RingKind.CONTROLLER_RING.webhookPath("web")).isEqualTo("/webhooks/sharder/controllerring/web")
                .startsWith(SharderAdmission.PATH_PREFIX);
    }

    @Test
    void anObjectWithoutLabelsGetsTheLabelsMap() {
        AdmissionResponse response = admission.handle(PATH, configMap(metadata("cm-1")));

        assertThat(response.allowed()).isTrue();
        assertThat(response.patch()).containsExactly(new PatchOperation("add", "/metadata/labels",
                Map.of(SHARD_LABEL, RENDEZVOUS_TWO_SHARDS.shardOf("cm-1"))));
        assertThat(meters.get("controller.sharding.assignments").tag("clusterring", RING)
                .tag("resource", "configmaps").counter().count()).isEqualTo(1);
    }

    /**
     * A ControllerRing of the same name is another ring: its own path, label (the ring's name, no
     * hash) and shards, and its own metric label.
     */
    @Test
    void aControllerRingOfTheSameNameIsAnotherRingWithItsOwnContract() {
        RingKey controllerRing = RingKey.controllerRing(RING);
        registry.update(inputs -> inputs.withRings(RingKind.CONTROLLER_RING, List.of(configMapControllerRing(RING)))
                .withMembership(new Membership(Map.of(KEY, inputs.membership().shards(KEY),
                        controllerRing, List.of(new ShardInfo("ctrl-0", ShardState.READY, 1))))));

        AdmissionResponse response = admission.handle("/webhooks/sharder/controllerring/" + RING,
                configMap(metadata("cm-1")));

        assertThat(response.patch()).containsExactly(new PatchOperation("add", "/metadata/labels",
                Map.of("shard.alpha.sharding.timebertt.dev/" + RING, "ctrl-0")));
        assertThat(admission.handle(PATH, configMap(metadata("cm-1"))).patch()).containsExactly(new PatchOperation(
                "add", "/metadata/labels", Map.of(SHARD_LABEL, RENDEZVOUS_TWO_SHARDS.shardOf("cm-1"))));
        assertThat(meters.get("controller.sharding.assignments").tags("controllerring", RING, "clusterring", "")
                .counter().count()).isEqualTo(1);
        assertThat(meters.get("controller.sharding.assignments").tags("clusterring", RING, "controllerring", "")
                .counter().count()).isEqualTo(1);
        assertThat(admission.handle("/webhooks/sharder/controllerring/other", configMap(metadata("cm-1"))).warnings())
                .singleElement().asString().contains("ControllerRing other does not exist");
    }

    @Test
    void anObjectWithLabelsGetsOneEscapedLabel() {
        Map<String, Object> metadata = metadata("cm-1");
        metadata.put("labels", Map.of("app", "demo"));

        AdmissionResponse response = admission.handle(PATH, configMap(metadata));

        assertThat(response.patch()).containsExactly(new PatchOperation("add",
                "/metadata/labels/shard.alpha.sharding.timebertt.dev~1" + RingContract.ringSuffix(RING), RENDEZVOUS_TWO_SHARDS.shardOf("cm-1")));
        assertThat(SharderAdmission.escapeJsonPointer("a~b/c")).isEqualTo("a~0b~1c");
    }

    @Test
    void onlyAvailableShardsAreChosen() {
        for (int i = 0; i < 200; i++) {
            PatchOperation patch = admission.handle(PATH, configMap(metadata("cm-" + i))).patch().get(0);
            assertThat(((Map<?, ?>) patch.value()).get(SHARD_LABEL)).isIn("shard-0", "shard-1");
        }
    }

    @Test
    void anObjectAlreadyLabelledIsLeftAlone() {
        Map<String, Object> metadata = metadata("cm-1");
        metadata.put("labels", Map.of(SHARD_LABEL, "shard-1"));

        assertThat(admission.handle(PATH, configMap(metadata))).isEqualTo(AdmissionResponse.allow());
    }

    /** cm-8 is on shard-1, while the Secret's own key, /Secret/default/checksums-cm-8, would be on shard-0. */
    @Test
    void aControlledObjectFollowsItsController() {
        Map<String, Object> metadata = metadata("checksums-cm-8");
        metadata.put("ownerReferences", List.of(Map.of("apiVersion", "v1", "kind", "ConfigMap", "name", "cm-8",
                "uid", "u-8", "controller", true)));

        AdmissionResponse response = admission.handle(PATH, request("secrets", "Secret", metadata, false));

        assertThat(response.patch()).singleElement().extracting(PatchOperation::value)
                .isEqualTo(Map.of(SHARD_LABEL, RENDEZVOUS_TWO_SHARDS.shardOf("cm-8")));
    }

    @Test
    void aControlledObjectWithoutControllerIsLeftForLater() {
        assertThat(admission.handle(PATH, request("secrets", "Secret", metadata("loose"), false)))
                .isEqualTo(AdmissionResponse.allow());
    }

    @Test
    void generateNameOnAMainResourceIsDeniedWithTheReason() {
        Map<String, Object> metadata = metadata("");
        metadata.put("generateName", "cm-");

        AdmissionResponse response = admission.handle(PATH, configMap(metadata));

        assertThat(response.allowed()).isFalse();
        assertThat(response.code()).isEqualTo(400);
        assertThat(response.message()).contains("generateName", "cm-", "set metadata.name", RING);
    }

    @Test
    void aResourceOutsideTheRingIsAllowedWithAWarning() {
        AdmissionResponse response = admission.handle(PATH, request("pods", "Pod", metadata("p"), false));

        assertThat(response.allowed()).isTrue();
        assertThat(response.patch()).isEmpty();
        assertThat(response.warnings()).singleElement().asString().contains("pods", "not a resource of ClusterRing");
    }

    @Test
    void anUnknownRingIsAllowedWithAWarning() {
        AdmissionResponse response = admission.handle(RingContract.webhookPath("other"), configMap(metadata("cm-1")));

        assertThat(response.allowed()).isTrue();
        assertThat(response.patch()).isEmpty();
        assertThat(response.warnings()).singleElement().asString().contains("ClusterRing other does not exist");
    }

    @Test
    void withoutAvailableShardsTheObjectIsLeftForTheUnassignedWatch() {
        registry.update(inputs -> inputs.withMembership(new Membership(Map.of(KEY,
                List.of(new ShardInfo("shard-2", ShardState.DEAD, 1))))));

        assertThat(admission.handle(PATH, configMap(metadata("cm-1")))).isEqualTo(AdmissionResponse.allow());
    }

    @Test
    void withoutTheStrategyOrTheInterpreterTheObjectIsLeftForLater() {
        registry.update(inputs -> inputs.withInterpreters(Map.of()));
        assertThat(admission.handle(PATH, configMap(metadata("cm-1")))).isEqualTo(AdmissionResponse.allow());

        registry.update(inputs -> inputs.withInterpreters(INTERPRETERS));
        registry.update(inputs -> inputs.withStrategies(Map.of()));
        assertThat(admission.handle(PATH, configMap(metadata("cm-1")))).isEqualTo(AdmissionResponse.allow());
    }

    /** A replica that has a strategy the leader does not report in force yet (a plug-in delivered to it first). */
    @Test
    void aStrategyOtherThanTheOneTheStatusNamesLeavesTheObjectToTheLeader() {
        ClusterRing ring = configMapRing(RING);
        RingStatus status = new RingStatus();
        status.setConditions(List.of(new ConditionBuilder().withType("Ready").withStatus("False")
                .withReason("StrategyUnavailable").withMessage("partitioning strategy \"rendezvous\" (the sharder's"
                        + " default) is not available; still sharding with strategy \"consistent-hash\" (the strategy"
                        + " in force before)").build()));
        ring.setStatus(status);
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(ring)));

        assertThat(admission.handle(PATH, configMap(metadata("cm-1")))).isEqualTo(AdmissionResponse.allow());

        ClusterRing agreeing = configMapRing(RING);
        RingStatus ready = new RingStatus();
        ready.setConditions(List.of(new ConditionBuilder().withType("Ready").withStatus("True")
                .withMessage("sharding with strategy \"rendezvous\" (the sharder's default)").build()));
        agreeing.setStatus(ready);
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(agreeing)));
        assertThat(admission.handle(PATH, configMap(metadata("cm-1"))).patch()).isNotEmpty();
    }

    @Test
    void anInvalidRingAssignsNothing() {
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(configMapRing(RING, "Not_A_Name"))));

        AdmissionResponse response = admission.handle(PATH, configMap(metadata("cm-1")));

        assertThat(response.patch()).isEmpty();
        assertThat(response.warnings()).singleElement().asString().contains("invalid");
    }

    @Test
    void aDryRunIsAnsweredButNotCounted() {
        AdmissionResponse response = admission.handle(PATH, request("configmaps", "ConfigMap", metadata("cm-1"), true));

        assertThat(response.patch()).hasSize(1);
        assertThat(meters.find("controller.sharding.assignments").counter()).isNull();
    }

    @Test
    void deletesAndSubresourcesAreAllowedUntouched() {
        AdmissionRequest delete = new AdmissionRequest("u", "DELETE", "", "v1", "ConfigMap", "", "configmaps", "",
                "default", "cm-1", "tester", List.of(), false, Map.of(), Map.of("metadata", metadata("cm-1")));
        AdmissionRequest status = new AdmissionRequest("u", "UPDATE", "", "v1", "ConfigMap", "", "configmaps", "status",
                "default", "cm-1", "tester", List.of(), false, Map.of("metadata", metadata("cm-1")), Map.of());

        assertThat(admission.handle(PATH, delete)).isEqualTo(AdmissionResponse.allow());
        assertThat(admission.handle(PATH, status)).isEqualTo(AdmissionResponse.allow());
    }

    @Test
    void malformedMetadataCountsAsAbsent() {
        Map<String, Object> metadata = metadata("cm-1");
        metadata.put("labels", "not a map");
        metadata.put("ownerReferences", Map.of("not", "a list"));

        AdmissionResponse response = admission.handle(PATH, configMap(metadata));

        assertThat(response.patch()).singleElement().extracting(PatchOperation::path).isEqualTo("/metadata/labels");
    }

    private static Map<String, Object> metadata(String name) {
        Map<String, Object> metadata = new HashMap<>();
        metadata.put("name", name);
        metadata.put("namespace", "default");
        return metadata;
    }

    private static AdmissionRequest configMap(Map<String, Object> metadata) {
        return request("configmaps", "ConfigMap", metadata, false);
    }

    private static AdmissionRequest request(String resource, String kind, Map<String, Object> metadata, boolean dryRun) {
        return new AdmissionRequest("uid-1", "CREATE", "", "v1", kind, "", resource, "", "default",
                String.valueOf(metadata.get("name")), "tester", List.of(), dryRun, Map.of("metadata", metadata), Map.of());
    }

    @Test
    void aRangeModeRingAdmitsObjectsUnchanged() {
        ClusterRing ring = configMapRing(RING);
        ring.getSpec().setRanges(new dev.ringmaster.sharder.model.RingRanges());
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(ring)));
        assertThat(admission.handle(PATH, configMap(metadata("cm-1")))).isEqualTo(AdmissionResponse.allow());
        // without any strategy too
        registry.update(inputs -> inputs.withStrategies(Map.of()));
        assertThat(admission.handle(PATH, configMap(metadata("cm-1")))).isEqualTo(AdmissionResponse.allow());
    }
}
