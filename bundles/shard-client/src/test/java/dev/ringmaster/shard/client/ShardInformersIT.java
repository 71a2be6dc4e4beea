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
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
        try (KubernetesClient shardClient = server.clientAs(NAMESPACE, "shard", List.of())) {
            assertThatThrownBy(() -> shardClient.configMaps().inNamespace(NAMESPACE).list())
                    .as("the shard may not list ConfigMaps yet")
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
            SharedIndexInformer<ConfigMap> informer = new ShardInformers(labels)
                    .runnableInformer(shardClient.configMaps().inNamespace(NAMESPACE));
            informer.start();
            try {
                // an informer lists at once when started: not synced for seconds, it was refused
                await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> !informer.hasSynced());

                server.grant(NAMESPACE, "shard", List.of(new PolicyRuleBuilder().withApiGroups("")
                        .withResources("configmaps").withVerbs("list", "watch").build()));
                await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(informer.getStore().list())
                        .extracting(object -> object.getMetadata().getName()).containsExactly("on-shard-0"));
            } finally {
                informer.close();
            }
        }
    }
}
