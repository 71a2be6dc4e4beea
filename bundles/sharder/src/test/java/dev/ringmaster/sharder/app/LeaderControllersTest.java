package dev.ringmaster.sharder.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingSnapshot;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.sharder.clusterring.WebhookSettings;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.kube.TestNamespaces;
import dev.ringmaster.sharder.lease.DefaultLeaseDetector;
import dev.ringmaster.sharder.membership.Membership;
import dev.ringmaster.sharder.membership.ShardInfo;
import dev.ringmaster.sharder.metrics.SharderMetrics;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.model.RingResourceSpec;
import dev.ringmaster.sharder.rebalance.RebalanceLimits;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.StrategyBinding;
import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.sharder.testing.TestLeases;
import dev.ringmaster.sharder.testing.TestDiscovery;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One leadership term of the sharder against the mock API server: every controller working together. */
@EnableKubernetesMockClient(crud = true)
class LeaderControllersTest {

    KubernetesClient client;
    KubernetesMockServer server;

    private static final String RING = "example";
    private static final String SHARD = RingContract.shardLabel(RING);
    private static final String DRAIN = RingContract.drainLabel(RING);
    private static final Duration SOON = Duration.ofSeconds(20);
    private static final int OBJECTS = 24;

    private final MutableClock clock = new MutableClock(Instant.now());
    private final RingRegistry registry = new RingRegistry();
    private LeaderControllers controllers;

    @BeforeEach
    void cluster() throws Exception {
        try (InputStream crd = getClass().getClassLoader()
                .getResourceAsStream("META-INF/fabric8/clusterrings.sharding.timebertt.dev-v1.yml")) {
            client.apiextensions().v1().customResourceDefinitions().load(crd).create();
        }
        TestDiscovery.serveCoreV1(server, TestDiscovery.CONFIG_MAPS, TestDiscovery.SECRETS);
        TestNamespaces.create(client, "default", Map.of());
        registry.update(inputs -> inputs.withDefaultStrategy("rendezvous")
                .withStrategies(Map.of("rendezvous", new StrategyBinding(new RendezvousStrategy(), Map.of()))));
        lease("shard-0");
        lease("shard-1");
        ClusterRing ring = new ClusterRing();
        ring.getMetadata().setName(RING);
        ring.getSpec().getResources().add(new RingResourceSpec("", "configmaps", List.of(new GroupResource("", "secrets"))));
        client.resources(ClusterRing.class).resource(ring).create();
        for (int i = 0; i < OBJECTS; i++) {
            ConfigMap owner = client.configMaps().resource(new ConfigMapBuilder().withNewMetadata()
                    .withNamespace("default").withName("cm-" + i).endMetadata().build()).create();
            client.secrets().resource(new SecretBuilder().withNewMetadata().withNamespace("default")
                    .withName("checksums-cm-" + i).addNewOwnerReference().withApiVersion("v1").withKind("ConfigMap")
                    .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid()).withController(true)
                    .endOwnerReference().endMetadata().build()).create();
        }
        controllers = newTerm();
        controllers.start();
    }

    private LeaderControllers newTerm() {
        return new LeaderControllers(client, registry, new SharderMetrics(new SimpleMeterRegistry()),
                new LeaderControllers.Settings(DefaultLeaseDetector::new, DefaultResourceInterpreter::new,
                        RebalanceLimits.DEFAULT, Optional.of(WebhookSettings.defaults()), clock));
    }

    @AfterEach
    void stop() {
        controllers.close();
    }

    /** A shard's lease, held by the shard and renewed now by the test clock. */
    private void lease(String shard) {
        if (client.leases().inNamespace("default").withName(shard).get() == null) {
            TestLeases.create(client, TestLeases.shardLease("default", shard, RING, clock.instant(), 15));
        } else {
            TestLeases.renew(client, "default", shard, clock.instant());
        }
    }

    private Map<String, String> labels(String kind, String name) {
        var object = kind.equals("cm") ? client.configMaps().inNamespace("default").withName(name).get()
                : client.secrets().inNamespace("default").withName(name).get();
        return object.getMetadata().getLabels() == null ? Map.of() : object.getMetadata().getLabels();
    }

    private boolean everyObjectOnItsDesiredShard() {
        Optional<RingSnapshot> snapshot = registry.snapshot(RING);
        if (snapshot.isEmpty()) {
            return false;
        }
        for (int i = 0; i < OBJECTS; i++) {
            String wanted = snapshot.get().shardFor("/ConfigMap/default/cm-" + i).orElse(null);
            Map<String, String> owner = labels("cm", "cm-" + i);
            if (wanted == null || !wanted.equals(owner.get(SHARD)) || owner.containsKey(DRAIN)
                    || !wanted.equals(labels("secret", "checksums-cm-" + i).get(SHARD))) {
                return false;
            }
        }
        return true;
    }

    /** What a shard does when it sees the drain label: remove both labels (optimistic). */
    private void acknowledgeDrains() {
        for (ConfigMap configMap : client.configMaps().inNamespace("default").withLabel(DRAIN).list().getItems()) {
            client.configMaps().resource(new ConfigMapBuilder(configMap).editMetadata()
                    .removeFromLabels(SHARD).removeFromLabels(DRAIN).endMetadata().build()).update();
        }
    }

    private ClusterRing ring() {
        return client.resources(ClusterRing.class).withName(RING).get();
    }

    @Test
    void assignsEveryObjectAndReportsTheRing() {
        await().atMost(SOON).until(() -> registry.snapshot(RING).map(s -> s.shards().shards().size() == 2).orElse(false));
        await().atMost(SOON).until(this::everyObjectOnItsDesiredShard);
        await().atMost(SOON).untilAsserted(() -> {
            assertThat(ring().getStatus().getAvailableShards()).isEqualTo(2);
            assertThat(ring().getStatus().getConditions()).singleElement()
                    .satisfies(ready -> assertThat(ready.getStatus()).isEqualTo("True"));
        });
        assertThat(client.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName(RingContract.webhookConfigurationName(RING)).get()).isNotNull();
        assertThat(client.leases().inNamespace("default").withName("shard-0").get().getMetadata().getLabels())
                .containsEntry(RingContract.STATE_LABEL, "ready");
    }

    @Test
    void scaleOutDrainsMainObjectsThroughTheirShardsAndMovesControlledOnes() {
        await().atMost(SOON).until(this::everyObjectOnItsDesiredShard);
        lease("shard-2");
        await().atMost(SOON).until(() -> registry.snapshot(RING).map(s -> s.shards().shards().size() == 3).orElse(false));
        await().atMost(SOON).until(() -> !client.configMaps().inNamespace("default").withLabel(DRAIN).list().getItems().isEmpty());
        for (ConfigMap draining : client.configMaps().inNamespace("default").withLabel(DRAIN).list().getItems()) {
            assertThat(draining.getMetadata().getLabels().get(SHARD)).as("the old shard keeps it until it lets go")
                    .isNotEqualTo("shard-2");
        }
        acknowledgeDrains();
        await().atMost(SOON).until(this::everyObjectOnItsDesiredShard);
        assertThat(client.configMaps().inNamespace("default").withLabel(SHARD, "shard-2").list().getItems()).isNotEmpty();
    }

    @Test
    void aDeadShardsObjectsMoveWithoutDrain() {
        await().atMost(SOON).until(this::everyObjectOnItsDesiredShard);
        // a minute later shard-0 still renews, shard-1 has stopped
        clock.advance(Duration.ofMinutes(1));
        lease("shard-0");
        controllers.reevaluateShards();
        await().atMost(SOON).until(() -> registry.snapshot(RING).map(s -> s.shards().shards().size() == 1).orElse(false));
        await().atMost(SOON).until(this::everyObjectOnItsDesiredShard);
        assertThat(client.leases().inNamespace("default").withName("shard-1").get().getSpec().getHolderIdentity())
                .isEqualTo(RingContract.LEASE_CONTROLLER_HOLDER);
        assertThat(client.configMaps().inNamespace("default").withLabel(DRAIN).list().getItems()).isEmpty();
    }

    @Test
    void aNewTermNeverActsOnTheLastTermsMembership() {
        await().atMost(SOON).until(this::everyObjectOnItsDesiredShard);
        controllers.close();
        // the registry still knows a shard from before; the cluster has no such lease any more
        registry.update(inputs -> inputs.withMembership(new Membership(Map.of(RING,
                List.of(new ShardInfo("ghost", ShardState.READY, 1))))));
        for (int i = 0; i < 5; i++) {
            client.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withNamespace("default")
                    .withName("fresh-" + i).endMetadata().build()).create();
        }
        controllers = newTerm();
        controllers.start();
        await().atMost(SOON).until(() -> client.configMaps().inNamespace("default").list().getItems().stream()
                .allMatch(configMap -> configMap.getMetadata().getLabels() != null
                        && configMap.getMetadata().getLabels().containsKey(SHARD)));
        assertThat(client.configMaps().inNamespace("default").withLabel(SHARD, "ghost").list().getItems()).isEmpty();
    }

    @Test
    void afterLeadershipEndsNothingIsWritten() {
        await().atMost(SOON).until(this::everyObjectOnItsDesiredShard);
        controllers.close();
        client.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withNamespace("default")
                .withName("late").endMetadata().build()).create();
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> !labels("cm", "late").containsKey(SHARD));
    }
}
