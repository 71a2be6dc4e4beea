package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.testing.apiserver.AuditLog;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link DrainAcknowledger} on a real API server, as shard-0 of the ring "drain-ack-it" with the
 * permissions a shard has on a sharded resource (get, patch): its JSON patch pins the resourceVersion
 * read, so the server's optimistic locking decides, not the mock server's leniency.
 */
class DrainAcknowledgerIT {

    private static final String NAMESPACE = "drain-ack-it";
    private static final String SHARD = "system:serviceaccount:" + NAMESPACE + ":shard-0";
    /** The labels of the ring "drain-ack-it" (sha256 of the name starts with 0a9f45f6). */
    private static final String SHARD_LABEL = "shard.alpha.sharding.timebertt.dev/clusterring-0a9f45f6-drain-ack-it";
    private static final String DRAIN_LABEL = "drain.alpha.sharding.timebertt.dev/clusterring-0a9f45f6-drain-ack-it";

    private static final RealApiServer CLUSTER = RealApiServer.shared();
    private static final KubernetesClient ADMIN = CLUSTER.admin();
    private static KubernetesClient shard;
    private static DrainAcknowledger acknowledger;

    @BeforeAll
    static void actAsTheShard() {
        shard = CLUSTER.clientAs(NAMESPACE, "shard-0", List.of(
                new PolicyRuleBuilder().withApiGroups("").withResources("configmaps")
                        .withVerbs("get", "patch").build()));
        acknowledger = new DrainAcknowledger(shard, ShardLabels.of("drain-ack-it", "shard-0"));
    }

    @AfterAll
    static void closeClient() {
        shard.close();
    }

    @Test
    void handingBackRemovesTheShardAndTheDrainLabelAndNothingElse() {
        ConfigMap seen = create("handed-back", Map.of(SHARD_LABEL, "shard-0", DRAIN_LABEL, "true", "app", "demo"));

        assertThat(acknowledger.acknowledgeIfDraining(seen)).isTrue();

        ConfigMap stored = get("handed-back");
        assertThat(stored.getMetadata().getLabels()).containsOnly(entry("app", "demo"));
        assertThat(stored.getData()).containsOnly(entry("k", "v"));
        await().untilAsserted(() -> assertThat(shardPatches("handed-back")).containsExactly(200));
    }

    @Test
    void aStaleAcknowledgementIsARealConflictAndKeepsWhatWasWrittenMeanwhile() {
        ConfigMap seen = create("changed", Map.of(SHARD_LABEL, "shard-0", DRAIN_LABEL, "true", "app", "demo"));
        // after the shard's informer delivered it: a user changes a label and adds one, and the data
        ADMIN.configMaps().inNamespace(NAMESPACE).withName("changed").edit(cm -> new ConfigMapBuilder(cm)
                .editMetadata().addToLabels("app", "changed").addToLabels("written", "meanwhile").endMetadata()
                .addToData("k2", "v2").build());

        assertThat(acknowledger.acknowledgeIfDraining(seen)).isTrue();

        ConfigMap stored = get("changed");
        assertThat(stored.getMetadata().getLabels()).containsOnly(entry("app", "changed"), entry("written", "meanwhile"));
        assertThat(stored.getData()).containsOnly(entry("k", "v"), entry("k2", "v2"));
        await().untilAsserted(() -> assertThat(shardPatches("changed")).as("409, re-read, then the hand-back")
                .containsExactly(409, 200));
    }

    @Test
    void aStaleEventOfAnObjectAlreadyOnAnotherShardLeavesItThere() {
        ConfigMap seen = create("moved-on", Map.of(SHARD_LABEL, "shard-0", DRAIN_LABEL, "true", "app", "demo"));
        assertThat(acknowledger.acknowledgeIfDraining(seen)).isTrue();
        // the sharder assigns the object handed back to its new shard
        ADMIN.configMaps().inNamespace(NAMESPACE).withName("moved-on").edit(cm -> new ConfigMapBuilder(cm)
                .editMetadata().addToLabels(SHARD_LABEL, "shard-1").endMetadata().build());

        // the old event again (a resync, a retry)
        assertThat(acknowledger.acknowledgeIfDraining(seen)).isTrue();

        assertThat(get("moved-on").getMetadata().getLabels()).containsOnly(entry(SHARD_LABEL, "shard-1"), entry("app", "demo"));
        await().untilAsserted(() -> assertThat(shardPatches("moved-on")).containsExactly(200, 409));
    }

    @Test
    void aDrainWithdrawnMeanwhileLeavesTheObjectWithThisShard() {
        ConfigMap seen = create("withdrawn", Map.of(SHARD_LABEL, "shard-0", DRAIN_LABEL, "true", "app", "demo"));
        ADMIN.configMaps().inNamespace(NAMESPACE).withName("withdrawn").edit(cm -> new ConfigMapBuilder(cm)
                .editMetadata().removeFromLabels(DRAIN_LABEL).endMetadata().build());

        assertThat(acknowledger.acknowledgeIfDraining(seen)).isFalse();

        assertThat(get("withdrawn").getMetadata().getLabels()).containsOnly(entry(SHARD_LABEL, "shard-0"), entry("app", "demo"));
        await().untilAsserted(() -> assertThat(shardPatches("withdrawn")).containsExactly(409));
    }

    @Test
    void anObjectStrippedOfAllLabelsMeanwhileIsNoLongerThisShards() {
        ConfigMap seen = create("stripped", Map.of(SHARD_LABEL, "shard-0", DRAIN_LABEL, "true"));
        // the shard's patch was computed from labels that are gone now; the version pin rejects it (409)
        ADMIN.configMaps().inNamespace(NAMESPACE).withName("stripped").edit(cm -> new ConfigMapBuilder(cm)
                .editMetadata().withLabels(null).endMetadata().build());
        String version = get("stripped").getMetadata().getResourceVersion();

        assertThat(acknowledger.acknowledgeIfDraining(seen)).isTrue();

        ConfigMap stored = get("stripped");
        assertThat(stored.getMetadata().getLabels()).isNullOrEmpty();
        assertThat(stored.getMetadata().getResourceVersion()).isEqualTo(version);
        await().untilAsserted(() -> assertThat(shardPatches("stripped")).containsExactly(409));
    }

    @Test
    void handsBackAGenericObjectResolvedThroughDiscovery() {
        create("generic", Map.of(SHARD_LABEL, "shard-0", DRAIN_LABEL, "true", "app", "demo"));
        GenericKubernetesResource seen = shard.genericKubernetesResources("v1", "ConfigMap").inNamespace(NAMESPACE)
                .withName("generic").get();

        assertThat(acknowledger.acknowledgeIfDraining(seen)).isTrue();

        assertThat(get("generic").getMetadata().getLabels()).containsOnly(entry("app", "demo"));
    }

    private static ConfigMap create(String name, Map<String, String> labels) {
        return ADMIN.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata()
                .withName(name).withLabels(labels).endMetadata().addToData("k", "v").build()).create();
    }

    private static ConfigMap get(String name) {
        return ADMIN.configMaps().inNamespace(NAMESPACE).withName(name).get();
    }

    /** Status codes of the shard's patches of the object, as the API server logged them. */
    private static List<Integer> shardPatches(String name) {
        return CLUSTER.audit().events().stream()
                .filter(e -> SHARD.equals(e.user()) && "patch".equals(e.verb()) && "configmaps".equals(e.resource())
                        && NAMESPACE.equals(e.namespace()) && name.equals(e.name()))
                .map(AuditLog.Event::code)
                .toList();
    }
}
