package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The shard's selector on list calls and informers, against the CRUD mock server. */
class ShardInformersTest extends MockServerTestBase {

    private final ShardLabels labels = ShardLabels.of("example", "shard-0");
    private final ShardInformers informers = new ShardInformers(labels);
    private SharedIndexInformer<ConfigMap> informer;

    @AfterEach
    void tearDown() {
        if (informer != null) {
            informer.close();
        }
    }

    @Test
    void anInformerCachesOnlyThisShardsObjects() {
        create(namespace, "mine-1", Map.of(labels.shardLabel(), "shard-0"));
        create(namespace, "other-1", Map.of(labels.shardLabel(), "shard-1"));
        create(namespace, "unassigned-1", Map.of("app", "demo"));
        Set<String> added = ConcurrentHashMap.newKeySet();
        informer = informers.inform(client.configMaps().inNamespace(namespace), new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap object) {
                added.add(object.getMetadata().getName());
            }

            @Override
            public void onUpdate(ConfigMap oldObject, ConfigMap newObject) {
            }

            @Override
            public void onDelete(ConfigMap object, boolean deletedFinalStateUnknown) {
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(informer::hasSynced);
        assertThat(names(informer.getStore().list())).containsExactly("mine-1");

        // created while watching; this shard's object last, so the others would have arrived first
        create(namespace, "other-2", Map.of(labels.shardLabel(), "shard-1"));
        create(namespace, "unassigned-2", Map.of());
        create(namespace, "mine-2", Map.of(labels.shardLabel(), "shard-0", "app", "demo"));
        await().atMost(Duration.ofSeconds(10)).until(() -> added.contains("mine-2"));

        assertThat(names(informer.getStore().list())).containsExactlyInAnyOrder("mine-1", "mine-2");
        assertThat(added).containsExactlyInAnyOrder("mine-1", "mine-2");
    }

    @Test
    void aRunnableInformerInAllNamespacesCachesOnlyThisShardsObjects() {
        String second = namespace + "-b";
        create(namespace, "mine-a", Map.of(labels.shardLabel(), "shard-0"));
        create(second, "mine-b", Map.of(labels.shardLabel(), "shard-0"));
        create(second, "other-b", Map.of(labels.shardLabel(), "shard-1"));
        create(namespace, "unassigned-a", null);

        informer = informers.runnableInformer(client.configMaps().inAnyNamespace());
        assertThat(informer.isRunning()).as("not started yet").isFalse();
        informer.start();
        await().atMost(Duration.ofSeconds(10)).until(informer::hasSynced);

        assertThat(names(informer.getStore().list())).containsExactlyInAnyOrder("mine-a", "mine-b");
    }

    @Test
    void listCallsSeeOnlyThisShardsObjects() {
        create(namespace, "mine", Map.of(labels.shardLabel(), "shard-0"));
        create(namespace, "other", Map.of(labels.shardLabel(), "shard-1"));
        create(namespace, "unassigned", null);

        assertThat(names(informers.filter(client.configMaps().inNamespace(namespace)).list().getItems()))
                .containsExactly("mine");
        assertThat(names(informers.filter(client.configMaps().inAnyNamespace()).list().getItems()))
                .containsExactly("mine");
    }

    @Test
    void aControllerRingShardsInformerCachesObjectsLabelledWithTheRingName() {
        create(namespace, "mine", Map.of("shard.alpha.sharding.timebertt.dev/example", "shard-0"));
        create(namespace, "other", Map.of("shard.alpha.sharding.timebertt.dev/example", "shard-1"));
        create(namespace, "cluster-ring", Map.of("shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example", "shard-0"));
        create(namespace, "other-ring", Map.of("shard.alpha.sharding.timebertt.dev/other", "shard-0"));

        informer = new ShardInformers(ShardLabels.of(RingKind.CONTROLLER_RING, "example", "shard-0"))
                .runnableInformer(client.configMaps().inNamespace(namespace));
        informer.start();
        await().atMost(Duration.ofSeconds(10)).until(informer::hasSynced);

        assertThat(names(informer.getStore().list())).containsExactly("mine");
    }

    @Test
    void worksForGenericResources() {
        server.expect().get().withPath("/api/v1").andReturn(200, new APIResourceListBuilder().withGroupVersion("v1")
                .addNewResource().withName("configmaps").withKind("ConfigMap").withNamespaced(true).endResource()
                .build()).always();
        create(namespace, "mine", Map.of(labels.shardLabel(), "shard-0"));
        create(namespace, "other", Map.of(labels.shardLabel(), "shard-1"));

        assertThat(names(informers.filter(client.genericKubernetesResources("v1", "ConfigMap").inNamespace(namespace))
                .list().getItems())).containsExactly("mine");
    }

    private void create(String inNamespace, String name, Map<String, String> objectLabels) {
        client.configMaps().inNamespace(inNamespace).resource(new ConfigMapBuilder()
                .withNewMetadata().withName(name).withNamespace(inNamespace).withLabels(objectLabels).endMetadata()
                .addToData("k", "v").build()).create();
    }

    private static List<String> names(List<? extends HasMetadata> objects) {
        return objects.stream().map(o -> o.getMetadata().getName()).sorted().collect(Collectors.toList());
    }
}
