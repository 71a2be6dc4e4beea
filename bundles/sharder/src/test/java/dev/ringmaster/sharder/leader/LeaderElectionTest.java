package dev.ringmaster.sharder.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
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
    void timingMustLeaveRoomToRenew() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new LeaderElection.Timing(
                Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(2)))
                .hasMessageContaining("lease duration > renew deadline > retry period");
    }
}
