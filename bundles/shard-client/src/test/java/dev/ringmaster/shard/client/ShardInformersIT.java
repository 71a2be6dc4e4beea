package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * A label-mode shard's informer on a real API server, started before the shard may list its resource (403, as
 * when the RBAC is applied after the shard): fabric8 gives up on an informer whose first list fails; the one
 * {@link ShardInformers} makes retries, and holds the shard's objects once a Role allows the list.
 */
class ShardInformersIT {

    private static final String NAMESPACE = "shard-informers-it";

    @Test
    void anInformerWhoseFirstListIsRefusedHoldsTheShardsObjectsOnceItMayList() {
        RealApiServer server = RealApiServer.shared();
        KubernetesClient admin = server.admin();
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
                .serverSideApply();
        ShardLabels labels = ShardLabels.of("informers-ring", "shard-0");
        for (String shard : List.of("shard-0", "shard-1")) {
            admin.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata().withName("on-" + shard)
                    .withLabels(Map.of(labels.shardLabel(), shard)).endMetadata().build()).serverSideApply();
        }
        Path kubeconfig = server.serviceAccountKubeconfig(NAMESPACE, "shard", server.workFolder(NAMESPACE).resolve("kubeconfig"));
        server.grant(NAMESPACE, "shard", List.of());
        Set<String> added = ConcurrentHashMap.newKeySet();
        try (KubernetesClient shardClient = server.clientFor(kubeconfig)) {
            assertThatThrownBy(() -> shardClient.configMaps().inNamespace(NAMESPACE).list())
                    .as("the shard may not list ConfigMaps yet")
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
            SharedIndexInformer<ConfigMap> informer = new ShardInformers(labels).inform(
                    shardClient.configMaps().inNamespace(NAMESPACE), new ResourceEventHandler<ConfigMap>() {
                        @Override
                        public void onAdd(ConfigMap object) {
                            added.add(object.getMetadata().getName());
                        }

                        @Override
                        public void onUpdate(ConfigMap before, ConfigMap object) {
                        }

                        @Override
                        public void onDelete(ConfigMap object, boolean unknown) {
                        }
                    });
            try {
                // an informer lists at once when started: holding nothing for seconds, it was refused
                await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(added::isEmpty);

                server.grant(NAMESPACE, "shard", List.of(new PolicyRuleBuilder().withApiGroups("")
                        .withResources("configmaps").withVerbs("list", "watch").build()));
                await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(added).containsExactly("on-shard-0"));
                assertThat(informer.getStore().list()).extracting(object -> object.getMetadata().getName())
                        .containsExactly("on-shard-0");
            } finally {
                informer.close();
            }
        }
    }
}
