package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DrainAcknowledgerTest extends MockServerTestBase {

    private final ShardLabels labels = ShardLabels.of("example", "shard-0");
    private DrainAcknowledger acknowledger;

    @BeforeEach
    void setUp() {
        acknowledger = new DrainAcknowledger(client, labels);
    }

    @Test
    void removesBothLabelsOnceAndKeepsTheRest() throws InterruptedException {
        ConfigMap seen = create("cm", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), "", "app", "demo"));
        int before = server.getRequestCount();

        assertThat(acknowledger.acknowledgeIfDraining(seen)).isTrue();

        assertThat(server.getRequestCount() - before).as("one write").isEqualTo(1);
        assertThat(server.getLastRequest().getMethod()).isEqualTo("PATCH");
        ConfigMap stored = get("cm");
        assertThat(stored.getMetadata().getLabels()).containsOnly(Map.entry("app", "demo"));
        assertThat(stored.getData()).containsEntry("k", "v");
    }

    @Test
    void aControllerRingShardRemovesItsRingsLabelsOnly() {
        DrainAcknowledger controllerRing = controllerRingAcknowledger();
        // labels of the ControllerRing "example" and, as during a migration, of the ClusterRing "example"
        ConfigMap seen = create("cm", Map.of(
                "shard.alpha.sharding.timebertt.dev/example", "shard-0",
                "drain.alpha.sharding.timebertt.dev/example", "true",
                "shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example", "shard-0",
                "app", "demo"));

        assertThat(controllerRing.acknowledgeIfDraining(seen)).isTrue();

        assertThat(get("cm").getMetadata().getLabels()).containsOnly(
                Map.entry("shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example", "shard-0"),
                Map.entry("app", "demo"));
    }

    @Test
    void aClusterRingDrainDoesNotConcernAControllerRingShard() {
        DrainAcknowledger controllerRing = controllerRingAcknowledger();
        ConfigMap seen = create("cm", Map.of(
                "shard.alpha.sharding.timebertt.dev/example", "shard-0",
                "drain.alpha.sharding.timebertt.dev/clusterring-50d858e0-example", "true"));
        int before = server.getRequestCount();

        assertThat(controllerRing.acknowledgeIfDraining(seen)).isFalse();

        assertThat(server.getRequestCount()).as("no requests").isEqualTo(before);
    }

    @Test
    void isIdempotentWhenTheEventIsDeliveredAgain() {
        ConfigMap seen = create("cm", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), ""));
        assertThat(acknowledger.acknowledgeIfDraining(seen)).isTrue();
        String version = get("cm").getMetadata().getResourceVersion();

        // the same (now stale) event again, e.g. a resync or a retry: no second write
        assertThat(acknowledger.acknowledgeIfDraining(seen)).isTrue();
        assertThat(acknowledger.acknowledgeIfDraining(seen)).isTrue();

        assertThat(get("cm").getMetadata().getResourceVersion()).isEqualTo(version);
    }

    @Test
    void aConflictReReadsAndRetries() {
        ConfigMap seen = create("cm", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), ""));
        client.configMaps().inNamespace(namespace).withName("cm")
                .edit(cm -> new ConfigMapBuilder(cm).editMetadata().addToLabels("written", "meanwhile").endMetadata().build());

        assertThat(acknowledger.acknowledgeIfDraining(seen)).isTrue();

        assertThat(get("cm").getMetadata().getLabels()).containsOnly(Map.entry("written", "meanwhile"));
    }

    @Test
    void aWithdrawnDrainLeavesTheObjectWithThisShard() {
        ConfigMap seen = create("cm", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), ""));
        client.configMaps().inNamespace(namespace).withName("cm")
                .edit(cm -> new ConfigMapBuilder(cm).editMetadata().removeFromLabels(labels.drainLabel()).endMetadata().build());

        assertThat(acknowledger.acknowledgeIfDraining(seen)).isFalse();

        assertThat(get("cm").getMetadata().getLabels()).containsOnly(Map.entry(labels.shardLabel(), "shard-0"));
    }

    @Test
    void objectsOfOtherShardsAndUndrainedObjectsAreLeftAlone() {
        ConfigMap other = create("other", Map.of(labels.shardLabel(), "shard-1", labels.drainLabel(), ""));
        ConfigMap mine = create("mine", Map.of(labels.shardLabel(), "shard-0"));
        int before = server.getRequestCount();

        assertThat(acknowledger.acknowledgeIfDraining(other)).isFalse();
        assertThat(acknowledger.acknowledgeIfDraining(mine)).isFalse();

        assertThat(server.getRequestCount()).as("no requests").isEqualTo(before);
        assertThat(get("other").getMetadata().getLabels()).containsKeys(labels.shardLabel(), labels.drainLabel());
    }

    @Test
    void handlesGenericObjects() {
        server.expect().get().withPath("/api/v1").andReturn(200, new APIResourceListBuilder().withGroupVersion("v1")
                .addNewResource().withName("configmaps").withKind("ConfigMap").withNamespaced(true).endResource()
                .build()).always();
        create("cm", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), "true"));
        GenericKubernetesResource seen = client.genericKubernetesResources("v1", "ConfigMap")
                .inNamespace(namespace).withName("cm").get();

        assertThat(acknowledger.acknowledgeIfDraining(seen)).isTrue();

        assertThat(get("cm").getMetadata().getLabels()).isNullOrEmpty();
    }

    /** The acknowledger of shard-0 of the ControllerRing "example". */
    private DrainAcknowledger controllerRingAcknowledger() {
        return new DrainAcknowledger(client, ShardLabels.of(RingKind.CONTROLLER_RING, "example", "shard-0"));
    }

    private ConfigMap create(String name, Map<String, String> objectLabels) {
        return client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).withLabels(objectLabels).endMetadata()
                .addToData("k", "v").build()).create();
    }

    private ConfigMap get(String name) {
        return client.configMaps().inNamespace(namespace).withName(name).get();
    }
}
