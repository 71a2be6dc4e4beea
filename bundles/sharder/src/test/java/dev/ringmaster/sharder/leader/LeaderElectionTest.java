package dev.ringmaster.sharder.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class LeaderElectionTest {

    KubernetesClient client;

    private static final LeaderElection.Timing FAST =
            new LeaderElection.Timing(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(200));

    private final AtomicInteger runningControllers = new AtomicInteger();

    private LeaderElection replica(String identity) {
        return new LeaderElection(client, "sharding-system", "sharder", identity, FAST,
                runningControllers::incrementAndGet, runningControllers::decrementAndGet);
    }

    @Test
    void oneReplicaLeadsAndAStandbyTakesOverWhenItLeaves() {
        LeaderElection first = replica("sharder-a");
        LeaderElection second = replica("sharder-b");
        first.start();
        await().atMost(Duration.ofSeconds(10)).until(first::isLeader);
        second.start();
        await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(2))
                .until(() -> !second.isLeader() && runningControllers.get() == 1);

        first.close();
        assertThat(first.isLeader()).isFalse();
        // released on close: the standby need not wait for the lease to expire
        await().atMost(FAST.leaseDuration()).until(second::isLeader);
        assertThat(runningControllers.get()).isEqualTo(1);
        assertThat(client.leases().inNamespace("sharding-system").withName("sharder").get().getSpec().getHolderIdentity())
                .isEqualTo("sharder-b");
        second.close();
        assertThat(runningControllers.get()).isZero();
    }

    @Test
    void aStandbyTakesOverADeadLeadersLeaseOnceItExpires() {
        // the leader died without releasing: its lease was renewed just now and is never renewed again
        ZonedDateTime lastRenewal = ZonedDateTime.now();
        client.leases().resource(new LeaseBuilder().withNewMetadata().withNamespace("sharding-system")
                .withName("sharder").endMetadata().withNewSpec().withHolderIdentity("sharder-dead")
                .withLeaseDurationSeconds((int) FAST.leaseDuration().toSeconds())
                .withAcquireTime(lastRenewal).withRenewTime(lastRenewal).endSpec().build()).create();
        LeaderElection standby = replica("sharder-b");
        standby.start();
        await().atMost(FAST.leaseDuration().plusSeconds(5)).until(standby::isLeader);
        ZonedDateTime takenOver = client.leases().inNamespace("sharding-system").withName("sharder").get()
                .getSpec().getAcquireTime();
        assertThat(takenOver).as("taken over only once the dead leader's lease expired")
                .isAfterOrEqualTo(lastRenewal.plus(FAST.leaseDuration()));
        standby.close();
    }

    @Test
    void aLeaderThatLostItsLeaseStopsItsControllersAndCampaignsAgain() {
        LeaderElection replica = replica("sharder-a");
        replica.start();
        await().atMost(Duration.ofSeconds(10)).until(replica::isLeader);

        // another holder takes the lease over (as after a network partition) and renews it a few times
        for (int renewal = 0; renewal < 4 && replica.isLeader(); renewal++) {
            client.leases().inNamespace("sharding-system").withName("sharder").edit(lease -> new LeaseBuilder(lease)
                    .editSpec().withHolderIdentity("sharder-other").withRenewTime(ZonedDateTime.now()).endSpec()
                    .build());
            await().pollDelay(Duration.ofMillis(900)).until(() -> true);
        }
        await().atMost(FAST.renewDeadline().plusSeconds(3)).until(() -> !replica.isLeader());
        assertThat(runningControllers.get()).as("controllers stopped with the leadership").isZero();

        // the other holder is gone: once its lease expires, the replica leads again
        await().atMost(FAST.leaseDuration().plusSeconds(5)).until(replica::isLeader);
        assertThat(runningControllers.get()).isEqualTo(1);
        replica.close();
        assertThat(runningControllers.get()).isZero();
    }

    @Test
    void timingMustLeaveRoomToRenew() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new LeaderElection.Timing(
                Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(2)))
                .hasMessageContaining("lease duration > renew deadline > retry period");
    }
}
