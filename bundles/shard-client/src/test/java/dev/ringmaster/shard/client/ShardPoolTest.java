package dev.ringmaster.shard.client;

import static dev.ringmaster.ring.testing.PinnedContract.INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.testing.MutableClock;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Claims of pool names against the CRUD mock server; the expected names and Lease fields are written out. */
class ShardPoolTest extends MockServerTestBase {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final MutableClock clock = new MutableClock(T0);

    private ShardPool pool(String instance) {
        return ShardPool.of(client, namespace, "workers").ring(RingKind.CONTROLLER_RING, "checksums")
                .instance(instance).clock(clock).retryPeriod(Duration.ofMillis(50));
    }

    @Test
    void theFirstClaimTakesTheLowestNameAndWritesTheLease() throws Exception {
        deployment(3);

        assertThat(pool("uid-a").claim(Duration.ofSeconds(5))).isEqualTo("workers-0");

        Lease lease = stored("workers-0");
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("workers-0");
        assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(15);
        assertThat(lease.getSpec().getRenewTime().toInstant()).isEqualTo(T0);
        assertThat(lease.getSpec().getAcquireTime().toInstant()).isEqualTo(T0);
        assertThat(lease.getMetadata().getLabels()).containsOnly(Map.entry("alpha.sharding.timebertt.dev/controllerring", "checksums"));
        assertThat(lease.getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-a");
    }

    @Test
    void heldNamesAreSkipped() throws Exception {
        deployment(3);
        lease("workers-0", "uid-a", T0, Map.of());
        lease("workers-1", "uid-b", T0, Map.of());

        assertThat(pool("uid-c").claim(Duration.ofSeconds(5))).isEqualTo("workers-2");
        assertThat(stored("workers-0").getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-a");
    }

    @Test
    void aRestartingNameIsTakenOver() throws Exception {
        deployment(2);
        lease("workers-0", "uid-a", T0, Map.of());
        lease("workers-1", "uid-b", T0, Map.of("ringmaster.dev/restarting", "2026-01-01T00:00:00Z"));
        clock.set(T0.plusSeconds(1));

        assertThat(pool("uid-c").claim(Duration.ofSeconds(5))).isEqualTo("workers-1");

        Lease lease = stored("workers-1");
        assertThat(lease.getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-c")
                .doesNotContainKey("ringmaster.dev/restarting");
        assertThat(lease.getSpec().getLeaseTransitions()).isEqualTo(1);
        assertThat(lease.getSpec().getAcquireTime().toInstant()).isEqualTo(Instant.parse("2026-01-01T00:00:01Z"));
    }

    @Test
    void releasedAndExpiredNamesAreFree() throws Exception {
        deployment(3);
        lease("workers-0", "uid-a", T0, Map.of());
        client.leases().inNamespace(namespace).resource(new LeaseBuilder().withNewMetadata().withName("workers-1")
                .endMetadata().withNewSpec().withHolderIdentity("").withLeaseDurationSeconds(1).endSpec().build()).create();
        assertThat(pool("uid-c").claim(Duration.ofSeconds(5))).isEqualTo("workers-1");

        clock.set(T0.plusSeconds(15));
        assertThat(pool("uid-d").claim(Duration.ofSeconds(5))).as("workers-0 expired").isEqualTo("workers-0");
    }

    @Test
    void aClaimWaitsWhileAllNamesAreHeldAndSeesTheDeploymentGrow() throws Exception {
        deployment(1);
        lease("workers-0", "uid-a", T0, Map.of());
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<String> claim = thread.submit(() -> pool("uid-b").claim(Duration.ofSeconds(10)));
            Thread.sleep(300);
            assertThat(claim).isNotDone();

            client.apps().deployments().inNamespace(namespace).withName("workers")
                    .edit(d -> new DeploymentBuilder(d).editSpec().withReplicas(2).endSpec().build());

            assertThat(claim.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("workers-1");
        } finally {
            thread.shutdownNow();
        }
    }

    @Test
    void aClaimGivesUpAtItsTimeout() {
        deployment(1);
        lease("workers-0", "uid-a", T0, Map.of());

        assertThatThrownBy(() -> pool("uid-b").claim(Duration.ofMillis(200)))
                .isInstanceOf(TimeoutException.class)
                .hasMessage("all 1 slots of pool workers in " + namespace + " stayed held for PT0.2S");
    }

    @Test
    void aClaimWithoutItsDeploymentFails() {
        assertThatThrownBy(() -> pool("uid-a").claim(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Deployment " + namespace + "/workers of pool workers does not exist: the pool's size is its replicas");
    }

    @Test
    void concurrentClaimersGetDifferentNames() throws Exception {
        deployment(4);
        int claimers = 4;
        ExecutorService threads = Executors.newFixedThreadPool(claimers);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<String>> claims = new ArrayList<>();
            for (int i = 0; i < claimers; i++) {
                String instance = "uid-" + i;
                Callable<String> claim = () -> {
                    go.await();
                    return pool(instance).claim(Duration.ofSeconds(10));
                };
                claims.add(threads.submit(claim));
            }
            go.countDown();
            List<String> names = new ArrayList<>();
            for (Future<String> claim : claims) {
                names.add(claim.get(20, java.util.concurrent.TimeUnit.SECONDS));
            }
            assertThat(names).containsExactlyInAnyOrder("workers-0", "workers-1", "workers-2", "workers-3");
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void theShardingBuilderClaimsAndTheLeaseRenewsTheClaim() {
        deployment(2);
        lease("workers-0", "uid-a", T0, Map.of());
        ScheduledExecutorServiceHolder holder = new ScheduledExecutorServiceHolder();
        try (Sharding sharding = Sharding.forRing("checksums").ringKind(RingKind.CONTROLLER_RING).namespace(namespace)
                .client(client).clock(clock).executor(holder.executor).instance("uid-b")
                .identityPool("workers", Duration.ofSeconds(5)).build()) {
            assertThat(sharding.lease().name()).isEqualTo("workers-1");
            assertThat(sharding.labels().shard()).isEqualTo("workers-1");
            clock.set(T0.plusSeconds(2));
            sharding.lease().tick();
            assertThat(sharding.lease().isHeld()).isTrue();
            assertThat(stored("workers-1").getSpec().getLeaseTransitions()).as("the claim was the acquisition").isNull();
            assertThat(stored("workers-1").getSpec().getAcquireTime().toInstant()).isEqualTo(T0);
            assertThat(stored("workers-1").getSpec().getRenewTime().toInstant()).isEqualTo(T0.plusSeconds(2));
        } finally {
            holder.executor.shutdownNow();
        }
    }

    @Test
    void aShardNameAndAPoolExcludeEachOther() {
        assertThatThrownBy(() -> Sharding.forRing("checksums").namespace(namespace).client(client).shard("s")
                .identityPool("workers", Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("set either shard(...) or identityPool(...), not both");
    }

    @Test
    void slotIndices() {
        assertThat(ShardPool.slotIndex("workers", "workers-0")).isEqualTo(0);
        assertThat(ShardPool.slotIndex("workers", "workers-12")).isEqualTo(12);
        assertThat(ShardPool.slotIndex("workers", "workers-01")).isEqualTo(-1);
        assertThat(ShardPool.slotIndex("workers", "workers-x")).isEqualTo(-1);
        assertThat(ShardPool.slotIndex("workers", "other-1")).isEqualTo(-1);
        assertThat(ShardPool.slotIndex("workers", "workers-a-1")).isEqualTo(-1);
    }

    private static final class ScheduledExecutorServiceHolder {
        final java.util.concurrent.ScheduledExecutorService executor = Executors.newScheduledThreadPool(2);
    }

    private void deployment(int replicas) {
        client.apps().deployments().inNamespace(namespace).resource(new DeploymentBuilder().withNewMetadata()
                .withName("workers").withNamespace(namespace).endMetadata()
                .withNewSpec().withReplicas(replicas).endSpec().build()).create();
    }

    private void lease(String name, String instance, Instant renewed, Map<String, String> annotations) {
        client.leases().inNamespace(namespace).resource(new LeaseBuilder().withNewMetadata().withName(name)
                .withNamespace(namespace).addToAnnotations(INSTANCE, instance).addToAnnotations(annotations).endMetadata()
                .withNewSpec().withHolderIdentity(name).withLeaseDurationSeconds(15)
                .withAcquireTime(utc(renewed)).withRenewTime(utc(renewed)).endSpec().build()).create();
    }

    private Lease stored(String name) {
        return client.leases().inNamespace(namespace).withName(name).get();
    }

    private static ZonedDateTime utc(Instant instant) {
        return ZonedDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
