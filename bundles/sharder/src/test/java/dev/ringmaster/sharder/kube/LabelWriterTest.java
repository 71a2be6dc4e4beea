package dev.ringmaster.sharder.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ringmaster.sharder.testing.RecordedRequests;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

@EnableCrudApiServer
class LabelWriterTest {

    KubernetesClient client;
    KubernetesMockServer server;

    private static final ResolvedResource CONFIG_MAPS = new ResolvedResource("", "v1", "configmaps", "ConfigMap", true);

    private ConfigMap configMap() {
        return client.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withNamespace("default")
                .withName("cm").addToLabels("keep", "me").addToLabels("drain", "true").endMetadata().build()).create();
    }

    @Test
    void aMoveIsOnePatchRequestThatSetsAndRemovesLabels() throws InterruptedException {
        ConfigMap created = configMap();
        Map<String, String> labels = new HashMap<>();
        labels.put("shard", "shard-1");
        labels.put("drain", null);
        RecordedRequests sent = new RecordedRequests();
        try (KubernetesClient recording = sent.clientLike(client)) {
            assertThat(new LabelWriter(recording).write(CONFIG_MAPS, "default", "cm",
                    created.getMetadata().getResourceVersion(), labels)).isEqualTo(LabelWriter.Outcome.WRITTEN);
        }
        assertThat(sent.all()).as("no GET before the PATCH").singleElement().satisfies(patch -> {
            assertThat(patch.method()).isEqualTo("PATCH");
            assertThat(patch.path()).isEqualTo("/api/v1/namespaces/default/configmaps/cm");
        });
        assertThat(server.getLastRequest().getHeader("Content-Type")).startsWith("application/merge-patch+json");
        // The mock server keeps the null values of a merge patch, so the stored labels cannot show the
        // drain label removed: the request must say so (null deletes a key; LabelWriterIT shows it gone
        // on a real API server), pinned to the version read, and touch no other label.
        JsonNode metadata = client.getKubernetesSerialization().unmarshal(sent.all().get(0).body(), JsonNode.class)
                .path("metadata");
        assertThat(metadata.path("resourceVersion").asText()).isEqualTo(created.getMetadata().getResourceVersion());
        JsonNode sentLabels = metadata.path("labels");
        assertThat(sentLabels.size()).isEqualTo(2);
        assertThat(sentLabels.path("shard").asText()).isEqualTo("shard-1");
        assertThat(sentLabels.has("drain")).as("drain sent as a key").isTrue();
        assertThat(sentLabels.get("drain").isNull()).as("drain sent as null, which deletes it").isTrue();
        assertThat(client.configMaps().inNamespace("default").withName("cm").get().getMetadata().getLabels())
                .containsEntry("shard", "shard-1").containsEntry("keep", "me");
    }

    @Test
    void aStaleVersionIsAConflictAndAMissingObjectIsGone() {
        ConfigMap created = configMap();
        client.configMaps().inNamespace("default").withName("cm")
                .edit(cm -> new ConfigMapBuilder(cm).editMetadata().addToLabels("edited", "yes").endMetadata().build());
        LabelWriter writer = new LabelWriter(client);
        assertThat(writer.write(CONFIG_MAPS, "default", "cm", created.getMetadata().getResourceVersion(),
                Map.of("shard", "shard-1"))).isEqualTo(LabelWriter.Outcome.CONFLICT);
        assertThat(client.configMaps().inNamespace("default").withName("cm").get().getMetadata().getLabels())
                .doesNotContainKey("shard");
        assertThat(writer.write(CONFIG_MAPS, "default", "missing", "1", Map.of("shard", "shard-1")))
                .isEqualTo(LabelWriter.Outcome.GONE);
    }
}
