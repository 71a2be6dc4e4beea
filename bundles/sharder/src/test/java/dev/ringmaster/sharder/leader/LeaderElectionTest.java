package dev.ringmaster.sharder.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.sharder.testing.RecordedRequests;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Leader election against the mock server. Nothing here depends on how fast the machine is: the
 * lease timing is far longer than any stall where a test expects the leader to stay, what the tests
 * wait for is a condition (bounded generously), and what they prove is read from the Lease's times
 * and from the order in which replicas started and stopped their controllers.
 */
@EnableCrudApiServer
class LeaderElectionTest {

    KubernetesClient client;

    /**
     * A leader renews every 200 ms and loses the lease only after 20 s without a successful renewal; a
     * standby takes over a released lease within a retry period, a lease not renewed only after 30 s.
     */
    private static final LeaderElection.Timing STEADY =
            new LeaderElection.Timing(Duration.ofSeconds(30), Duration.ofSeconds(20), Duration.ofMillis(200));
    private static final String LEASE_PATH = "/apis/coordination.k8s.io/v1/namespaces/sharding-system/leases/sharder";
    /** Bound for what takes a few retry periods: generous, since only a failing test waits that long. */
    private static final Duration SOON = Duration.ofSeconds(30);

    /** A replica started or stopped its controllers ("start sharder-a", "stop sharder-a"), at this time. */
    private record Transition(String what, ZonedDateTime at) {
    }

    private final List<Transition> controllers = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> cleanup = new ArrayList<>();

    @AfterEach
    void closeReplicasThenClients() throws Exception {
        for (AutoCloseable closeable : cleanup) {
            closeable.close();
        }
    }

    private LeaderElection replica(KubernetesClient as, String identity) {
        LeaderElection replica = new LeaderElection(as, "sharding-system", "sharder", identity, STEADY, Clock.systemUTC(),
                () -> controllers.add(new Transition("start " + identity, ZonedDateTime.now())),
                () -> controllers.add(new Transition("stop " + identity, ZonedDateTime.now())));
        cleanup.add(0, replica);
        return replica;
    }

    @Test
    void oneReplicaLeadsAndAStandbyTakesOverWhenItLeaves() {
        LeaderElection first = replica(client, "sharder-a");
        first.start();
        awaitControllers("start sharder-a");

        RecordedRequests standbyRequests = new RecordedRequests();
        KubernetesClient standbyClient = standbyRequests.clientLike(client);
        cleanup.add(standbyClient);
        LeaderElection second = replica(standbyClient, "sharder-b");
        second.start();
        // each read of the lease is one attempt to acquire it (attempts never overlap): after several,
        // the standby is still a standby
        await().atMost(SOON).until(() -> standbyRequests.count("GET", LEASE_PATH) >= 5);
        assertThat(second.isLeader()).isFalse();
        assertThat(first.isLeader()).isTrue();
        assertThat(transitions()).containsExactly("start sharder-a");

        ZonedDateTime renewedBeforeLeaving = lease().getSpec().getRenewTime();
        first.close();
        assertThat(first.isLeader()).isFalse();
        awaitControllers("start sharder-a", "stop sharder-a", "start sharder-b");
        assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("sharder-b");
        assertThat(lastStart()).as("released on close: taken over long before it could expire")
                .isBefore(renewedBeforeLeaving.plus(STEADY.leaseDuration()));

        second.close();
        assertThat(transitions()).containsExactly("start sharder-a", "stop sharder-a", "start sharder-b", "stop sharder-b");
    }

    @Test
    void aStandbyTakesOverADeadLeadersLeaseOnlyOnceItExpires() {
        // the leader died without releasing: its lease was renewed just now and is never renewed again; a
        // standby judges it by the duration the lease states (as client-go does), not by its own
        Duration deadLeaseDuration = Duration.ofSeconds(3);
        Lease dead = client.leases().resource(new LeaseBuilder().withNewMetadata().withNamespace("sharding-system")
                .withName("sharder").endMetadata().withNewSpec().withHolderIdentity("sharder-dead")
                .withLeaseDurationSeconds((int) deadLeaseDuration.toSeconds())
                .withAcquireTime(ZonedDateTime.now()).withRenewTime(ZonedDateTime.now()).endSpec().build()).create();
        ZonedDateTime expiry = dead.getSpec().getRenewTime().plus(deadLeaseDuration);

        LeaderElection standby = replica(client, "sharder-b");
        standby.start();
        awaitControllers("start sharder-b");

        // (not the Lease's acquireTime: fabric8 takes it before reading the lease, so it may precede the expiry)
        assertThat(lastStart()).as("taken over only once the dead leader's lease expired").isAfter(expiry);
        assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("sharder-b");
    }

    @Test
    void aLeaderThatLostItsLeaseStopsItsControllersAndCampaignsAgain() {
        LeaderElection replica = replica(client, "sharder-a");
        replica.start();
        awaitControllers("start sharder-a");

        // another holder takes the lease over (as after a network partition), with a short lease of its
        // own, and renews it until the replica has stopped its controllers; a write that crosses the
        // replica's renewal gets a conflict and is simply made again
        Duration othersLeaseDuration = Duration.ofSeconds(3);
        AtomicReference<Lease> othersLastRenewal = new AtomicReference<>();
        await().atMost(SOON).ignoreExceptionsInstanceOf(KubernetesClientException.class).until(() -> {
            othersLastRenewal.set(renewAs("sharder-other", othersLeaseDuration));
            return transitions().contains("stop sharder-a");
        });

        // the other holder is gone: once its lease expires, the replica leads again
        awaitControllers("start sharder-a", "stop sharder-a", "start sharder-a");
        assertThat(lastStart()).as("not before the other holder's lease expired")
                .isAfter(othersLastRenewal.get().getSpec().getRenewTime().plus(othersLeaseDuration));
        replica.close();
        assertThat(transitions()).containsExactly("start sharder-a", "stop sharder-a", "start sharder-a", "stop sharder-a");
    }

    @Test
    void timingMustLeaveRoomToRenew() {
        assertThatThrownBy(() -> new LeaderElection.Timing(
                Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(2)))
                .hasMessageContaining("lease duration > renew deadline > retry period");
    }

    /** Waits until the controllers were started and stopped exactly so, in this order. */
    private void awaitControllers(String... expected) {
        await().atMost(SOON).until(() -> transitions().equals(List.of(expected)));
    }

    private List<String> transitions() {
        return controllers.stream().map(Transition::what).toList();
    }

    private ZonedDateTime lastStart() {
        return controllers.stream().filter(t -> t.what().startsWith("start ")).reduce((a, b) -> b).orElseThrow().at();
    }

    private Lease lease() {
        return client.leases().inNamespace("sharding-system").withName("sharder").get();
    }

    /** Writes the lease as its holder would renew it, now. */
    private Lease renewAs(String holder, Duration duration) {
        return client.leases().inNamespace("sharding-system").withName("sharder").edit(lease -> new LeaseBuilder(lease)
                .editSpec().withHolderIdentity(holder).withLeaseDurationSeconds((int) duration.toSeconds())
                .withRenewTime(ZonedDateTime.now()).endSpec().build());
    }
}
