package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A change of the served ranges, against the CRUD mock server: while the new informer is being made, reads
 * answer from the state before (a shard's worker taking a queued object then must find it, or it drops the
 * object, which the new informer's list does not add again as it was delivered already).
 */
class RangeInformerSwapTest extends MockServerTestBase {

    private final List<Runnable> duringNextInformer = new ArrayList<>();
    private RangeInformer<ConfigMap> informer;

    @AfterEach
    void close() {
        informer.close();
    }

    @Test
    void anObjectKeptByAShrinkIsReadableWhileTheNewInformerIsMade() {
        ConfigMap kept = client.configMaps().inNamespace(namespace).resource(configMap("kept")).create();
        client.configMaps().inNamespace(namespace).resource(configMap("dropped")).create();
        informer = new RangeInformer<>(client, false, new ShardSelectorInterceptor("", "v1", "configmaps"), c -> {
            duringNextInformer.forEach(Runnable::run);
            return c.configMaps().inNamespace(namespace);
        }, "configmaps");
        informer.serve(RangeSet.ALL, RangeKey.UID);
        await().atMost(Duration.ofSeconds(10)).until(() -> informer.getStore().list().size() == 2);

        String key = namespace + "/kept";
        List<ConfigMap> readBySingleKey = new ArrayList<>();
        List<List<ConfigMap>> readAsList = new ArrayList<>();
        duringNextInformer.add(() -> readBySingleKey.add(informer.getStore().getByKey(key)));
        duringNextInformer.add(() -> readAsList.add(informer.getStore().list()));
        informer.serve(justTheHashOf(kept), RangeKey.UID);

        assertThat(readBySingleKey).as("the kept object read while the new informer was made").hasSize(1)
                .allSatisfy(object -> assertThat(object).isNotNull());
        assertThat(readAsList).singleElement().satisfies(list -> assertThat(list).extracting(o -> o.getMetadata().getName())
                .contains("kept"));
        duringNextInformer.clear();
        await().atMost(Duration.ofSeconds(10)).until(informer::hasSynced);
        assertThat(informer.getStore().list()).extracting(o -> o.getMetadata().getName()).containsExactly("kept");
        assertThat(informer.getStore().getByKey(key)).isNotNull();
    }

    private static RangeSet justTheHashOf(ConfigMap object) {
        long hash = RangeKey.UID.hash(object.getMetadata().getUid(), object.getMetadata().getNamespace());
        return RangeSet.of(List.of(new HashRange(hash, hash)));
    }

    private ConfigMap configMap(String name) {
        return new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace(namespace).endMetadata().build();
    }
}
