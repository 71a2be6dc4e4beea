package dev.ringmaster.plugins.podreadiness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.LeaseRecord;
import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.sharder.lease.DefaultLeaseDetector;
import dev.ringmaster.testing.mockapiserver.CrudApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.felix.framework.FrameworkFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;

/**
 * The published detector end to end: registered in a real OSGi framework (Felix), composed with the
 * sharder's real default detector, fed by informers against the CRUD mock server (the project's, which closes
 * watches off its event loop), judged by a clock that moves only when told. A sharder binding the service sees what the listener here sees.
 */
class DetectorPublisherTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final int DURATION = 10;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String FILTER = "(" + Constants.OBJECTCLASS + "=" + LeaseDetector.class.getName() + ")";

    @TempDir
    static Path storage;
    private static Framework framework;

    private final KubernetesMockServer server = CrudApiServer.start();
    private final KubernetesClient client = server.createClient();

    private final MutableClock clock = new MutableClock(T0);
    private final String namespace = TestPods.newNamespace();
    private final List<ServiceEvent> events = new CopyOnWriteArrayList<>();
    private final ServiceListener listener = events::add;
    private BundleContext context;
    private DetectorPublisher publisher;

    @BeforeAll
    static void startFramework() throws Exception {
        framework = new FrameworkFactory().newFramework(Map.of(
                Constants.FRAMEWORK_STORAGE, storage.toString(),
                Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT));
        framework.start();
    }

    @AfterAll
    static void stopFramework() throws Exception {
        framework.stop();
        framework.waitForStop(10_000);
    }

    @BeforeEach
    void listen() throws Exception {
        context = framework.getBundleContext();
        context.addServiceListener(listener, FILTER);
    }

    @AfterEach
    void tearDown() {
        context.removeServiceListener(listener);
        if (publisher != null) {
            publisher.close();
        }
        client.close();
        server.destroy();
    }

    private DetectorPublisher publish(Set<String> namespaces, Duration debounce) {
        publisher = new DetectorPublisher(context, client, new DefaultLeaseDetector(),
                new DetectorPublisher.Options(namespaces, "", debounce));
        return publisher;
    }

    private LeaseRecord lease(String name, Instant renewed) {
        return new LeaseRecord(name, namespace, name, renewed, renewed, DURATION, Map.of(), Map.of());
    }

    private ShardState judge(String shard, Instant renewed) {
        return publisher.detector().detect(lease(shard, renewed), clock.instant()).state();
    }

    private ServiceReference<LeaseDetector> reference() {
        return context.getServiceReference(LeaseDetector.class);
    }

    private long modifications() {
        return events.stream().filter(event -> event.getType() == ServiceEvent.MODIFIED).count();
    }

    @Test
    void registersTheDetectorUnderItsNameAtRevisionZero() {
        publish(Set.of(), Duration.ZERO);
        ServiceReference<LeaseDetector> reference = reference();
        assertThat(reference.getProperty(LeaseDetector.NAME)).isEqualTo("pod-readiness");
        assertThat(reference.getProperty(DetectorPublisher.REVISION_PROPERTY)).isEqualTo(0L);
        assertThat(context.getService(reference)).isSameAs(publisher.detector());
        context.ungetService(reference);

        publisher.close();
        publisher = null;
        assertThat(reference()).isNull();
        assertThat(events).extracting(ServiceEvent::getType)
                .containsExactly(ServiceEvent.REGISTERED, ServiceEvent.UNREGISTERING);
    }

    @Test
    void aWedgedShardLosesItsAvailabilityAndTheSharderIsAskedToJudgeAgain() {
        TestPods.create(client, namespace, "shard-0", true);
        publish(Set.of(), Duration.ZERO);

        // the first judgement starts watching the lease's namespace; the synced cache asks for nothing
        // new because a Ready Pod does not change the lease's verdict
        assertThat(judge("shard-0", T0)).isEqualTo(ShardState.READY);
        await().atMost(TIMEOUT).until(() -> publisher.cache().watchedNamespaces().contains(namespace)
                && publisher.cache().hasSynced());
        assertThat(judge("shard-0", T0)).isEqualTo(ShardState.READY);
        long before = modifications();

        // the shard still renews its lease but fails its readiness probe
        clock.advance(Duration.ofSeconds(5));
        TestPods.setReady(client, namespace, "shard-0", false);
        await().atMost(TIMEOUT).until(() -> modifications() == before + 1);
        assertThat(reference().getProperty(DetectorPublisher.REVISION_PROPERTY)).isEqualTo(publisher.revision());
        assertThat(judge("shard-0", clock.instant())).isEqualTo(ShardState.DEAD);

        // it recovers
        TestPods.setReady(client, namespace, "shard-0", true);
        await().atMost(TIMEOUT).until(() -> modifications() == before + 2);
        assertThat(judge("shard-0", clock.instant())).isEqualTo(ShardState.READY);
        assertThat(reference().getProperty(LeaseDetector.NAME)).as("still selectable by name").isEqualTo("pod-readiness");
    }

    @Test
    void aReadyPodDoesNotKeepADeadLeaseAlive() {
        TestPods.create(client, namespace, "shard-0", true);
        publish(Set.of(namespace), Duration.ZERO);
        await().atMost(TIMEOUT).until(() -> publisher.cache().hasSynced()
                && publisher.cache().readiness(namespace, "shard-0") == PodReadiness.READY);

        clock.advance(Duration.ofSeconds(2 * DURATION));
        assertThat(judge("shard-0", T0)).as("not renewed for two durations").isEqualTo(ShardState.UNCERTAIN);
        LeaseRecord released = new LeaseRecord("shard-0", namespace, null, T0, T0, DURATION, Map.of(), Map.of());
        assertThat(publisher.detector().detect(released, clock.instant()).state()).isEqualTo(ShardState.DEAD);
    }

    @Test
    void aShardWithoutPodIsJudgedByItsLease() {
        publish(Set.of(namespace), Duration.ZERO);
        await().atMost(TIMEOUT).until(() -> publisher.cache().hasSynced());
        assertThat(judge("shard-0", T0)).isEqualTo(ShardState.READY);
        clock.advance(Duration.ofSeconds(DURATION));
        assertThat(judge("shard-0", T0)).isEqualTo(ShardState.EXPIRED);
    }

    @Test
    void aBurstOfChangesAsksOnce() {
        TestPods.create(client, namespace, "shard-0", true);
        TestPods.create(client, namespace, "shard-1", true);
        TestPods.create(client, namespace, "shard-2", true);
        publish(Set.of(namespace), Duration.ofSeconds(2));
        await().atMost(TIMEOUT).until(() -> publisher.cache().hasSynced()
                && publisher.cache().readiness(namespace, "shard-2") == PodReadiness.READY);
        judge("shard-0", T0);
        judge("shard-1", T0);
        long before = modifications();

        // e.g. a node fails: all its shards turn not ready at once
        TestPods.setReady(client, namespace, "shard-0", false);
        TestPods.setReady(client, namespace, "shard-1", false);
        TestPods.setReady(client, namespace, "shard-2", false);
        await().atMost(TIMEOUT).until(() -> modifications() == before + 1);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> modifications() == before + 1);
        assertThat(judge("shard-0", T0)).isEqualTo(ShardState.DEAD);
        assertThat(judge("shard-1", T0)).isEqualTo(ShardState.DEAD);
        assertThat(judge("shard-2", T0)).isEqualTo(ShardState.DEAD);
    }

    @Test
    void closingStopsTheWatchesAndTheRevisions() {
        TestPods.create(client, namespace, "shard-0", true);
        publish(Set.of(namespace), Duration.ZERO);
        await().atMost(TIMEOUT).until(() -> publisher.cache().readiness(namespace, "shard-0") == PodReadiness.READY);
        publisher.close();
        long revision = publisher.revision();
        publisher = null;

        TestPods.setReady(client, namespace, "shard-0", false);
        assertThat(reference()).isNull();
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                .until(() -> events.stream().noneMatch(event -> event.getType() == ServiceEvent.MODIFIED));
        assertThat(revision).isZero();
    }
}
