package dev.ringmaster.sharder.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class LabelWriterTest {

    KubernetesClient client;
    KubernetesMockServer server;

    private static final ResolvedResource CONFIG_MAPS = new ResolvedResource("", "v1", "configmaps", "ConfigMap", true);

    private ConfigMap configMap() {
        return client.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withNamespace("default")
                .withName("cm").addToLabels("keep", "me").addToLabels("drain", "true").endMetadata().build()).create();
    }

    @Test
    void aMoveIsOnePatchRequestThatSetsAndRemovesLabels() throws Exception {
        ConfigMap created = configMap();
        int before = server.getRequestCount();
        Map<String, String> labels = new HashMap<>();
        labels.put("shard", "shard-1");
        labels.put("drain", null);
        assertThat(new LabelWriter(client).write(CONFIG_MAPS, "default", "cm",
                created.getMetadata().getResourceVersion(), labels)).isEqualTo(LabelWriter.Outcome.WRITTEN);
        assertThat(server.getRequestCount() - before).as("no GET before the PATCH").isEqualTo(1);
        assertThat(server.getLastRequest().getMethod()).isEqualTo("PATCH");
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
