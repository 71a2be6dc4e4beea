package dev.ringmaster.sharder.app;

import static dev.ringmaster.sharder.testing.ExampleRing.DRAIN;
import static dev.ringmaster.sharder.testing.ExampleRing.KEY;
import static dev.ringmaster.sharder.testing.ExampleRing.RING;
import static dev.ringmaster.sharder.testing.ExampleRing.SHARD;
import static dev.ringmaster.sharder.testing.PinnedPlacements.CONSISTENT_HASH_TWO_SHARDS;
import static dev.ringmaster.sharder.testing.PinnedPlacements.RENDEZVOUS_THREE_SHARDS;
import static dev.ringmaster.sharder.testing.PinnedPlacements.RENDEZVOUS_TWO_SHARDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.consistent.ConsistentHashStrategy;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.sharder.certificates.WebhookCertificates;
import dev.ringmaster.sharder.ringcontrol.ValidatingWebhookCa;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.kube.TestNamespaces;
import dev.ringmaster.sharder.lease.DefaultLeaseDetector;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.model.RingResourceSpec;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.ring.StrategyBinding;
import dev.ringmaster.sharder.testing.TestDiscovery;
import dev.ringmaster.sharder.testing.TestLeases;
import dev.ringmaster.testing.mockapiserver.CrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sharder replicas against the mock API server: every controller working together, leader and follower. */
/**
 * Replicas of the sharder on the mock API server. A follower closes its watches while the leader
 * writes, so the server keeps closing watches off its event loop ({@link CrudApiServer}).
 */
class SharderReplicaTest {

    private static final PlugIns PLUG_INS = PlugIns.NONE
            .withStrategy("rendezvous", new StrategyBinding(new RendezvousStrategy(), Map.of()))
            .withDetector(DefaultLeaseDetector.NAME, new DefaultLeaseDetector())
            .withInterpreter(DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter());

    private KubernetesMockServer server;
    private KubernetesClient client;

    private static final Duration SOON = Duration.ofSeconds(20);
    private static final int OBJECTS = 24;

    private final MutableClock clock = new MutableClock(Instant.now());
    private SharderReplica sharder;
    private RingRegistry registry;

    @BeforeEach
    void cluster() throws Exception {
        server = CrudApiServer.start();
        client = server.createClient();
        try (InputStream crd = getClass().getClassLoader()
                .getResourceAsStream("META-INF/fabric8/clusterrings.sharding.timebertt.dev-v1.yml")) {
            client.apiextensions().v1().customResourceDefinitions().load(crd).create();
        }
        TestDiscovery.serveCoreV1(server, TestDiscovery.CONFIG_MAPS, TestDiscovery.SECRETS);
        TestNamespaces.create(client, "default", Map.of());
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
        sharder = replica("sharder-0");
        registry = sharder.registry();
        await().atMost(SOON).until(sharder::isLeader);
    }

    private SharderReplica replica(String identity) {
        SharderReplica replica = new SharderReplica(client, SharderReplica.Options.defaults().withIdentity(identity)
                .withDefaultStrategy("rendezvous").withClock(clock));
        replica.use(PLUG_INS);
        replica.start();
        return replica;
    }

    @AfterEach
    void stop() {
        if (sharder != null) {
            sharder.close();
        }
        client.close();
        server.destroy();
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

    /** Every ConfigMap and its Secret on the shard {@code desired} names for the ConfigMap, none in drain. */
    private boolean everyObjectOn(UnaryOperator<String> desired) {
        for (int i = 0; i < OBJECTS; i++) {
            String wanted = desired.apply("cm-" + i);
            Map<String, String> owner = labels("cm", "cm-" + i);
            if (!wanted.equals(owner.get(SHARD)) || owner.containsKey(DRAIN)
                    || !wanted.equals(labels("secret", "checksums-cm-" + i).get(SHARD))) {
                return false;
            }
        }
        return true;
    }

    /** Every object on its shard of the ring the test starts with: rendezvous over shard-0 and shard-1. */
    private boolean everyObjectOnItsInitialShard() {
        return everyObjectOn(RENDEZVOUS_TWO_SHARDS::shardOf);
    }

    /**
     * Acknowledges drains, as shards would, until every object is where {@code shardOf} says: a pass
     * may still be writing drain labels after the first ones show.
     */
    private void awaitEveryObjectOn(UnaryOperator<String> shardOf) {
        await().atMost(SOON).ignoreExceptionsInstanceOf(KubernetesClientException.class).until(() -> {
            acknowledgeDrains();
            return everyObjectOn(shardOf);
        });
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
        await().atMost(SOON).until(() -> registry.view(KEY).flatMap(RingView::shardRing).map(s -> s.shards().size() == 2).orElse(false));
        await().atMost(SOON).until(this::everyObjectOnItsInitialShard);
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

    /**
     * webhookCertificates = self-signed: the replica makes the Secrets, writes the files for the webhook
     * server, and as leader writes its CA into the ring's webhook configuration and the label guard's;
     * a new CA (the CA Secret deleted) reaches both configurations.
     */
    @Test
    void selfSignedCertificatesReachTheFilesAndEveryWebhookConfiguration(@TempDir Path tls) throws Exception {
        sharder.close();
        client.admissionRegistration().v1().validatingWebhookConfigurations().resource(
                new ValidatingWebhookConfigurationBuilder().withNewMetadata().withName("ringmaster-label-guard")
                        .endMetadata().addNewWebhook().withName("label-guard.ringmaster.dev").withNewClientConfig()
                        .withNewService().withNamespace("sharding-system").withName("sharder")
                        .withPath("/webhooks/label-guard/").endService().endClientConfig().endWebhook().build()).create();
        sharder = new SharderReplica(client, SharderReplica.Options.defaults().withIdentity("sharder-self-signed")
                .withDefaultStrategy("rendezvous").withClock(clock)
                .withCertificates(new WebhookCertificates.Settings("sharding-system", "sharder", Duration.ofDays(3650),
                        Duration.ofDays(365), Optional.of(tls)))
                .withValidatingWebhooks(new ValidatingWebhookCa.Settings(List.of("ringmaster-label-guard"), null, null)));
        sharder.use(PLUG_INS);
        sharder.start();
        await().atMost(SOON).until(sharder::isLeader);

        await().atMost(SOON).ignoreExceptions().untilAsserted(() -> {
            byte[] ca = secretData("sharder-webhook-ca", "ca.crt");
            assertThat(Files.readAllBytes(tls.resolve("tls.crt"))).isEqualTo(secretData("sharder-webhook-tls", "tls.crt"));
            assertThat(mutatingCaBundle()).isEqualTo(ca);
            assertThat(validatingCaBundle()).isEqualTo(ca);
        });
        byte[] first = secretData("sharder-webhook-ca", "ca.crt");

        client.secrets().inNamespace("sharding-system").withName("sharder-webhook-ca").delete();
        sharder.certificates().orElseThrow().check(); // as the watch of the Secret would
        await().atMost(SOON).ignoreExceptions().untilAsserted(() -> {
            byte[] ca = secretData("sharder-webhook-ca", "ca.crt");
            assertThat(ca).isNotEqualTo(first);
            assertThat(mutatingCaBundle()).isEqualTo(ca);
            assertThat(validatingCaBundle()).isEqualTo(ca);
            assertThat(Files.readAllBytes(tls.resolve("ca.crt"))).isEqualTo(ca);
        });
    }

    private byte[] secretData(String name, String key) {
        return Base64.getDecoder().decode(client.secrets().inNamespace("sharding-system").withName(name).get()
                .getData().get(key));
    }

    private byte[] mutatingCaBundle() {
        return Base64.getDecoder().decode(client.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName(RingContract.webhookConfigurationName(RING)).get().getWebhooks().get(0).getClientConfig()
                .getCaBundle());
    }

    private byte[] validatingCaBundle() {
        return Base64.getDecoder().decode(client.admissionRegistration().v1().validatingWebhookConfigurations()
                .withName("ringmaster-label-guard").get().getWebhooks().get(0).getClientConfig().getCaBundle());
    }

    @Test
    void scaleOutDrainsMainObjectsThroughTheirShardsAndMovesControlledOnes() {
        await().atMost(SOON).until(this::everyObjectOnItsInitialShard);
        lease("shard-2");
        await().atMost(SOON).until(() -> registry.view(KEY).flatMap(RingView::shardRing).map(s -> s.shards().size() == 3).orElse(false));
        await().atMost(SOON).until(() -> !client.configMaps().inNamespace("default").withLabel(DRAIN).list().getItems().isEmpty());
        for (ConfigMap draining : client.configMaps().inNamespace("default").withLabel(DRAIN).list().getItems()) {
            assertThat(draining.getMetadata().getLabels().get(SHARD)).as("the old shard keeps it until it lets go")
                    .isNotEqualTo("shard-2");
        }
        awaitEveryObjectOn(RENDEZVOUS_THREE_SHARDS::shardOf);
        assertThat(client.configMaps().inNamespace("default").withLabel(SHARD, "shard-2").list().getItems()).isNotEmpty();
    }

    @Test
    void aDeadShardsObjectsMoveWithoutDrain() {
        await().atMost(SOON).until(this::everyObjectOnItsInitialShard);
        // a minute later shard-0 still renews, shard-1 has stopped
        clock.advance(Duration.ofMinutes(1));
        lease("shard-0");
        sharder.reevaluateShards();
        await().atMost(SOON).until(() -> registry.view(KEY).flatMap(RingView::shardRing).map(s -> s.shards().size() == 1).orElse(false));
        await().atMost(SOON).until(() -> everyObjectOn(name -> "shard-0"));
        assertThat(client.leases().inNamespace("default").withName("shard-1").get().getSpec().getHolderIdentity())
                .isEqualTo(RingContract.LEASE_CONTROLLER_HOLDER);
        assertThat(client.configMaps().inNamespace("default").withLabel(DRAIN).list().getItems()).isEmpty();
    }

    @Test
    void aFollowerAssignsLikeTheLeaderAndWritesNothing() {
        await().atMost(SOON).until(this::everyObjectOnItsInitialShard);
        try (SharderReplica follower = replica("sharder-1")) {
            await().atMost(SOON).until(() -> follower.registry().view(KEY).flatMap(RingView::shardRing)
                    .map(s -> s.shards().size() == 2).orElse(false));
            assertThat(follower.isLeader()).isFalse();
            assertThat(follower.membership()).isEqualTo(sharder.membership());
            for (int i = 0; i < 10; i++) {
                AdmissionRequest created = create("new-" + i);
                assertThat(follower.admissionHandler().handle(RingContract.webhookPath(RING), created))
                        .isEqualTo(sharder.admissionHandler().handle(RingContract.webhookPath(RING), created))
                        .satisfies(response -> assertThat(response.patch()).hasSize(1));
            }
            // a shard stops renewing: the follower sees it as the leader does, but only the leader acquires
            clock.advance(Duration.ofSeconds(40));
            lease("shard-0");
            follower.reevaluateShards();
            sharder.reevaluateShards();
            await().atMost(SOON).until(() -> follower.registry().view(KEY).flatMap(RingView::shardRing)
                    .map(s -> s.shards().size() == 1).orElse(false));
            assertThat(client.leases().inNamespace("default").withName("shard-1").get().getSpec().getHolderIdentity())
                    .isEqualTo(RingContract.LEASE_CONTROLLER_HOLDER);
        }
    }

    /** What a configuration change does in OSGi: the replica is replaced by one with other options. */
    @Test
    void aReplacedReplicaWithAnotherDefaultStrategyRebalancesThroughDrains() {
        await().atMost(SOON).until(this::everyObjectOnItsInitialShard);
        sharder.close();
        sharder = new SharderReplica(client, SharderReplica.Options.defaults().withIdentity("sharder-0")
                .withDefaultStrategy("consistent-hash").withClock(clock));
        sharder.use(PLUG_INS.withStrategy("consistent-hash", new StrategyBinding(new ConsistentHashStrategy(), Map.of())));
        sharder.start();
        registry = sharder.registry();
        await().atMost(SOON).until(() -> !client.configMaps().inNamespace("default").withLabel(DRAIN).list().getItems().isEmpty());
        awaitEveryObjectOn(CONSISTENT_HASH_TWO_SHARDS::shardOf);
    }

    @Test
    void aFollowerTakesOverWhenTheLeaderLeaves() {
        await().atMost(SOON).until(this::everyObjectOnItsInitialShard);
        SharderReplica follower = replica("sharder-1");
        sharder.close();
        sharder = follower;
        registry = follower.registry();
        client.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withNamespace("default")
                .withName("late").endMetadata().build()).create();
        await().atMost(SOON).until(follower::isLeader);
        await().atMost(SOON).until(() -> labels("cm", "late").containsKey(SHARD));
    }

    private static AdmissionRequest create(String name) {
        return new AdmissionRequest("uid-" + name, "CREATE", "", "v1", "ConfigMap", "", "configmaps", null, "default",
                name, "tester", List.of(), false, Map.of("metadata", Map.of("name", name, "namespace", "default")), null);
    }

    @Test
    void afterLeadershipEndsNothingIsWritten() {
        await().atMost(SOON).until(this::everyObjectOnItsInitialShard);
        sharder.close();
        client.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withNamespace("default")
                .withName("late").endMetadata().build()).create();
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> !labels("cm", "late").containsKey(SHARD));
    }
}
