package dev.ringmaster.sharder.unassigned;

import static dev.ringmaster.sharder.testing.ExampleRing.DRAIN;
import static dev.ringmaster.sharder.testing.ExampleRing.KEY;
import static dev.ringmaster.sharder.testing.ExampleRing.RING;
import static dev.ringmaster.sharder.testing.ExampleRing.SHARD;
import static dev.ringmaster.sharder.testing.PinnedPlacements.RENDEZVOUS_TWO_SHARDS;
import static dev.ringmaster.sharder.testing.TestRings.configMapRing;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.sharder.app.SharderMetrics;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.kube.LabelWriter;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.kube.TestNamespaces;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingResourceSpec;
import dev.ringmaster.sharder.rebalance.NamespaceScope;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.ring.StrategyBinding;
import dev.ringmaster.sharder.runtime.Backoff;
import dev.ringmaster.sharder.runtime.Controller;
import dev.ringmaster.sharder.testing.TestDiscovery;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@EnableCrudApiServer
class UnassignedWatchesTest {

    KubernetesClient client;
    KubernetesMockServer server;

    private static final Duration WITHIN_SECONDS = Duration.ofSeconds(10);

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final RingRegistry registry = new RingRegistry();
    private final ClusterRing ring = configMapRing(RING);
    private Controller<UnassignedObject> controller;
    private UnassignedWatches watches;

    @BeforeEach
    void start() {
        TestDiscovery.serveCoreV1(server, TestDiscovery.CONFIG_MAPS, TestDiscovery.SECRETS);
        for (String namespace : List.of("default", "kube-system")) {
            TestNamespaces.create(client, namespace, Map.of());
        }
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(ring))
                .withInterpreters(Map.of(DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter()))
                .withStrategies(Map.of("rendezvous", new StrategyBinding(new RendezvousStrategy(), Map.of())))
                .withDefaultStrategy("rendezvous")
                .withMembership(new Membership(Map.of(KEY, List.of(
                        new ShardInfo("shard-0", ShardState.READY, 1), new ShardInfo("shard-1", ShardState.READY, 1))))));
        UnassignedWatches[] self = new UnassignedWatches[1];
        controller = new Controller<>("unassigned", new UnassignedAssigner(key -> self[0].get(key),
                registry, RingView.InvalidKeys.IGNORE, new NamespaceScope(() -> client.namespaces().list().getItems()), new LabelWriter(client),
                new SharderMetrics(meters)),
                2, Backoff.DEFAULT);
        watches = new UnassignedWatches(client, new ResourceCatalog(client), controller);
        self[0] = watches;
        controller.start();
        watches.sync(registry.views());
    }

    @AfterEach
    void stop() {
        watches.close();
        controller.close();
    }

    private ConfigMap configMap(String namespace, String name, Map<String, String> labels) {
        return client.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withNamespace(namespace)
                .withName(name).withLabels(labels).endMetadata().build()).create();
    }

    private Map<String, String> labels(String namespace, String name) {
        Map<String, String> labels = client.configMaps().inNamespace(namespace).withName(name).get().getMetadata().getLabels();
        return labels == null ? Map.of() : labels;
    }

    /** ConfigMap default/name is on its shard of the ring: rendezvous over shard-0 and shard-1. */
    private boolean onItsShard(String name) {
        return RENDEZVOUS_TWO_SHARDS.shardOf(name).equals(labels("default", name).get(SHARD));
    }

    @Test
    void objectsCreatedWithoutTheWebhookAreAssignedWithinSeconds() {
        for (int i = 0; i < 10; i++) {
            configMap("default", "cm-" + i, Map.of());
        }
        for (int i = 0; i < 10; i++) {
            String name = "cm-" + i;
            await().atMost(WITHIN_SECONDS).until(() -> onItsShard(name));
        }
        await().atMost(WITHIN_SECONDS).until(() -> watches.cachedObjects() == 0);
        assertThat(meters.get("controller.sharding.assignments").tags("clusterring", RING).counter().count())
                .isEqualTo(10);
    }

    @Test
    void anAcknowledgedDrainIsAssignedAfresh() {
        configMap("default", "drained", Map.of(SHARD, "shard-x"));
        // the shard acknowledges a drain by removing both labels
        client.configMaps().inNamespace("default").withName("drained").edit(cm -> new ConfigMapBuilder(cm)
                .editMetadata().removeFromLabels(SHARD).endMetadata().build());
        await().atMost(WITHIN_SECONDS).until(() -> onItsShard("drained"));
        assertThat(labels("default", "drained")).doesNotContainKey(DRAIN);
    }

    @Test
    void objectsOutsideTheScopeOrAlreadyAssignedAreLeftAlone() {
        configMap("kube-system", "system", Map.of());
        configMap("default", "mine", Map.of(SHARD, "shard-1"));
        configMap("default", "probe", Map.of());
        await().atMost(WITHIN_SECONDS).until(() -> labels("default", "probe").containsKey(SHARD));
        assertThat(labels("kube-system", "system")).doesNotContainKey(SHARD);
        assertThat(labels("default", "mine")).containsEntry(SHARD, "shard-1");
    }

    @Test
    void objectsWaitForTheStrategyAndAreAssignedWhenItReturns() {
        registry.update(inputs -> inputs.withStrategies(Map.of()));
        configMap("default", "waiting", Map.of());
        await().atMost(WITHIN_SECONDS).until(() -> watches.cachedObjects() == 1 && controller.pending() == 0);
        assertThat(labels("default", "waiting")).doesNotContainKey(SHARD);

        registry.update(inputs -> inputs.withStrategies(
                Map.of("rendezvous", new StrategyBinding(new RendezvousStrategy(), Map.of()))));
        watches.requeue(RingKey.clusterRing(RING));
        await().atMost(WITHIN_SECONDS).until(() -> onItsShard("waiting"));
    }

    @Test
    void removingTheRingStopsItsWatchesAndAddingItBackResumesThem() {
        watches.sync(List.of());
        configMap("default", "late", Map.of());
        // assignment takes milliseconds when watched: a second without it shows nobody is watching
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                .until(() -> !labels("default", "late").containsKey(SHARD) && watches.cachedObjects() == 0);
        watches.sync(registry.views());
        await().atMost(WITHIN_SECONDS).until(() -> onItsShard("late"));
    }
}
