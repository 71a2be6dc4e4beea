package dev.ringmaster.shard.josdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.shard.client.Sharding;
import dev.ringmaster.testing.mockapiserver.CrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A JOSDK operator as a range-mode shard against the CRUD mock server (which ignores
 * {@code shardSelector}: the client-side filter and the gate alone restrict it here): only objects of
 * the served ranges are reconciled, a growth reconciles the new ranges' objects, a shrink is
 * acknowledged on the Lease only after a running reconcile outside the new ranges ended.
 */
class ShardedOperatorRangeTest {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();
    private static final Duration SOON = Duration.ofSeconds(20);

    /** While a test sets it, the server answers the lists of the test's ConfigMaps this late and counts them down. */
    private volatile CountDownLatch slowLists;
    private static final Duration LIST_DELAY = Duration.ofSeconds(2);

    private KubernetesMockServer server;
    private KubernetesClient client;

    private final Set<String> reconciled = ConcurrentHashMap.newKeySet();
    /** How often the Recorder reconciled each ConfigMap. */
    private final Map<String, Integer> reconciles = new ConcurrentHashMap<>();
    private String namespace;
    private Sharding sharding;
    private ShardedOperator operator;

    /** Records every ConfigMap it is called with. */
    @ControllerConfiguration(name = "range-recorder")
    class Recorder implements Reconciler<ConfigMap> {
        @Override
        public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) {
            reconciled.add(configMap.getMetadata().getName());
            reconciles.merge(configMap.getMetadata().getName(), 1, Integer::sum);
            return UpdateControl.noUpdate();
        }
    }

    @BeforeEach
    void setUp() {
        // the shard's Lease watch gets an event at every renewal: the server closes watches off its event loop
        server = CrudApiServer.start((request, response) -> {
            CountDownLatch listed = slowLists;
            if (listed != null && "GET".equals(request.getMethod())
                    && request.getPath().matches("/api/v1/namespaces/" + namespace + "/configmaps(\\?.*)?")
                    && !request.getPath().contains("watch=true")) {
                response.setBodyDelay(LIST_DELAY);
                listed.countDown();
            }
        });
        client = server.createClient();
        namespace = "josdk-range-" + NAMESPACES.incrementAndGet();
        sharding = Sharding.forRing("example").shard("shard-0").namespace(namespace).client(client)
                .leaseDuration(Duration.ofSeconds(3)).renewDeadline(Duration.ofSeconds(2))
                .retryPeriod(Duration.ofMillis(200)).rangeMode().rangeRecheck(Duration.ofMillis(100)).build();
    }

    @AfterEach
    void tearDown() {
        if (operator != null) {
            operator.stop();
        }
        sharding.close();
        client.close();
        server.destroy();
    }

    @Test
    void reconcilesOnlyTheObjectsOfItsRanges() throws InterruptedException {
        Map<String, Long> hashes = createMany(12);
        Set<String> expected = recordingTheLowerHalf(hashes);

        await().during(Duration.ofSeconds(2)).atMost(SOON).until(() -> expected.containsAll(reconciled));
        assertThat(served()).isEqualTo(lowerHalf(hashes).toString());

        // the primary informer's list and watch carried the ranges' shard selector
        List<String> paths = new ArrayList<>();
        for (RecordedRequest request = server.takeRequest(1, TimeUnit.SECONDS); request != null;
                request = server.takeRequest(100, TimeUnit.MILLISECONDS)) {
            paths.add(request.getPath());
        }
        assertThat(paths).anyMatch(path -> path.startsWith("/api/v1/namespaces/" + namespace + "/configmaps?")
                && path.contains("shardSelector=shardRange"));
    }

    @Test
    void reconcilesTheObjectsOfNewRangesAfterAGrowth() {
        Map<String, Long> hashes = createMany(12);
        Set<String> first = recordingTheLowerHalf(hashes);
        assertThat(reconciled).containsExactlyInAnyOrderElementsOf(first);

        assign(RangeSet.ALL);
        await().atMost(SOON).until(() -> reconciled.containsAll(hashes.keySet()));
        await().atMost(SOON).until(() -> RangeSet.ALL.toString().equals(served()));
        create("later");
        await().atMost(SOON).until(() -> reconciled.contains("later"));
    }

    /**
     * Each change of ranges lists again: the objects kept are not reconciled again, those that left the
     * ranges and came back are (another shard may have reconciled them meanwhile).
     */
    @Test
    void aRelistReconcilesWhatCameBackNotWhatStayed() {
        Map<String, Long> hashes = createMany(12);
        RangeSet lower = lowerHalf(hashes);
        Set<String> stayed = in(hashes, lower);
        start(new Recorder());
        awaitHeld();
        assign(RangeSet.ALL);
        await().atMost(SOON).until(() -> reconciles.keySet().containsAll(hashes.keySet())
                && RangeSet.ALL.toString().equals(served()));

        assign(lower);
        await().atMost(SOON).until(() -> lower.toString().equals(served()));
        assign(RangeSet.ALL);
        await().atMost(SOON).until(() -> RangeSet.ALL.toString().equals(served()));
        await().atMost(SOON).during(Duration.ofSeconds(2)).untilAsserted(() -> assertThat(reconciles).allSatisfy(
                (name, count) -> assertThat(count).as(name).isEqualTo(stayed.contains(name) ? 1 : 2)));
    }

    @Test
    void acknowledgesAShrinkOnlyAfterTheReconcileOutsideEnded() throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Set<String> afterShrink = ConcurrentHashMap.newKeySet();
        CountDownLatch shrunk = new CountDownLatch(1);
        @ControllerConfiguration(name = "range-slow")
        class Slow implements Reconciler<ConfigMap> {
            @Override
            public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) throws Exception {
                String name = configMap.getMetadata().getName();
                reconciled.add(name);
                if (shrunk.getCount() == 0) {
                    afterShrink.add(name);
                }
                if (name.equals("busy")) {
                    started.countDown();
                    release.await();
                }
                return UpdateControl.noUpdate();
            }
        }
        long busy = RangeKey.UID.hash(create("busy").getMetadata().getUid(), namespace);
        create("idle");
        start(new Slow());
        awaitHeld();
        assign(RangeSet.ALL);
        assertThat(started.await(SOON.toSeconds(), TimeUnit.SECONDS)).isTrue();
        await().atMost(SOON).until(() -> RangeSet.ALL.toString().equals(served()));

        // everything but the busy object's hash
        RangeSet withoutBusy = allBut(busy);
        shrunk.countDown();
        assign(withoutBusy);
        // served-ranges stays as it was while the reconcile of the object now outside runs
        await().during(Duration.ofSeconds(2)).atMost(SOON).until(() -> RangeSet.ALL.toString().equals(served()));
        create("meanwhile");
        await().atMost(SOON).until(() -> reconciled.contains("meanwhile"));

        release.countDown();
        await().atMost(SOON).until(() -> withoutBusy.toString().equals(served()));
        create("last");
        await().atMost(SOON).until(() -> reconciled.contains("last"));
        assertThat(afterShrink).doesNotContain("busy");
    }

    /**
     * An event JOSDK takes while its informers list again after a change of ranges finds the object in no
     * cache and is dropped: here an update that came while the object's reconcile ran, which JOSDK keeps for
     * when it ends. The list adds the object at that version, and it is reconciled then.
     */
    @Test
    void anUpdateJosdkDroppedWhileItsInformersListedAgainIsReconciled() throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Map<String, Set<String>> versions = new ConcurrentHashMap<>();
        @ControllerConfiguration(name = "range-versions")
        class Versions implements Reconciler<ConfigMap> {
            @Override
            public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) throws Exception {
                String name = configMap.getMetadata().getName();
                versions.computeIfAbsent(name, any -> ConcurrentHashMap.newKeySet())
                        .add(configMap.getMetadata().getResourceVersion());
                if (name.equals("busy") && running.getCount() > 0) {
                    running.countDown();
                    release.await();
                }
                return UpdateControl.noUpdate();
            }
        }
        create("busy");
        long other = RangeKey.UID.hash(create("other").getMetadata().getUid(), namespace);
        start(new Versions());
        awaitHeld();
        assign(RangeSet.ALL);
        assertThat(running.await(SOON.toSeconds(), TimeUnit.SECONDS)).isTrue();
        String updated = client.configMaps().inNamespace(namespace).withName("busy")
                .edit(configMap -> new ConfigMapBuilder(configMap).addToData("changed", "yes").build())
                .getMetadata().getResourceVersion();

        // the ranges change, keeping busy: the informers list again, slowly, and busy's reconcile ends meanwhile
        assignSlowlyListed(allBut(other));
        release.countDown();

        await().atMost(SOON).untilAsserted(() -> assertThat(versions.get("busy")).contains(updated));
    }

    /**
     * The same for a reschedule's timer: one that fires while the informers list again is dropped by JOSDK, and
     * the object, unchanged, would never be reconciled again (its next reschedule comes from a reconcile).
     */
    @Test
    void aRescheduleJosdkDroppedWhileItsInformersListedAgainGoesOn() throws InterruptedException {
        @ControllerConfiguration(name = "range-periodic")
        class Periodic implements Reconciler<ConfigMap> {
            @Override
            public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) {
                reconciles.merge(configMap.getMetadata().getName(), 1, Integer::sum);
                return UpdateControl.<ConfigMap>noUpdate().rescheduleAfter(Duration.ofMillis(500));
            }
        }
        create("periodic");
        long other = RangeKey.UID.hash(create("other").getMetadata().getUid(), namespace);
        start(new Periodic());
        awaitHeld();
        assign(RangeSet.ALL);
        await().atMost(SOON).until(() -> reconciles.getOrDefault("periodic", 0) >= 2);

        // the ranges change, keeping it: the informers list again for longer than the reschedule's delay
        assignSlowlyListed(allBut(other));
        slowLists = null;
        int before = reconciles.get("periodic");

        await().atMost(SOON).until(() -> reconciles.get("periodic") >= before + 3);
    }

    @Test
    void hasNoShardLabelSelectorInRangeMode() {
        operator = TestOperators.operator(sharding, client);
        assertThatThrownBy(operator::selector).isInstanceOf(IllegalStateException.class).hasMessageContaining("range mode");
    }

    private void start(Reconciler<ConfigMap> reconciler) {
        operator = TestOperators.operator(sharding, client);
        TestOperators.start(operator, namespace, reconciler);
    }

    /**
     * Starts the {@link Recorder} with the lower half of {@code hashes} assigned.
     *
     * @return the ConfigMaps of that half, once all are reconciled
     */
    private Set<String> recordingTheLowerHalf(Map<String, Long> hashes) {
        RangeSet lower = lowerHalf(hashes);
        start(new Recorder());
        awaitHeld();
        assign(lower);
        Set<String> expected = in(hashes, lower);
        await().atMost(SOON).until(() -> reconciled.containsAll(expected));
        return expected;
    }

    /** Assigns {@code ranges} with the lists of the test's ConfigMaps slowed down; returns once the informers list again. */
    private void assignSlowlyListed(RangeSet ranges) throws InterruptedException {
        CountDownLatch listed = new CountDownLatch(1);
        slowLists = listed;
        assign(ranges);
        assertThat(listed.await(SOON.toSeconds(), TimeUnit.SECONDS)).as("the informers list again").isTrue();
    }

    /** The whole space but one hash. */
    private static RangeSet allBut(long hash) {
        return RangeSet.ALL.minus(RangeSet.of(List.of(HashRange.of(hex(hash), hex(hash + 1)))));
    }

    private void awaitHeld() {
        await().atMost(SOON).until(() -> sharding.lease().isHeld() && lease() != null);
    }

    /** Writes the assignment as the sharder would. */
    private void assign(RangeSet ranges) {
        // the shard renews and writes its Lease meanwhile: again on a conflict
        await().atMost(SOON).ignoreExceptions().until(() -> {
            client.leases().inNamespace(namespace).withName("shard-0").edit(lease -> new LeaseBuilder(lease).editMetadata()
                    .addToAnnotations(RingContract.ASSIGNED_RANGES_ANNOTATION, ranges.toString())
                    .addToAnnotations(RingContract.RANGE_KEY_ANNOTATION, "uid").endMetadata().build());
            return true;
        });
    }

    private Lease lease() {
        return client.leases().inNamespace(namespace).withName("shard-0").get();
    }

    private String served() {
        Lease lease = lease();
        return lease == null || lease.getMetadata().getAnnotations() == null ? null
                : lease.getMetadata().getAnnotations().get(RingContract.SERVED_RANGES_ANNOTATION);
    }

    private ConfigMap create(String name) {
        return client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata()
                .withName(name).endMetadata().addToData("key", name).build()).create();
    }

    /** Creates {@code count} ConfigMaps; their names with the FNV-1a 64 of their uids. */
    private Map<String, Long> createMany(int count) {
        Map<String, Long> hashes = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            ConfigMap created = create("cm-" + i);
            assertThat(created.getMetadata().getUid()).isNotBlank();
            hashes.put(created.getMetadata().getName(), RangeKey.UID.hash(created.getMetadata().getUid(), namespace));
        }
        return hashes;
    }

    /** A range from 0 up to the median hash (excluded): about half the objects, never none or all. */
    private static RangeSet lowerHalf(Map<String, Long> hashes) {
        List<Long> sorted = hashes.values().stream().sorted(Long::compareUnsigned).toList();
        long cut = sorted.get(sorted.size() / 2);
        return RangeSet.of(List.of(HashRange.of(hex(0), hex(cut))));
    }

    private static Set<String> in(Map<String, Long> hashes, RangeSet ranges) {
        return hashes.entrySet().stream().filter(e -> ranges.contains(e.getValue())).map(Map.Entry::getKey)
                .collect(Collectors.toSet());
    }

    private static String hex(long value) {
        return String.format("0x%016x", value);
    }
}
