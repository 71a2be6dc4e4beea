package dev.ringmaster.sharder.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

@EnableCrudApiServer
class WriteFenceTest {

    KubernetesClient client;
    KubernetesMockServer server;

    private final AtomicBoolean leading = new AtomicBoolean(true);

    private static ConfigMap configMap(String name) {
        return new ConfigMapBuilder().withNewMetadata().withNamespace("default").withName(name).endMetadata().build();
    }

    @Test
    void whileShutWritesFailUnsentAndReadsGoOn() {
        try (KubernetesClient fenced = WriteFence.guard(client, leading::get)) {
            fenced.configMaps().resource(configMap("before")).create();
            leading.set(false);
            int requestsBefore = server.getRequestCount();

            Throwable create = catchThrowable(() -> fenced.configMaps().resource(configMap("after")).create());
            Throwable delete = catchThrowable(() -> fenced.configMaps().inNamespace("default").withName("before")
                    .delete());
            Throwable patch = catchThrowable(() -> fenced.configMaps().inNamespace("default").withName("before")
                    .edit(cm -> new ConfigMapBuilder(cm).editMetadata().addToLabels("k", "v").endMetadata().build()));

            assertThat(create).matches(WriteFence::refused, "refused by the fence");
            assertThat(delete).matches(WriteFence::refused, "refused by the fence");
            assertThat(patch).matches(WriteFence::refused, "refused by the fence");
            // the edit read the object (1 GET) and sent nothing else
            assertThat(server.getRequestCount() - requestsBefore).isEqualTo(1);
            assertThat(fenced.configMaps().inNamespace("default").list().getItems())
                    .extracting(cm -> cm.getMetadata().getName()).containsExactly("before");

            leading.set(true);
            fenced.configMaps().resource(configMap("after")).create();
            assertThat(client.configMaps().inNamespace("default").withName("after").get()).isNotNull();
        }
    }

    @Test
    void theFencedClientLeavesRetriesToItsCallers() {
        try (KubernetesClient fenced = WriteFence.guard(client, leading::get)) {
            // a retry of fabric8's would run on another thread, where a refusal is lost
            assertThat(fenced.getConfiguration().getRequestRetryBackoffLimit()).isZero();
            assertThat(fenced.getMasterUrl()).isEqualTo(client.getMasterUrl());
        }
    }

    @Test
    void refusedLooksThroughCauses() {
        assertThat(WriteFence.refused(new RuntimeException(new WriteFence.Closed()))).isTrue();
        assertThat(WriteFence.refused(new RuntimeException(new IllegalStateException()))).isFalse();
    }
}
