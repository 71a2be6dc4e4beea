package dev.ringmaster.sharder.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.sharder.ring.Move;
import dev.ringmaster.testing.apiserver.AuditLog;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link LabelWriter} on a real API server, used as the sharder uses it: the resource resolved through
 * discovery, the labels of the sharder's moves, and a ServiceAccount holding only what the sharder
 * holds on a sharded resource (list, watch, patch; no get). The mock server keeps the null values of
 * a merge patch and is no judge of what a real server does with a stale resourceVersion.
 */
class LabelWriterIT {

    private static final String NAMESPACE = "label-writer-it";
    private static final String SHARDER = "system:serviceaccount:" + NAMESPACE + ":sharder";
    /** The labels of the ring "label-writer-it" (RingContract; sha256 of the name starts with bc41dab3). */
    private static final String SHARD_LABEL = "shard.alpha.sharding.timebertt.dev/clusterring-bc41dab3-label-writer-it";
    private static final String DRAIN_LABEL = "drain.alpha.sharding.timebertt.dev/clusterring-bc41dab3-label-writer-it";

    private static final RealApiServer CLUSTER = RealApiServer.shared();
    private static final KubernetesClient ADMIN = CLUSTER.admin();
    private static KubernetesClient sharder;
    private static LabelWriter writer;
    private static ResolvedResource configMaps;

    @BeforeAll
    static void actAsTheSharder() {
        sharder = CLUSTER.clientAs(NAMESPACE, "sharder", List.of(
                new PolicyRuleBuilder().withApiGroups("").withResources("configmaps")
                        .withVerbs("list", "watch", "patch").build()));
        configMaps = new ResourceCatalog(sharder).resolve("", "configmaps").orElseThrow();
        writer = new LabelWriter(sharder);
    }

    @AfterAll
    static void closeClient() {
        sharder.close();
    }

    @Test
    void aReassignmentSetsTheShardLabelAndReallyRemovesTheDrainLabel() {
        ConfigMap seen = create("reassigned", Map.of(SHARD_LABEL, "shard-0", DRAIN_LABEL, "true", "app", "demo"));

        assertThat(write(seen, new Move.Reassign("shard-0", "shard-1"))).isEqualTo(LabelWriter.Outcome.WRITTEN);

        assertThat(labels("reassigned")).containsOnly(entry(SHARD_LABEL, "shard-1"), entry("app", "demo"));
        // one request: the sharder may not even read the object (no get), and wrote it once
        await().untilAsserted(() -> assertThat(sharderPatches("reassigned")).containsExactly(200));
    }

    @Test
    void anAssignmentRemovesADrainLabelLeftWithoutShard() {
        ConfigMap seen = create("assigned", Map.of(DRAIN_LABEL, "true", "app", "demo"));

        assertThat(write(seen, new Move.Assign("shard-2"))).isEqualTo(LabelWriter.Outcome.WRITTEN);

        assertThat(labels("assigned")).containsOnly(entry(SHARD_LABEL, "shard-2"), entry("app", "demo"));
    }

    @Test
    void aDrainAddsTheDrainLabelAndKeepsTheShard() {
        ConfigMap seen = create("drained", Map.of(SHARD_LABEL, "shard-0", "app", "demo"));

        assertThat(write(seen, new Move.Drain("shard-0"))).isEqualTo(LabelWriter.Outcome.WRITTEN);

        assertThat(labels("drained"))
                .containsOnly(entry(SHARD_LABEL, "shard-0"), entry(DRAIN_LABEL, "true"), entry("app", "demo"));
    }

    @Test
    void aWriteOnAStaleVersionIsARealConflictAndTheConcurrentChangeWins() {
        ConfigMap seen = create("stale", Map.of(SHARD_LABEL, "shard-0", DRAIN_LABEL, "true", "app", "demo"));
        // the shard hands the object back after the sharder read it
        ADMIN.configMaps().inNamespace(NAMESPACE).withName("stale").edit(cm -> new ConfigMapBuilder(cm).editMetadata()
                .removeFromLabels(SHARD_LABEL).removeFromLabels(DRAIN_LABEL).endMetadata().build());

        assertThat(write(seen, new Move.Reassign("shard-0", "shard-1"))).isEqualTo(LabelWriter.Outcome.CONFLICT);

        assertThat(labels("stale")).containsOnly(entry("app", "demo"));
        await().untilAsserted(() -> assertThat(sharderPatches("stale")).containsExactly(409));

        // as the sharder does next: decide again on the object as it is now
        ConfigMap fresh = ADMIN.configMaps().inNamespace(NAMESPACE).withName("stale").get();
        assertThat(write(fresh, new Move.Assign("shard-1"))).isEqualTo(LabelWriter.Outcome.WRITTEN);
        assertThat(labels("stale")).containsOnly(entry(SHARD_LABEL, "shard-1"), entry("app", "demo"));
    }

    @Test
    void aDeletedObjectIsGone() {
        ConfigMap seen = create("deleted", Map.of(SHARD_LABEL, "shard-0"));
        ADMIN.configMaps().inNamespace(NAMESPACE).withName("deleted").delete();
        await().until(() -> ADMIN.configMaps().inNamespace(NAMESPACE).withName("deleted").get() == null);

        assertThat(write(seen, new Move.Reassign("shard-0", "shard-1"))).isEqualTo(LabelWriter.Outcome.GONE);

        await().untilAsserted(() -> assertThat(sharderPatches("deleted")).containsExactly(404));
    }

    /** The write the sharder makes for this move of the object as it read it (RingView.labelChanges). */
    private static LabelWriter.Outcome write(ConfigMap seen, Move move) {
        Map<String, String> changes = move.labelChanges(seen.getMetadata().getLabels(), SHARD_LABEL, DRAIN_LABEL);
        return writer.write(configMaps, NAMESPACE, seen.getMetadata().getName(), seen.getMetadata().getResourceVersion(),
                changes);
    }

    private static ConfigMap create(String name, Map<String, String> labels) {
        return ADMIN.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata()
                .withName(name).withLabels(labels).endMetadata().addToData("k", "v").build()).create();
    }

    private static Map<String, String> labels(String name) {
        Map<String, String> labels = ADMIN.configMaps().inNamespace(NAMESPACE).withName(name).get().getMetadata()
                .getLabels();
        return labels == null ? Map.of() : labels;
    }

    /** Status codes of the sharder's patches of the object, as the API server logged them. */
    private static List<Integer> sharderPatches(String name) {
        return CLUSTER.audit().events().stream()
                .filter(e -> SHARDER.equals(e.user()) && "patch".equals(e.verb()) && "configmaps".equals(e.resource())
                        && NAMESPACE.equals(e.namespace()) && name.equals(e.name()))
                .map(AuditLog.Event::code)
                .toList();
    }
}
