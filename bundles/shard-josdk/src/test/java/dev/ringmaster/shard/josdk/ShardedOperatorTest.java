package dev.ringmaster.shard.josdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.testing.apiserver.Fnv1a;
import dev.ringmaster.shard.client.ShardLabels;
import dev.ringmaster.shard.client.ShardDeparture;
import dev.ringmaster.shard.client.Sharding;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A JOSDK operator as a shard against the CRUD mock server: which objects reach the reconciler,
 * drains handed back outside reconciles, fencing by the Lease, the Lease with the Operator.
 */
@EnableCrudApiServer
class ShardedOperatorTest {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();
    private static final Duration SOON = Duration.ofSeconds(20);

    KubernetesClient client;

    private final List<String> reconciled = new CopyOnWriteArrayList<>();
    private String namespace;
    private Sharding sharding;
    private ShardLabels labels;
    private ShardedOperator operator;

    /** Records every ConfigMap it is called with; one in this test's namespace only. */
    @ControllerConfiguration(name = "recorder")
    class Recorder implements Reconciler<ConfigMap> {
        @Override
        public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) throws Exception {
            reconciled.add(configMap.getMetadata().getName());
            return UpdateControl.noUpdate();
        }
    }

    @BeforeEach
    void setUp() {
        namespace = "josdk-test-" + NAMESPACES.incrementAndGet();
        sharding = Sharding.forRing("example").shard("shard-0").namespace(namespace).client(client)
                .leaseDuration(Duration.ofSeconds(3)).renewDeadline(Duration.ofSeconds(2))
                .retryPeriod(Duration.ofMillis(200)).build();
        labels = sharding.labels();
    }

    @AfterEach
    void tearDown() {
        if (operator != null) {
            operator.stop();
        }
        sharding.close();
    }

    @Test
    void reconcilesOnlyItsOwnObjects() {
        create("other", Map.of(labels.shardLabel(), "shard-1"));
        create("unassigned", Map.of("app", "demo"));
        create("mine", Map.of(labels.shardLabel(), "shard-0"));
        start(new Recorder());
        await().atMost(SOON).until(() -> reconciled.contains("mine"));

        create("later", Map.of(labels.shardLabel(), "shard-0"));
        await().atMost(SOON).until(() -> reconciled.contains("later"));
        assertThat(reconciled).containsOnly("mine", "later");
    }

    @Test
    void handsBackADrainedObjectWithoutReconcilingIt() {
        create("drained", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), "true", "app", "demo"));
        start(new Recorder());

        await().atMost(SOON).until(() -> labelsOf("drained").equals(Map.of("app", "demo")));
        create("marker", Map.of(labels.shardLabel(), "shard-0"));
        await().atMost(SOON).until(() -> reconciled.contains("marker"));
        assertThat(reconciled).containsExactly("marker");
    }

    @Test
    void neverHandsBackAnObjectWhileItsReconcileRuns() throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Map<String, String>> labelsAtTheEnd = new AtomicReference<>();
        @ControllerConfiguration(name = "slow")
        class Slow implements Reconciler<ConfigMap> {
            @Override
            public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) throws Exception {
                reconciled.add(configMap.getMetadata().getName());
                if (configMap.getMetadata().getName().equals("busy")) {
                    started.countDown();
                    release.await();
                    // the last thing this reconcile does: the object is still this shard's
                    labelsAtTheEnd.set(labelsOf("busy"));
                }
                return UpdateControl.noUpdate();
            }
        }
        create("busy", Map.of(labels.shardLabel(), "shard-0"));
        start(new Slow());
        assertThat(started.await(SOON.toSeconds(), TimeUnit.SECONDS)).isTrue();

        drain("busy");
        create("idle", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), "true"));
        // an object nobody reconciles is handed back meanwhile; the busy one waits for its reconcile
        await().atMost(SOON).until(() -> labelsOf("idle").isEmpty());
        assertThat(labelsOf("busy")).containsKeys(labels.shardLabel(), labels.drainLabel());
        release.countDown();

        await().atMost(SOON).until(() -> labelsOf("busy").isEmpty());
        assertThat(labelsAtTheEnd.get()).containsKeys(labels.shardLabel(), labels.drainLabel());
        assertThat(reconciled).containsExactly("busy");
    }

    @Test
    void reconcilesNothingWhileAnotherHolderHasTheLeaseAndEverythingOnceItHasIt() {
        client.leases().inNamespace(namespace).resource(new LeaseBuilder().withNewMetadata().withName("shard-0")
                .endMetadata().withNewSpec().withHolderIdentity("someone-else").withLeaseDurationSeconds(3600)
                .withRenewTime(ZonedDateTime.now()).withAcquireTime(ZonedDateTime.now()).endSpec().build()).create();
        create("mine", Map.of(labels.shardLabel(), "shard-0"));
        start(new Recorder());

        await().during(Duration.ofSeconds(2)).atMost(SOON).until(reconciled::isEmpty);
        client.leases().inNamespace(namespace).withName("shard-0")
                .edit(lease -> new LeaseBuilder(lease).editSpec().withHolderIdentity(null).endSpec().build());
        await().atMost(SOON).until(() -> reconciled.contains("mine"));
    }

    @Test
    void holdsTheLeaseFromStartToStop() {
        start(new Recorder());
        await().atMost(SOON).until(() -> "shard-0".equals(holder()));

        operator.stop();
        assertThat(holder()).isNullOrEmpty();
    }

    @Test
    void aStopThatIsARestartKeepsTheLeaseMarked() {
        sharding.close();
        sharding = Sharding.forRing("example").shard("shard-0").namespace(namespace).client(client)
                .leaseDuration(Duration.ofSeconds(3)).renewDeadline(Duration.ofSeconds(2))
                .retryPeriod(Duration.ofMillis(200)).instance("uid-josdk").departure(ShardDeparture.restart()).build();
        start(new Recorder());
        await().atMost(SOON).until(() -> "shard-0".equals(holder()));

        operator.stop();

        Lease kept = client.leases().inNamespace(namespace).withName("shard-0").get();
        assertThat(kept.getSpec().getHolderIdentity()).isEqualTo("shard-0");
        assertThat(kept.getMetadata().getAnnotations()).containsEntry("ringmaster.dev/holder-instance", "uid-josdk")
                .containsKey("ringmaster.dev/restarting");
    }

    /**
     * The user's reconciles are timed into the shard's load meter, and its Lease carries the report: busy time,
     * and the objects JOSDK's cache holds for this shard, by the cells of their uids (label mode: the whole space).
     */
    @Test
    void theLeaseCarriesWhatTheReconcilesCost() {
        sharding.close();
        sharding = Sharding.forRing("example").shard("shard-0").namespace(namespace).client(client)
                .leaseDuration(Duration.ofSeconds(3)).renewDeadline(Duration.ofSeconds(2))
                .retryPeriod(Duration.ofMillis(200)).loadReportPeriod(Duration.ofMillis(400)).build();
        @ControllerConfiguration(name = "costly")
        class Costly implements Reconciler<ConfigMap> {
            @Override
            public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) throws Exception {
                Thread.sleep(300);
                reconciled.add(configMap.getMetadata().getName());
                return UpdateControl.noUpdate();
            }
        }
        create("mine", Map.of(labels.shardLabel(), "shard-0"));
        create("other", Map.of(labels.shardLabel(), "shard-1"));
        start(new Costly());

        await().atMost(SOON).until(() -> load() != null && LoadReport.parse(load()).busy() > 0);
        LoadReport report = LoadReport.parse(load());
        assertThat(report.objects()).isEqualTo(1);
        ConfigMap mine = client.configMaps().inNamespace(namespace).withName("mine").get();
        int cell = LoadReport.cell(Fnv1a.fnv1a64(mine.getMetadata().getUid()));
        assertThat(report.cells()).filteredOn(entry -> entry.objects() > 0).singleElement()
                .satisfies(entry -> assertThat(cell).isBetween(entry.first(), entry.last()));
        assertThat(reconciled).containsOnly("mine");
        assertThat(sharding.lastLoadReport()).isPresent();
    }

    @Test
    void refusesJosdksLeaderElection() {
        assertThatThrownBy(() -> ShardedOperator.builder(sharding)
                .configuration(o -> o.withKubernetesClient(client)
                        .withLeaderElectionConfiguration(new LeaderElectionConfiguration("leader")))
                .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leader election");
    }

    private void start(Reconciler<ConfigMap> reconciler) {
        operator = TestOperators.operator(sharding, client);
        TestOperators.start(operator, namespace, reconciler);
    }

    private void create(String name, Map<String, String> objectLabels) {
        client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
                .withLabels(objectLabels).endMetadata().addToData("key", name).build()).create();
    }

    private void drain(String name) {
        client.configMaps().inNamespace(namespace).withName(name).edit(cm -> new ConfigMapBuilder(cm).editMetadata()
                .addToLabels(labels.drainLabel(), "true").endMetadata().build());
    }

    private Map<String, String> labelsOf(String name) {
        Map<String, String> objectLabels = client.configMaps().inNamespace(namespace).withName(name).get()
                .getMetadata().getLabels();
        return objectLabels == null ? Map.of() : objectLabels;
    }

    private String load() {
        Lease lease = client.leases().inNamespace(namespace).withName("shard-0").get();
        return lease == null || lease.getMetadata().getAnnotations() == null ? null
                : lease.getMetadata().getAnnotations().get(RingContract.LOAD_ANNOTATION);
    }

    private String holder() {
        Lease lease = client.leases().inNamespace(namespace).withName("shard-0").get();
        return lease == null ? null : lease.getSpec().getHolderIdentity();
    }
}
