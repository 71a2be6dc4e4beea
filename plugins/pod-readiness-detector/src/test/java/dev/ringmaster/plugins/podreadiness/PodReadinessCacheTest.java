package dev.ringmaster.plugins.podreadiness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.testing.mockapiserver.CrudApiServer;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Pod cache with real informers against the CRUD mock server (the project's, which closes watches off its event
 * loop: fabric8's own froze on a busy machine as the informers closed, and could not be shut down).
 */
class PodReadinessCacheTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final KubernetesMockServer server = CrudApiServer.start();
    private final KubernetesClient client = server.createClient();

    private final ExecutorService starter = Executors.newSingleThreadExecutor();
    private final AtomicInteger changes = new AtomicInteger();
    private final String namespace = TestPods.newNamespace();
    private PodReadinessCache cache;

    private PodReadinessCache cache(Set<String> namespaces, String selector) {
        cache = new PodReadinessCache(client, namespaces, selector, starter, changes::incrementAndGet);
        cache.start();
        return cache;
    }

    /**
     * A cache of this test's namespace once it knows Pod {@code pod}, which the test creates Ready or
     * not; the changes it reported until then are not counted.
     */
    private PodReadinessCache cacheKnowing(String pod, boolean ready) {
        TestPods.create(client, namespace, pod, ready);
        PodReadinessCache pods = cache(Set.of(namespace), "");
        PodReadiness readiness = ready ? PodReadiness.READY : PodReadiness.NOT_READY;
        await().atMost(TIMEOUT).until(() -> pods.readiness(namespace, pod) == readiness);
        changes.set(0);
        return pods;
    }

    @AfterEach
    void tearDown() {
        if (cache != null) {
            cache.close();
        }
        starter.shutdownNow();
        client.close();
        server.destroy();
    }

    @Test
    void learnsTheNamespacesOfTheLeasesItIsAskedAbout() {
        TestPods.create(client, namespace, "shard-0", true);
        TestPods.create(client, namespace, "shard-1", false);
        PodReadinessCache pods = cache(Set.of(), "");
        assertThat(pods.watchedNamespaces()).isEmpty();

        // the first question cannot wait for the cache: no Pod known yet, so the lease alone decides
        assertThat(pods.readiness(namespace, "shard-0")).isEqualTo(PodReadiness.UNKNOWN);
        // the informer hands the listed Pods to the cache one by one: shard-0 known does not mean shard-1 is
        await().atMost(TIMEOUT).until(() -> pods.readiness(namespace, "shard-0") == PodReadiness.READY);
        await().atMost(TIMEOUT).until(() -> pods.readiness(namespace, "shard-1") == PodReadiness.NOT_READY);
        assertThat(pods.readiness(namespace, "shard-2")).isEqualTo(PodReadiness.UNKNOWN);
        assertThat(pods.watchedNamespaces()).containsExactly(namespace);
        assertThat(pods.hasSynced()).isTrue();
    }

    @Test
    void reportsAReadinessChangeOfAPodItWasAskedAbout() {
        PodReadinessCache pods = cacheKnowing("shard-0", true);

        TestPods.setReady(client, namespace, "shard-0", false);
        await().atMost(TIMEOUT).until(() -> changes.get() == 1);
        assertThat(pods.readiness(namespace, "shard-0")).isEqualTo(PodReadiness.NOT_READY);

        TestPods.setReady(client, namespace, "shard-0", true);
        await().atMost(TIMEOUT).until(() -> changes.get() == 2);
        assertThat(pods.readiness(namespace, "shard-0")).isEqualTo(PodReadiness.READY);
    }

    @Test
    void reportsOnlyChangesThatChangeAnAnswer() {
        TestPods.create(client, namespace, "other", true);
        PodReadinessCache pods = cacheKnowing("shard-0", true);

        // a Pod nobody asked about, and an update that leaves shard-0 Ready
        TestPods.setReady(client, namespace, "other", false);
        client.pods().inNamespace(namespace).withName("shard-0")
                .edit(pod -> new PodBuilder(pod).editMetadata().addToAnnotations("touched", "yes").endMetadata().build());
        // a later change that matters, so the two above have been delivered when it arrives
        TestPods.setReady(client, namespace, "shard-0", false);
        await().atMost(TIMEOUT).until(() -> pods.readiness(namespace, "shard-0") == PodReadiness.NOT_READY);
        assertThat(changes.get()).isEqualTo(1);
    }

    @Test
    void keepsReportingWhileTheLastAnswerIsStale() {
        PodReadinessCache pods = cacheKnowing("shard-0", true);

        // not Ready and Ready again before anyone asked: two reports (each differs from the last answer)
        TestPods.setReady(client, namespace, "shard-0", false);
        await().atMost(TIMEOUT).until(() -> changes.get() == 1);
        TestPods.setReady(client, namespace, "shard-0", true);
        TestPods.setReady(client, namespace, "shard-0", false);
        // the last answer (Ready) differs from NOT_READY, so the second NOT_READY is reported too
        await().atMost(TIMEOUT).until(() -> changes.get() == 2);
        assertThat(pods.readiness(namespace, "shard-0")).isEqualTo(PodReadiness.NOT_READY);
    }

    @Test
    void aDeletedPodLeavesTheDecisionToTheLease() {
        PodReadinessCache pods = cacheKnowing("shard-0", false);

        TestPods.delete(client, namespace, "shard-0");
        await().atMost(TIMEOUT).until(() -> changes.get() == 1);
        assertThat(pods.readiness(namespace, "shard-0")).isEqualTo(PodReadiness.UNKNOWN);

        // a new Pod of the name (StatefulSet) counts once it is there
        TestPods.create(client, namespace, "shard-0", false);
        await().atMost(TIMEOUT).until(() -> pods.readiness(namespace, "shard-0") == PodReadiness.NOT_READY);
    }

    @Test
    void watchesOnlyTheConfiguredNamespaces() throws InterruptedException {
        String elsewhere = TestPods.newNamespace();
        TestPods.create(client, namespace, "shard-0", false);
        TestPods.create(client, elsewhere, "shard-1", false);
        PodReadinessCache pods = cache(Set.of(namespace), "");
        await().atMost(TIMEOUT).until(() -> pods.readiness(namespace, "shard-0") == PodReadiness.NOT_READY);

        assertThat(pods.readiness(elsewhere, "shard-1")).isEqualTo(PodReadiness.UNKNOWN);
        assertThat(pods.watchedNamespaces()).containsExactly(namespace);
        assertThat(podRequests()).allSatisfy(path -> assertThat(path).contains("/namespaces/" + namespace + "/pods"));
    }

    @Test
    void watchesOnlyPodsMatchingTheSelector() throws InterruptedException {
        TestPods.create(client, namespace, "shard-0", false, Map.of("app", "shard"));
        TestPods.create(client, namespace, "shard-1", false, Map.of("app", "something-else"));
        PodReadinessCache pods = cache(Set.of(namespace), "app=shard");
        await().atMost(TIMEOUT).until(() -> pods.readiness(namespace, "shard-0") == PodReadiness.NOT_READY);

        assertThat(pods.readiness(namespace, "shard-1")).isEqualTo(PodReadiness.UNKNOWN);
        assertThat(podRequests()).isNotEmpty().allSatisfy(path -> assertThat(path).contains("labelSelector=app%3Dshard"));
    }

    @Test
    void aPodWithoutReadyConditionIsNotReady() {
        assertThat(PodReadinessCache.isNotReady(new PodBuilder().build())).isTrue();
        assertThat(PodReadinessCache.isNotReady(new PodBuilder().withNewStatus().withPhase("Pending").endStatus().build()))
                .isTrue();
        assertThat(PodReadinessCache.isNotReady(new PodBuilder().withNewStatus()
                .addNewCondition().withType("Ready").withStatus("Unknown").endCondition().endStatus().build())).isTrue();
        assertThat(PodReadinessCache.isNotReady(new PodBuilder().withNewStatus()
                .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build())).isFalse();
    }

    @Test
    void answersNothingOnceClosed() {
        TestPods.create(client, namespace, "shard-0", false);
        PodReadinessCache pods = cache(Set.of(namespace), "");
        await().atMost(TIMEOUT).until(() -> pods.readiness(namespace, "shard-0") == PodReadiness.NOT_READY);
        pods.close();
        assertThat(pods.readiness(namespace, "shard-0")).isEqualTo(PodReadiness.UNKNOWN);
        assertThat(pods.watchedNamespaces()).isEmpty();
    }

    /** Paths of the Pod list and watch requests the server received (the informers' requests). */
    private List<String> podRequests() throws InterruptedException {
        List<String> paths = new ArrayList<>();
        for (RecordedRequest request = server.takeRequest(10, TimeUnit.MILLISECONDS); request != null;
                request = server.takeRequest(10, TimeUnit.MILLISECONDS)) {
            if ("GET".equals(request.getMethod()) && request.getPath().contains("/pods?")) {
                paths.add(request.getPath());
            }
        }
        return paths;
    }
}
