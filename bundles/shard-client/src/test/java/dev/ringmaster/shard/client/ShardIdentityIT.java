package dev.ringmaster.shard.client;

import static dev.ringmaster.ring.testing.PinnedContract.INSTANCE;
import static dev.ringmaster.ring.testing.PinnedContract.RESTARTING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Stable shard identities on a real API server, with exactly the permissions the README lists for a
 * shard with stable identities (Leases get, list, create, update; Deployments and StatefulSets get): two
 * processes of one shard name (two instances) fence each other, a restart hands the Lease over at once,
 * and two pods of a Deployment claim different names of its pool. The Deployment has no pods: no
 * controller-manager runs here, and the pool only reads its replicas.
 */
class ShardIdentityIT {

    private static final String NAMESPACE = "shard-identity-it";

    private static final RealApiServer CLUSTER = RealApiServer.shared();
    private static final KubernetesClient ADMIN = CLUSTER.admin();
    private static KubernetesClient client;
    private static final List<Sharding> shardings = new ArrayList<>();

    @BeforeAll
    static void shardPermissions() {
        client = CLUSTER.clientAs(NAMESPACE, "shard", List.of(
                new PolicyRuleBuilder().withApiGroups("coordination.k8s.io").withResources("leases")
                        .withVerbs("get", "list", "create", "update").build(),
                new PolicyRuleBuilder().withApiGroups("apps").withResources("deployments", "statefulsets")
                        .withVerbs("get").build()));
    }

    @AfterAll
    static void stop() {
        shardings.forEach(Sharding::close);
        if (client != null) {
            client.close();
        }
    }

    private static Sharding.Builder shard(String instance) {
        return Sharding.forRing("identities").ringKind(RingKind.CONTROLLER_RING).namespace(NAMESPACE).client(client)
                .instance(instance).leaseDuration(Duration.ofSeconds(6)).renewDeadline(Duration.ofSeconds(4))
                .retryPeriod(Duration.ofMillis(500));
    }

    @Test
    void aSecondInstanceWaitsForTheFirstAndTakesOverAtItsRestart() throws Exception {
        Sharding first = shard("uid-first").shard("fenced-0").departure(ShardDeparture.restart()).build();
        Sharding second = shard("uid-second").shard("fenced-0").build();
        shardings.add(first);
        shardings.add(second);
        first.lease().start();
        await().atMost(Duration.ofSeconds(20)).until(first.lease()::isHeld);

        second.lease().start();
        // the second tries every 500 ms for 3 s, half the lease duration: the first renews all along
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (System.nanoTime() < until) {
            assertThat(second.lease().isHeld()).isFalse();
            assertThat(first.lease().isHeld()).isTrue();
            Thread.sleep(100);
        }
        assertThat(lease("fenced-0").getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-first");

        long closedAt = System.nanoTime();
        first.close();
        Lease marked = lease("fenced-0");
        assertThat(marked.getSpec().getHolderIdentity()).isEqualTo("fenced-0");

        // at once: well before the first's Lease (6 s) would have expired
        await().atMost(Duration.ofSeconds(3)).until(second.lease()::isHeld);
        assertThat(System.nanoTime() - closedAt).isLessThan(TimeUnit.SECONDS.toNanos(3));
        Lease taken = lease("fenced-0");
        assertThat(taken.getSpec().getHolderIdentity()).isEqualTo("fenced-0");
        assertThat(taken.getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-second").doesNotContainKey(RESTARTING);
        assertThat(taken.getSpec().getLeaseTransitions()).isEqualTo(1);
        assertThat(taken.getMetadata().getLabels())
                .containsEntry("alpha.sharding.timebertt.dev/controllerring", "identities");
    }

    @Test
    void aRestartMarkKeepsTheHolderAndRenewTime() {
        Sharding only = shard("uid-only").shard("marked-0").departure(ShardDeparture.restart()).build();
        shardings.add(only);
        only.lease().start();
        await().atMost(Duration.ofSeconds(20)).until(only.lease()::isHeld);

        only.close();

        Lease marked = lease("marked-0");
        assertThat(marked.getSpec().getHolderIdentity()).isEqualTo("marked-0");
        assertThat(marked.getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-only")
                .containsKey(RESTARTING);
        assertThat(marked.getMetadata().getAnnotations().get(RESTARTING))
                .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z");
    }

    @Test
    void twoPodsOfADeploymentClaimDifferentNamesOfItsPool() throws Exception {
        ADMIN.apps().deployments().inNamespace(NAMESPACE).resource(new DeploymentBuilder()
                .withNewMetadata().withName("workers").endMetadata()
                .withNewSpec().withReplicas(2)
                .withNewSelector().withMatchLabels(Map.of("app", "workers")).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app", "workers")).endMetadata()
                .withNewSpec().addNewContainer().withName("shard").withImage("example.invalid/shard:1").endContainer()
                .endSpec().endTemplate()
                .endSpec().build()).create();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<String>> claims = new ArrayList<>();
            for (String instance : List.of("pod-uid-a", "pod-uid-b")) {
                claims.add(threads.submit(() -> {
                    go.await();
                    return ShardPool.of(client, NAMESPACE, "workers").ring(RingKind.CONTROLLER_RING, "identities")
                            .instance(instance).retryPeriod(Duration.ofMillis(200)).claim(Duration.ofSeconds(20));
                }));
            }
            go.countDown();
            List<String> names = new ArrayList<>();
            for (Future<String> claim : claims) {
                names.add(claim.get(30, TimeUnit.SECONDS));
            }
            assertThat(names).containsExactlyInAnyOrder("workers-0", "workers-1");
            assertThat(List.of(instanceOf("workers-0"), instanceOf("workers-1")))
                    .containsExactlyInAnyOrder("pod-uid-a", "pod-uid-b");

            // both are live holders of a pool of 2: a stop of either is a restart
            assertThat(ShardDeparture.pool(client, NAMESPACE, "workers").decide("workers-0", java.time.Instant.now()).kind())
                    .isEqualTo(ShardDeparture.Kind.RESTART);
            ADMIN.apps().deployments().inNamespace(NAMESPACE).withName("workers")
                    .edit(d -> new DeploymentBuilder(d).editSpec().withReplicas(1).endSpec().build());
            assertThat(ShardDeparture.pool(client, NAMESPACE, "workers").decide("workers-1", java.time.Instant.now()))
                    .isEqualTo(ShardDeparture.Decision.leave(
                            "Deployment workers has 1 replica and the pool has 2 live holders [workers-0, workers-1]"));
        } finally {
            threads.shutdownNow();
        }
    }

    private static String instanceOf(String name) {
        return lease(name).getMetadata().getAnnotations().get(INSTANCE);
    }

    private static Lease lease(String name) {
        return ADMIN.leases().inNamespace(NAMESPACE).withName(name).get();
    }
}
