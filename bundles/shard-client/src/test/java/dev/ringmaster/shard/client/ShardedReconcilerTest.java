package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.load.CellLoad;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.testing.apiserver.SilentApiServer;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ConfigMapList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The drain-aware wrapper against the CRUD mock server. The lease is acquired one attempt at a time
 * ({@link ShardLease#tick()}) and lost by moving the test clock past the renew deadline. The worker
 * is a counting single thread, so a test can wait until the wrapper has looked at an object.
 */
@EnableCrudApiServer
class ShardedReconcilerTest {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    KubernetesClient client;
    KubernetesMockServer server;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    /** The load meter's ticker, in nanoseconds: moves only when a test says. */
    private final AtomicLong ticker = new AtomicLong();
    private final List<String> reconciled = new CopyOnWriteArrayList<>();
    private ShardedReconciler.Reconciler<ConfigMap> userReconcile = cm -> reconciled.add(cm.getMetadata().getName());
    private final AtomicInteger tasksDone = new AtomicInteger();
    private ScheduledExecutorService leaseExecutor;
    private ThreadPoolExecutor worker;
    private Sharding sharding;
    private ShardLabels labels;
    private SharedIndexInformer<ConfigMap> informer;
    private ShardedReconciler<ConfigMap> reconciler;
    private String namespace;

    @BeforeEach
    void setUp() {
        namespace = "reconciler-test-" + NAMESPACES.incrementAndGet();
        leaseExecutor = Executors.newScheduledThreadPool(2);
        worker = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>()) {
            @Override
            protected void afterExecute(Runnable task, Throwable failure) {
                tasksDone.incrementAndGet();
            }
        };
        sharding = Sharding.forRing("example").shard("shard-0").namespace(namespace).client(client)
                .clock(clock).executor(leaseExecutor).ticker(ticker::get).build();
        labels = sharding.labels();
    }

    @AfterEach
    void tearDown() {
        if (reconciler != null) {
            reconciler.close();
        }
        if (informer != null) {
            informer.close();
        }
        sharding.close();
        worker.shutdownNow();
        leaseExecutor.shutdownNow();
    }

    @Test
    void passesOwnObjectsAndIgnoresOthers() {
        sharding.lease().tick();
        create("other", Map.of(labels.shardLabel(), "shard-1"), true);
        create("unassigned", Map.of("app", "demo"), true);
        create("mine", Map.of(labels.shardLabel(), "shard-0"), true);
        // unfiltered informer: the wrapper itself must skip the objects of others
        start(client.configMaps().inNamespace(namespace).runnableInformer(0), null);
        awaitReconciled("mine");

        awaitMarker();
        assertThat(reconciled).containsExactly("mine", "marker");
    }

    @Test
    void acknowledgesADrainExactlyOnceAndDoesNotReconcileIt() throws InterruptedException {
        sharding.lease().tick();
        create("drained", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), "", "app", "demo"), true);
        start(sharding.informers().runnableInformer(client.configMaps().inNamespace(namespace)), null);

        await().atMost(Duration.ofSeconds(10)).until(() -> get("drained").getMetadata().getLabels().size() == 1);
        assertThat(get("drained").getMetadata().getLabels()).containsOnly(Map.entry("app", "demo"));
        awaitMarker();

        assertThat(reconciled).containsExactly("marker");
        assertThat(patchesOf("drained")).as("one hand-back write").isEqualTo(1);
    }

    @Test
    void theDrainSweepHandsBackADrainTheInformerNeverDelivered() {
        sharding.lease().tick();
        create("drained", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), "true", "app", "demo"), true);
        // an informer that is never started stands for one whose watch went silent in an outage:
        // its cache never shows the drain, and no event comes
        informer = sharding.informers().runnableInformer(client.configMaps().inNamespace(namespace));
        startWithDrainSweep(client.configMaps().inNamespace(namespace), Duration.ofMillis(100));

        await().atMost(Duration.ofSeconds(10)).until(() -> get("drained").getMetadata().getLabels().size() == 1);
        assertThat(get("drained").getMetadata().getLabels()).containsOnly(Map.entry("app", "demo"));
        assertThat(reconciled).isEmpty();
    }

    @Test
    void theDrainSweepWaitsForTheLease() throws InterruptedException {
        create("drained", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), "true"), true);
        informer = sharding.informers().runnableInformer(client.configMaps().inNamespace(namespace));
        startWithDrainSweep(client.configMaps().inNamespace(namespace), Duration.ofMillis(50));

        Thread.sleep(500);
        assertThat(get("drained").getMetadata().getLabels()).containsKey(labels.drainLabel());
        sharding.lease().tick();
        await().atMost(Duration.ofSeconds(10)).until(() -> get("drained").getMetadata().getLabels().isEmpty());
    }

    /**
     * A shard stopping cuts its sweep's list off; that is no failure to warn about (it was, whenever a
     * list was in flight).
     */
    @Test
    void aSweepCutOffByCloseIsNoWarning() throws Exception {
        sharding.lease().tick();
        informer = sharding.informers().runnableInformer(client.configMaps().inNamespace(namespace));
        String logged;
        // an API server that takes the sweep's list and never answers it
        try (SilentApiServer silent = new SilentApiServer(client)) {
            startWithDrainSweep(silent.client().configMaps().inNamespace(namespace), Duration.ofMillis(50));
            logged = silent.loggedWhileCuttingOff(() -> {
                reconciler.close();
                SilentApiServer.awaitEnd("drain-sweep-shard-0");
            });
        }
        assertThat(logged).doesNotContain("could not list its drained objects");
    }

    @Test
    void theUserFilterCannotHideADrain() {
        sharding.lease().tick();
        // the user's filter only wants ConfigMaps with data; the drained one has none
        create("drained", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), "true"), false);
        create("no-data", Map.of(labels.shardLabel(), "shard-0"), false);
        start(sharding.informers().runnableInformer(client.configMaps().inNamespace(namespace)), cm -> cm.getData() != null && !cm.getData().isEmpty());

        await().atMost(Duration.ofSeconds(10)).until(() -> get("drained").getMetadata().getLabels().isEmpty());
        awaitMarker();
        assertThat(reconciled).containsExactly("marker");
    }

    @Test
    void callsNoUserCodeWhileTheLeaseIsNotHeld() {
        create("mine", Map.of(labels.shardLabel(), "shard-0"), true);
        start(sharding.informers().runnableInformer(client.configMaps().inNamespace(namespace)), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> tasksDone.get() >= 1);
        assertThat(reconciled).as("lease never acquired").isEmpty();

        sharding.lease().tick(); // acquired: the cached objects are queued again
        awaitReconciled("mine");

        clock.advance(Duration.ofSeconds(11)); // past the renew deadline: fenced
        assertThat(sharding.lease().isHeld()).isFalse();
        int before = tasksDone.get();
        create("later", Map.of(labels.shardLabel(), "shard-0"), true);
        await().atMost(Duration.ofSeconds(10)).until(() -> tasksDone.get() > before);
        assertThat(reconciled).containsExactly("mine");
    }

    @Test
    void handsBackWhileTheWorkerIsBusyWithAnotherObject() throws InterruptedException {
        CountDownLatch slowMayFinish = heldAndReconciling("slow");

        create("drained", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), "true"), true);
        await().atMost(Duration.ofSeconds(10)).until(() -> get("drained").getMetadata().getLabels().isEmpty());
        assertThat(slowMayFinish.getCount()).as("handed back while the worker still reconciles").isEqualTo(1);
        slowMayFinish.countDown();
    }

    @Test
    void neverHandsBackAnObjectWhileTheWorkerReconcilesIt() {
        CountDownLatch busyMayFinish = heldAndReconciling("busy");

        drain("busy");
        await().atMost(Duration.ofSeconds(10)).until(() -> labels.mustDrain(informer.getStore()
                .getByKey(namespace + "/busy").getMetadata().getLabels()));
        // a later drain is handed back meanwhile; "busy" is left to the worker, which has it
        create("later", Map.of(labels.shardLabel(), "shard-0", labels.drainLabel(), "true"), true);
        await().atMost(Duration.ofSeconds(10)).until(() -> get("later").getMetadata().getLabels().isEmpty());
        assertThat(get("busy").getMetadata().getLabels()).containsEntry(labels.shardLabel(), "shard-0");

        busyMayFinish.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> get("busy").getMetadata().getLabels().isEmpty());
        assertThat(reconciled).containsExactly("busy");
    }

    /**
     * Each reconcile is timed into the shard's load meter, and so is the wait of its key: from when it was first
     * queued (an event while it waits does not restart the wait) to the start of its reconcile. Objects of other
     * shards are neither timed nor counted.
     */
    @Test
    void timesReconcilesAndQueueWaitsIntoTheLoadMeter() throws InterruptedException {
        long ms = 1_000_000L;
        sharding.lease().tick();
        create("a", Map.of(labels.shardLabel(), "shard-0"), true);
        create("b", Map.of(labels.shardLabel(), "shard-0"), true);
        create("other", Map.of(labels.shardLabel(), "shard-1"), true);
        userReconcile = cm -> {
            reconciled.add(cm.getMetadata().getName());
            ticker.addAndGet(300 * ms);
        };
        CountDownLatch workerFree = new CountDownLatch(1);
        worker.execute(() -> {
            try {
                workerFree.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        // unfiltered: "other" is queued too, and must cost nothing
        start(client.configMaps().inNamespace(namespace).runnableInformer(0), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> worker.getQueue().size() == 3);

        ticker.addAndGet(500 * ms);
        reconciler.onUpdate(get("a"), get("a")); // queued again while waiting: keeps its first time
        ticker.addAndGet(500 * ms);
        workerFree.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> tasksDone.get() >= 4);
        assertThat(reconciled).containsExactlyInAnyOrder("a", "b");

        LoadReport report = sharding.loadMeter().snapshot();

        // queued at 0; the first reconcile starts at 1.0 s, the second at 1.3 s; each takes 0.3 s; the window 1.6 s
        assertThat(report.window()).isEqualTo(Duration.ofMillis(1600));
        assertThat(report.busy()).isCloseTo(0.6 / 1.6, within(1e-9));
        assertThat(report.queueWait()).isCloseTo((1.0 + 1.3) / 2, within(1e-9));
        assertThat(report.objects()).isEqualTo(2);
        // label mode: the cells of the uids over the whole space, which hold both objects and all the busy time
        assertThat(report.cells().get(0).first()).isZero();
        assertThat(report.cells().get(report.cells().size() - 1).last()).isEqualTo(LoadReport.CELLS - 1);
        assertThat(report.cells().stream().mapToLong(CellLoad::objects).sum()).isEqualTo(2);
        assertThat(report.cells().stream().mapToDouble(CellLoad::busy).sum()).isCloseTo(0.6 / 1.6, within(1e-9));
    }

    @Test
    void theBuilderRequiresAReconcileFunction() {
        SharedIndexInformer<ConfigMap> unstarted = sharding.informers().runnableInformer(client.configMaps().inNamespace(namespace));
        assertThatThrownBy(() -> ShardedReconciler.builder(sharding, unstarted).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("reconciler must be set");
        assertThatThrownBy(() -> ShardedReconciler.builder(null, unstarted))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("sharding");
    }

    /**
     * With the lease held and the wrapper started, the worker reconciles this shard's new object
     * {@code name} until the latch returned is counted down.
     */
    private CountDownLatch heldAndReconciling(String name) {
        sharding.lease().tick();
        CountDownLatch mayFinish = new CountDownLatch(1);
        blockWhileReconciling(name, mayFinish);
        start(sharding.informers().runnableInformer(client.configMaps().inNamespace(namespace)), null);
        create(name, Map.of(labels.shardLabel(), "shard-0"), true);
        awaitReconciled(name);
        return mayFinish;
    }

    /** The reconcile of {@code name} waits for {@code mayFinish} (after noting the call). */
    private void blockWhileReconciling(String name, CountDownLatch mayFinish) {
        userReconcile = cm -> {
            reconciled.add(cm.getMetadata().getName());
            if (cm.getMetadata().getName().equals(name)) {
                mayFinish.await();
            }
        };
    }

    private void start(SharedIndexInformer<ConfigMap> unstarted, Predicate<ConfigMap> filter) {
        informer = unstarted;
        ShardedReconciler.Builder<ConfigMap> builder = ShardedReconciler.builder(sharding, informer)
                .worker(worker)
                .reconciler(userReconcile);
        if (filter != null) {
            builder.filter(filter);
        }
        reconciler = builder.build();
        reconciler.start();
        informer.start();
        await().atMost(Duration.ofSeconds(10)).until(informer::hasSynced);
    }

    /** Starts the wrapper, with a drain sweep over {@code swept}, on the informer, which is not started. */
    private void startWithDrainSweep(FilterWatchListDeletable<ConfigMap, ConfigMapList, ?> swept, Duration period) {
        reconciler = ShardedReconciler.builder(sharding, informer)
                .worker(worker)
                .reconciler(userReconcile)
                .drainSweep(swept, period)
                .build();
        reconciler.start();
    }

    /** The worker takes keys in order: once an object created now is reconciled, all earlier ones were looked at. */
    private void awaitMarker() {
        create("marker", Map.of(labels.shardLabel(), "shard-0"), true);
        awaitReconciled("marker");
    }

    private void awaitReconciled(String name) {
        await().atMost(Duration.ofSeconds(10)).until(() -> reconciled.contains(name));
    }

    private long patchesOf(String name) throws InterruptedException {
        long patches = 0;
        for (RecordedRequest request; (request = server.takeRequest(50, TimeUnit.MILLISECONDS)) != null; ) {
            if (request.getMethod().equals("PATCH") && request.getPath().endsWith("/configmaps/" + name)) {
                patches++;
            }
        }
        return patches;
    }

    private void create(String name, Map<String, String> objectLabels, boolean withData) {
        ConfigMapBuilder configMap = new ConfigMapBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).withLabels(objectLabels).endMetadata();
        if (withData) {
            configMap.addToData("k", "v");
        }
        client.configMaps().inNamespace(namespace).resource(configMap.build()).create();
    }

    private void drain(String name) {
        client.configMaps().inNamespace(namespace).withName(name).edit(cm -> new ConfigMapBuilder(cm).editMetadata()
                .addToLabels(labels.drainLabel(), "true").endMetadata().build());
    }

    private ConfigMap get(String name) {
        return client.configMaps().inNamespace(namespace).withName(name).get();
    }
}
