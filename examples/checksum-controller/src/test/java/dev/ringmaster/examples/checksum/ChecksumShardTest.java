package dev.ringmaster.examples.checksum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One shard against the CRUD mock server, with the test in the sharder's role: it labels objects
 * for the shard, drains them, and labels the Secrets the shard creates.
 */
@EnableCrudApiServer
class ChecksumShardTest {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();
    private static final String RING = "checksums";
    private static final String SHARD_LABEL = RingContract.shardLabel(RING);
    private static final String DRAIN_LABEL = RingContract.drainLabel(RING);
    private static final Duration SOON = Duration.ofSeconds(15);

    KubernetesClient client;
    KubernetesMockServer server;

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private String namespace;
    private ChecksumShard shard;

    @BeforeEach
    void setUp() {
        namespace = "shard-test-" + NAMESPACES.incrementAndGet();
    }

    @AfterEach
    void tearDown() {
        if (shard != null) {
            shard.close();
        }
    }

    private ChecksumShard start(List<String> watchNamespaces) {
        shard = ChecksumShard.start(client, ChecksumShard.Options.of(RING, "shard-0", namespace)
                .withWatchNamespaces(watchNamespaces)
                .withLeaseTimings(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(200)), lines::add);
        return shard;
    }

    @Test
    void reconcilesOnlyTheConfigMapsAssignedToIt() {
        start(List.of());
        configMap(namespace, "mine", "shard-0");
        configMap(namespace, "other", "shard-1");
        configMap(namespace, "unassigned", null);

        awaitChecksums(namespace, "mine");
        awaitMarker(namespace);

        assertThat(secret(namespace, "checksums-other")).isNull();
        assertThat(secret(namespace, "checksums-unassigned")).isNull();
        assertThat(reconciledObjects()).containsOnly(namespace + "/mine", namespace + "/marker");
        assertThat(lines).allSatisfy(line -> assertThat(ReconcileLine.parse(line)).hasValueSatisfying(parsed -> {
            assertThat(parsed.shard()).isEqualTo("shard-0");
            assertThat(parsed.end()).isGreaterThanOrEqualTo(parsed.start());
        }));
    }

    @Test
    void aShardOfAControllerRingReconcilesTheObjectsLabelledWithTheRingName() {
        shard = ChecksumShard.start(client, ChecksumShard.Options.of(RING, "shard-0", namespace)
                .withRingKind(RingKind.CONTROLLER_RING)
                .withLeaseTimings(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(200)), lines::add);
        // the reference sharder's labels (v0.9.0 to v0.13.0) of the ControllerRing "checksums"
        String controllerRingShard = "shard.alpha.sharding.timebertt.dev/checksums";
        labelled("mine", Map.of(controllerRingShard, "shard-0"));
        labelled("cluster-ring", Map.of(SHARD_LABEL, "shard-0"));
        labelled("leaving", Map.of(controllerRingShard, "shard-0", "drain.alpha.sharding.timebertt.dev/checksums", "true"));
        labelled("marker", Map.of(controllerRingShard, "shard-0"));

        awaitChecksums(namespace, "mine");
        awaitChecksums(namespace, "marker");
        await().atMost(SOON).until(() -> {
            Map<String, String> left = configMap(namespace, "leaving").getMetadata().getLabels();
            return left == null || left.isEmpty();
        });
        assertThat(secret(namespace, "checksums-cluster-ring")).isNull();
        assertThat(secret(namespace, "checksums-leaving")).isNull();
        assertThat(reconciledObjects()).containsOnly(namespace + "/mine", namespace + "/marker");
        assertThat(lease().getMetadata().getLabels()).containsEntry("alpha.sharding.timebertt.dev/controllerring", RING)
                .doesNotContainKey("alpha.sharding.timebertt.dev/clusterring");
    }

    @Test
    void aDrainedConfigMapIsHandedBackAndNotReconciled() {
        start(List.of());
        client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata()
                .withName("leaving").withNamespace(namespace).addToLabels(SHARD_LABEL, "shard-0")
                .addToLabels(DRAIN_LABEL, "true").addToLabels("app", "demo").endMetadata()
                .addToData("k", "v").build()).create();

        await().atMost(SOON).until(() -> !configMap(namespace, "leaving").getMetadata().getLabels().containsKey(SHARD_LABEL));
        assertThat(configMap(namespace, "leaving").getMetadata().getLabels()).containsOnly(Map.entry("app", "demo"));
        awaitMarker(namespace);
        assertThat(secret(namespace, "checksums-leaving")).isNull();
        assertThat(reconciledObjects()).containsOnly(namespace + "/marker");
    }

    @Test
    void aChangedConfigMapGetsNewChecksums() {
        start(List.of());
        configMap(namespace, "app", "shard-0");
        awaitChecksums(namespace, "app");

        client.configMaps().inNamespace(namespace).withName("app")
                .edit(cm -> new ConfigMapBuilder(cm).addToData("k", "changed").addToData("new", "key").build());

        awaitChecksums(namespace, "app");
        assertThat(Checksums.fromSecretData(secret(namespace, "checksums-app").getData())).containsOnlyKeys("k", "new");
    }

    @Test
    void aSecretSomeoneChangedOrDeletedIsRepaired() {
        start(List.of());
        configMap(namespace, "app", "shard-0");
        awaitChecksums(namespace, "app");
        // the sharder assigns the Secret to its owner's shard: from now on the shard watches it
        client.secrets().inNamespace(namespace).withName("checksums-app").edit(secret -> new SecretBuilder(secret)
                .editMetadata().addToLabels(SHARD_LABEL, "shard-0").endMetadata().build());

        client.secrets().inNamespace(namespace).withName("checksums-app").edit(secret -> new SecretBuilder(secret)
                .withData(Map.of("k", "Zm9yZ2Vk")).build());
        awaitChecksums(namespace, "app");

        client.secrets().inNamespace(namespace).withName("checksums-app").delete();
        awaitChecksums(namespace, "app");
    }

    @Test
    void aFailedReconcileIsRetriedAtTheNextResync() {
        // a Secret of that name controlled by something else: the reconcile fails and leaves it alone
        client.secrets().inNamespace(namespace).resource(new SecretBuilder().withNewMetadata()
                .withName("checksums-app").withNamespace(namespace).addNewOwnerReference().withApiVersion("v1")
                .withKind("ConfigMap").withName("app").withUid("uid-of-an-earlier-app").withController(true)
                .endOwnerReference().endMetadata().build()).create();
        shard = ChecksumShard.start(client, ChecksumShard.Options.of(RING, "shard-0", namespace)
                .withResync(Duration.ofSeconds(1)), lines::add);
        configMap(namespace, "app", "shard-0");
        await().atMost(SOON).until(() -> !lines.isEmpty());

        // gone (as the garbage collector would do): no event reaches the shard, the resync does
        client.secrets().inNamespace(namespace).withName("checksums-app").delete();
        awaitChecksums(namespace, "app");
    }

    @Test
    void everyReconcileSpendsTheCostItsConfigMapAsksFor() {
        shard = ChecksumShard.start(client, ChecksumShard.Options.of(RING, "shard-0", namespace)
                .withResync(Duration.ofSeconds(1)), lines::add);
        costly(configMap(namespace, "costly", "shard-0"), "300ms");
        configMap(namespace, "free", "shard-0");

        // created, annotated, then resynced: every reconcile after the annotation took at least its cost
        await().atMost(SOON).until(() -> reconciles(namespace + "/costly").stream()
                .filter(line -> line.end() - line.start() >= 300).count() >= 3);
        awaitChecksums(namespace, "free");
        assertThat(reconciles(namespace + "/free")).allSatisfy(line -> assertThat(line.end() - line.start())
                .as("no annotation, no cost").isLessThan(300));
    }

    @Test
    void inRangeModeTheResyncReconcilesEveryServedConfigMapAgainAtItsCost() {
        shard = ChecksumShard.start(client, ChecksumShard.Options.of(RING, "shard-0", namespace)
                .withWatchNamespaces(List.of(namespace)).withRangeMode(true).withResync(Duration.ofMillis(500))
                .withCostAs(Cost.Mode.CPU)
                .withLeaseTimings(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(200)), lines::add);
        ConfigMap app = configMap(namespace, "app", null);
        costly(app, "100ms");
        await().atMost(SOON).until(() -> lease() != null);
        // the sharder's part: the whole hash space to this shard
        client.leases().inNamespace(namespace).withName("shard-0").patch(PatchContext.of(PatchType.JSON_MERGE),
                client.getKubernetesSerialization().asJson(Map.of("metadata", Map.of("annotations", Map.of(
                        RingContract.ASSIGNED_RANGES_ANNOTATION, RangeSet.ALL.toString(),
                        RingContract.RANGE_KEY_ANNOTATION, RangeKey.UID.specName())))));

        await().atMost(SOON).until(() -> reconciles(namespace + "/app").size() >= 3);
        assertThat(reconciles(namespace + "/app")).allSatisfy(line ->
                assertThat(line.end() - line.start()).isGreaterThanOrEqualTo(100));
    }

    @Test
    void watchNamespacesLimitWhatItReconciles() {
        String other = namespace + "-other";
        start(List.of(namespace));
        configMap(other, "elsewhere", "shard-0");
        configMap(namespace, "here", "shard-0");

        awaitChecksums(namespace, "here");
        awaitMarker(namespace);
        assertThat(secret(other, "checksums-elsewhere")).isNull();
        assertThat(reconciledObjects()).containsOnly(namespace + "/here", namespace + "/marker");
    }

    @Test
    void reconcilesNothingWhileAnotherHolderHasItsLease() {
        // the sharder took the Lease over (as it does from a shard it thinks is gone) for a long time
        client.leases().inNamespace(namespace).resource(new LeaseBuilder().withNewMetadata().withName("shard-0")
                .withNamespace(namespace).endMetadata().withNewSpec().withHolderIdentity(RingContract.LEASE_CONTROLLER_HOLDER)
                .withLeaseDurationSeconds(600).withRenewTime(ZonedDateTime.now()).endSpec().build()).create();
        start(List.of());
        configMap(namespace, "app", "shard-0");

        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> secret(namespace, "checksums-app") == null && lines.isEmpty());
        assertThat(shard.isLeaseHeld()).isFalse();

        client.leases().inNamespace(namespace).withName("shard-0").edit(lease -> new LeaseBuilder(lease)
                .editSpec().withHolderIdentity("").endSpec().build());
        awaitChecksums(namespace, "app");
        assertThat(shard.isLeaseHeld()).isTrue();
    }

    @Test
    void closingReleasesTheLeaseAndStopsReconciling() {
        start(List.of());
        configMap(namespace, "app", "shard-0");
        awaitChecksums(namespace, "app");
        assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("shard-0");
        assertThat(lease().getMetadata().getLabels()).containsEntry(RingContract.RING_LABEL, RING);

        shard.close();

        assertThat(lease().getSpec().getHolderIdentity()).isEmpty();
        int reconciles = lines.size();
        configMap(namespace, "late", "shard-0");
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> secret(namespace, "checksums-late") == null && lines.size() == reconciles);
    }

    @Test
    void aKilledShardKeepsItsLeaseAndStopsRenewingIt() {
        start(List.of());
        configMap(namespace, "app", "shard-0");
        awaitChecksums(namespace, "app");

        shard.kill();
        Lease killed = lease();
        shard.close(); // does nothing after kill: the Lease stays as the "dead" process left it

        assertThat(killed.getSpec().getHolderIdentity()).isEqualTo("shard-0");
        await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(3))
                .until(() -> lease().getSpec().getRenewTime().equals(killed.getSpec().getRenewTime()));
        int reconciles = lines.size();
        configMap(namespace, "late", "shard-0");
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> secret(namespace, "checksums-late") == null && lines.size() == reconciles);
    }

    /** The shard takes keys in order: once an object created now is reconciled, it has looked at all earlier ones. */
    private void awaitMarker(String ns) {
        configMap(ns, "marker", "shard-0");
        awaitChecksums(ns, "marker");
        await().atMost(SOON).until(() -> reconciledObjects().contains(ns + "/marker"));
    }

    private void awaitChecksums(String ns, String configMap) {
        await().atMost(SOON).until(() -> {
            Secret secret = secret(ns, ChecksumReconciler.secretName(configMap));
            return secret != null && ChecksumReconciler.isUpToDate(configMap(ns, configMap), secret);
        });
    }

    private List<ReconcileLine> reconciles(String object) {
        return lines.stream().map(line -> ReconcileLine.parse(line).orElseThrow())
                .filter(line -> line.object().equals(object)).toList();
    }

    /** Annotates the ConfigMap with a cost. */
    private void costly(ConfigMap configMap, String cost) {
        client.configMaps().inNamespace(configMap.getMetadata().getNamespace()).withName(configMap.getMetadata().getName())
                .edit(cm -> new ConfigMapBuilder(cm).editMetadata().addToAnnotations(Cost.ANNOTATION, cost).endMetadata()
                        .build());
    }

    private List<String> reconciledObjects() {
        return lines.stream().map(line -> ReconcileLine.parse(line).orElseThrow().object()).distinct().toList();
    }

    private ConfigMap configMap(String ns, String name, String shardName) {
        Map<String, String> labels = new HashMap<>();
        if (shardName != null) {
            labels.put(SHARD_LABEL, shardName);
        }
        return client.configMaps().inNamespace(ns).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
                .withNamespace(ns).withLabels(labels).endMetadata().addToData("k", name).build()).create();
    }

    private void labelled(String name, Map<String, String> labels) {
        client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
                .withNamespace(namespace).withLabels(labels).endMetadata().addToData("k", name).build()).create();
    }

    private ConfigMap configMap(String ns, String name) {
        return client.configMaps().inNamespace(ns).withName(name).get();
    }

    private Secret secret(String ns, String name) {
        return client.secrets().inNamespace(ns).withName(name).get();
    }

    private Lease lease() {
        return client.leases().inNamespace(namespace).withName("shard-0").get();
    }
}
