package dev.ringmaster.sharder.lease;

import static dev.ringmaster.sharder.testing.TestLeases.create;
import static dev.ringmaster.sharder.testing.TestLeases.get;
import static dev.ringmaster.sharder.testing.TestLeases.renew;
import static dev.ringmaster.sharder.testing.TestLeases.shardLease;
import static dev.ringmaster.sharder.testing.TestLeases.stateLabel;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.ShardStatus;
import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.runtime.Backoff;
import dev.ringmaster.sharder.testing.TestLeases;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The controller with a real informer against the CRUD mock server; the clock moves only when told. */
@EnableCrudApiServer
class ShardLeaseControllerTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final int DURATION = 10;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    KubernetesClient client;
    KubernetesMockServer server;

    private final MutableClock clock = new MutableClock(T0);
    private final AtomicReference<LeaseDetector> detector = new AtomicReference<>(new DefaultLeaseDetector());
    private final List<Membership> published = new CopyOnWriteArrayList<>();
    private String namespace;
    private ShardLeaseController controller;

    @BeforeEach
    void setUp() {
        namespace = TestLeases.newNamespace();
        controller = new ShardLeaseController(client, detector::get, clock, () -> true, 2,
                new Backoff(Duration.ofMillis(10), Duration.ofMillis(100)));
        controller.addListener(published::add);
    }

    @AfterEach
    void tearDown() {
        controller.close();
    }

    @Test
    void theInitialMembershipCompletesWithoutAnyLease() throws Exception {
        controller.start();
        assertThat(controller.initialMembership().get(10, TimeUnit.SECONDS)).isEqualTo(Membership.EMPTY);
    }

    @Test
    void theFirstMembershipHoldsEveryLeaseThatExistedAtStart() {
        for (int i = 0; i < 8; i++) {
            create(client, shardLease(namespace, "shard-" + i, "example", T0, DURATION));
        }
        controller.start();
        await().atMost(TIMEOUT).until(() -> !published.isEmpty());
        assertThat(published.get(0).shards(RingKey.clusterRing("example"))).as("no ring is built from part of the fleet").hasSize(8);
        assertThat(controller.initialMembership()).isCompletedWithValue(published.get(0));
    }

    @Test
    void watchesOnlyShardLeasesAndPublishesTheirRings() throws InterruptedException {
        create(client, shardLease(namespace, "shard-b", "example", T0, DURATION));
        create(client, shardLease(namespace, "shard-a", "example", T0, DURATION)
                .editMetadata().addToAnnotations(RingContract.WEIGHT_ANNOTATION, "2").endMetadata());
        create(client, shardLease(namespace, "shard-x", "other", T0, DURATION));
        create(client, new LeaseBuilder().withNewMetadata().withNamespace(namespace).withName("leader-election")
                .endMetadata().withNewSpec().withHolderIdentity("someone").endSpec());

        controller.start();

        Membership expected = new Membership(Map.of(
                RingKey.clusterRing("example"), List.of(ready("shard-a", 2), ready("shard-b", 1)),
                RingKey.clusterRing("other"), List.of(ready("shard-x", 1))));
        await().atMost(TIMEOUT).until(() -> controller.membership().equals(expected));
        assertThat(controller.hasSynced()).isTrue();
        assertThat(controller.cachedLeases()).extracting(LeaseKey::name)
                .containsExactlyInAnyOrder("shard-a", "shard-b", "shard-x");
        assertThat(stateLabel(get(client, namespace, "shard-a"))).isEqualTo("ready");
        assertThat(get(client, namespace, "leader-election").getMetadata().getLabels()).isNullOrEmpty();
        // the informers' lists and watches ask the server for shard leases only, of either ring kind
        assertThat(informerRequests()).isNotEmpty().allSatisfy(path -> assertThat(path).containsAnyOf(
                "labelSelector=" + URLEncoder.encode("alpha.sharding.timebertt.dev/clusterring", StandardCharsets.UTF_8) + "&",
                "labelSelector=" + URLEncoder.encode("alpha.sharding.timebertt.dev/controllerring", StandardCharsets.UTF_8) + "&"));
    }

    @Test
    void listenersHearOfEveryChangeAndOfNothingElse() {
        create(client, shardLease(namespace, "shard-0", "example", T0, DURATION));
        controller.start();
        await().atMost(TIMEOUT).until(() -> published.size() == 1);
        assertThat(published.get(0).shards(RingKey.clusterRing("example"))).containsExactly(ready("shard-0", 1));

        // passes that find nothing new publish nothing
        clock.set(T0.plusSeconds(5));
        reevaluateAndSettle();
        reevaluateAndSettle();
        assertThat(published).hasSize(1);

        clock.set(T0.plusSeconds(DURATION));
        reevaluateAndSettle();
        assertThat(published).hasSize(2);
        assertThat(published.get(1).shards(RingKey.clusterRing("example")))
                .containsExactly(new ShardInfo("shard-0", ShardState.EXPIRED, 1));
        assertThat(controller.membership()).isSameAs(published.get(1));

        // the shard renews: the watch event alone brings it back
        renew(client, namespace, "shard-0", clock.instant());
        await().atMost(TIMEOUT).until(() -> published.size() == 3);
        assertThat(published.get(2).shards(RingKey.clusterRing("example"))).containsExactly(ready("shard-0", 1));
    }

    @Test
    void anotherDetectorAppliesToEveryLeaseOnceAllAreReevaluated() {
        startWithTwoAvailableShards();

        detector.set((lease, now) -> new ShardStatus(ShardState.DEAD, now.plusSeconds(60)));
        controller.reevaluateAll();

        await().atMost(TIMEOUT).until(() -> controller.membership().availableShards(RingKey.clusterRing("example")).isEmpty());
        assertThat(controller.membership().shards(RingKey.clusterRing("example"))).extracting(ShardInfo::state)
                .containsExactly(ShardState.DEAD, ShardState.DEAD);
        await().atMost(TIMEOUT).untilAsserted(() -> {
            assertThat(stateLabel(get(client, namespace, "shard-0"))).isEqualTo("dead");
            assertThat(stateLabel(get(client, namespace, "shard-1"))).isEqualTo("dead");
        });
    }

    @Test
    void aShardThatStopsRenewingIsAcquiredThenItsLeaseDeleted() {
        startWithTwoAvailableShards();

        clock.set(T0.plusSeconds(2 * DURATION));
        renew(client, namespace, "shard-1", clock.instant());
        controller.reevaluateAll();

        await().atMost(TIMEOUT).until(() -> controller.membership().shards(RingKey.clusterRing("example")).equals(List.of(
                new ShardInfo("shard-0", ShardState.DEAD, 1), ready("shard-1", 1))));
        assertThat(get(client, namespace, "shard-0").getSpec().getHolderIdentity())
                .isEqualTo(RingContract.LEASE_CONTROLLER_HOLDER);

        // dead until its doubled duration plus a minute have passed, then orphaned and deleted
        clock.set(T0.plusSeconds(2 * DURATION + 2 * DURATION + 60));
        renew(client, namespace, "shard-1", clock.instant());
        controller.reevaluateAll();

        await().atMost(TIMEOUT).until(() -> get(client, namespace, "shard-0") == null);
        await().atMost(TIMEOUT).until(() -> controller.membership().shards(RingKey.clusterRing("example")).equals(List.of(ready("shard-1", 1))));
        assertThat(controller.cachedLeases()).extracting(LeaseKey::name).containsExactly("shard-1");
    }

    @Test
    void aDeletedLeaseLeavesTheMembership() {
        create(client, shardLease(namespace, "shard-0", "example", T0, DURATION));
        controller.start();
        await().atMost(TIMEOUT).until(() -> controller.membership().shards(RingKey.clusterRing("example")).size() == 1);

        client.leases().inNamespace(namespace).withName("shard-0").delete();

        await().atMost(TIMEOUT).until(() -> controller.membership().equals(Membership.EMPTY));
        assertThat(published).last().isEqualTo(Membership.EMPTY);
    }

    /**
     * shardLeaseNamespaces: one informer per listed namespace and ring kind, each asking only for its
     * namespace's shard leases; a shard Lease in a namespace not listed is no shard, and nothing asks the server
     * for Leases of every namespace (which the namespaced RBAC forbids).
     */
    @Test
    void withNamespacesOnlyTheirLeasesAreWatchedAndNothingClusterWide() throws InterruptedException {
        controller.close();
        String other = TestLeases.newNamespace();
        String unlisted = TestLeases.newNamespace();
        controller = new ShardLeaseController(client, detector::get, clock, () -> true, 2,
                new Backoff(Duration.ofMillis(10), Duration.ofMillis(100)), ring -> java.util.Optional.empty(),
                List.of(namespace, other, namespace));
        assertThat(controller.namespaces()).as("once each, in order").containsExactly(namespace, other);
        create(client, shardLease(namespace, "shard-a", "example", T0, DURATION));
        create(client, shardLease(other, "shard-b", "example", T0, DURATION));
        create(client, shardLease(unlisted, "shard-x", "example", T0, DURATION));
        informerRequests(); // what the test itself asked so far

        controller.start();

        Membership expected = new Membership(Map.of(RingKey.clusterRing("example"),
                List.of(ready("shard-a", 1), ready("shard-b", 1))));
        await().atMost(TIMEOUT).until(() -> controller.membership().equals(expected));
        assertThat(controller.cachedLeases()).extracting(LeaseKey::name).containsExactlyInAnyOrder("shard-a", "shard-b");
        // a pass acquires, labels and deletes in the Lease's namespace, which the Role there allows
        create(client, shardLease(other, "shard-c", "example", T0, DURATION));
        await().atMost(TIMEOUT).until(() -> controller.membership().shards(RingKey.clusterRing("example")).size() == 3);
        List<String> requests = new ArrayList<>();
        for (RecordedRequest request = server.takeRequest(10, TimeUnit.MILLISECONDS); request != null;
                request = server.takeRequest(10, TimeUnit.MILLISECONDS)) {
            if (request.getPath().contains("/leases")) {
                requests.add(request.getPath());
            }
        }
        assertThat(stateLabel(get(client, other, "shard-c"))).isEqualTo("ready");
        assertThat(get(client, unlisted, "shard-x").getMetadata().getLabels())
                .doesNotContainKey(RingContract.STATE_LABEL);
        assertThat(requests).noneMatch(path -> path.startsWith("/apis/coordination.k8s.io/v1/leases"))
                .noneMatch(path -> path.contains("/namespaces/" + unlisted + "/"));
        for (String watched : List.of(namespace, other)) {
            for (String label : List.of("alpha.sharding.timebertt.dev/clusterring", "alpha.sharding.timebertt.dev/controllerring")) {
                assertThat(requests).as("a list or watch of %s in %s", label, watched).anyMatch(path -> path.startsWith(
                        "/apis/coordination.k8s.io/v1/namespaces/" + watched + "/leases?")
                        && path.contains("labelSelector=" + URLEncoder.encode(label, StandardCharsets.UTF_8) + "&"));
            }
        }
    }

    /** Queues every lease and waits until the passes are done; reevaluateAll queues synchronously. */
    private void reevaluateAndSettle() {
        controller.reevaluateAll();
        await().atMost(TIMEOUT).until(() -> controller.pending() == 0);
    }

    /** Paths of the requests for leases of all namespaces, which only the informer makes. */
    private List<String> informerRequests() throws InterruptedException {
        List<String> paths = new ArrayList<>();
        for (RecordedRequest request = server.takeRequest(10, TimeUnit.MILLISECONDS); request != null;
                request = server.takeRequest(10, TimeUnit.MILLISECONDS)) {
            if (request.getPath().startsWith("/apis/coordination.k8s.io/v1/leases")) {
                paths.add(request.getPath());
            }
        }
        return paths;
    }

    private static ShardInfo ready(String name, int weight) {
        return new ShardInfo(name, ShardState.READY, weight);
    }

    /** Leases of shard-0 and shard-1 of the ring "example", renewed at T0; the controller started and counting both. */
    private void startWithTwoAvailableShards() {
        create(client, shardLease(namespace, "shard-0", "example", T0, DURATION));
        create(client, shardLease(namespace, "shard-1", "example", T0, DURATION));
        controller.start();
        await().atMost(TIMEOUT).until(() -> controller.membership().availableShards(RingKey.clusterRing("example")).size() == 2);
    }
}
