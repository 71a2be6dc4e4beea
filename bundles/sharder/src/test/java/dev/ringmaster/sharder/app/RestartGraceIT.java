package dev.ringmaster.sharder.app;

import static dev.ringmaster.ring.testing.PinnedContract.RESTARTING;
import static dev.ringmaster.ring.testing.PinnedContract.RING_LABEL;
import static dev.ringmaster.ring.testing.PinnedContract.STATE_LABEL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.testing.StandardErrorLines;
import dev.ringmaster.sharder.testing.TestLeases;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The restart grace on a real API server (docs/design.md section 3): a shard Lease its shard marked
 * {@code ringmaster.dev/restarting} stays {@code expired} and its own past the point where the lease
 * detector alone would take it (2 × its lease duration), is taken (holder {@code shardlease-controller},
 * {@code dead}) once the ring's grace ran out, and a change of the ring's grace applies at once.
 */
class RestartGraceIT {

    private static final String NAMESPACE = "restart-grace-it";
    private static final String RING = "restart-grace-it";
    /** The holder of a Lease the sharder took (docs/design.md section 1), written out as PinnedContract's strings are. */
    private static final String SHARDER = "shardlease-controller";
    /** The shards' lease duration: the detector alone would take a Lease 2 × 2 s after its last renewal. */
    private static final int LEASE_SECONDS = 2;
    private static final int GRACE_SECONDS = 9;

    private static final KubernetesClient ADMIN = RealApiServer.shared().admin();

    @Test
    void aRestartingShardKeepsItsLeaseForTheGraceAndTheGraceFollowsTheRing() throws Exception {
        RingCrds.install(ADMIN, RingCrds.CLUSTER_RING_CRD);
        ADMIN.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
                .serverSideApply();
        ring(GRACE_SECONDS);

        try (StandardErrorLines log = new StandardErrorLines(); SharderReplica sharder = replica()) {
            sharder.start();
            await().atMost(Duration.ofSeconds(60)).until(sharder::isLeader);
            await().atMost(Duration.ofSeconds(30)).until(() -> sharder.registry().view(
                    RingKey.clusterRing(RING)).isPresent());

            // shard-0 stops to restart now: renewed and marked at t0, and never back
            Instant t0 = restartingLease("shard-0");
            await().atMost(Duration.ofSeconds(10)).until(() -> "expired".equals(state("shard-0")));
            // past the detector's uncertain point (t0 + 4 s), inside the grace (t0 + 9 s): still the shard's
            sleepUntil(t0.plusSeconds(2L * LEASE_SECONDS + 2));
            assertThat(lease("shard-0").getSpec().getHolderIdentity()).isEqualTo("shard-0");
            assertThat(state("shard-0")).isEqualTo("expired");
            assertThat(sharder.membership().availableShards(RingKey.clusterRing(RING)))
                    .extracting(shard -> shard.name()).containsExactly("shard-0");

            // the grace ran out: taken, dead, and the mark gone with it
            await().atMost(Duration.ofSeconds(10)).until(() -> SHARDER.equals(lease("shard-0").getSpec().getHolderIdentity()));
            Instant taken = Instant.now();
            assertThat(taken).isAfterOrEqualTo(t0.plusSeconds(GRACE_SECONDS));
            await().atMost(Duration.ofSeconds(10)).until(() -> "dead".equals(state("shard-0")));
            assertThat(lease("shard-0").getMetadata().getAnnotations()).doesNotContainKey(RESTARTING);
            assertThat(log.containing("Shard " + NAMESPACE + "/shard-0 stopped at")).hasSize(1);
            assertThat(log.containing("Shard " + NAMESPACE + "/shard-0 did not come back")).hasSize(1);

            // a long grace holds shard-1; cut to 0, its Lease is taken at once, not after the old grace
            ring(600);
            await().atMost(Duration.ofSeconds(30)).until(() -> Integer.valueOf(600).equals(sharder.registry()
                    .view(RingKey.clusterRing(RING)).map(view -> view.ring().getSpec().getShardRestartGraceSeconds())
                    .orElse(null))); // the replica's watch has the change
            Instant t1 = restartingLease("shard-1");
            await().atMost(Duration.ofSeconds(10)).until(() -> "expired".equals(state("shard-1")));
            sleepUntil(t1.plusSeconds(2L * LEASE_SECONDS + 1));
            assertThat(lease("shard-1").getSpec().getHolderIdentity()).isEqualTo("shard-1");
            ring(0);
            await().atMost(Duration.ofSeconds(10)).until(() -> SHARDER.equals(lease("shard-1").getSpec().getHolderIdentity()));
            await().atMost(Duration.ofSeconds(10)).until(() -> "dead".equals(state("shard-1")));
        }
    }

    @AfterAll
    static void removeTheRing() {
        RingCrds.deleteRing(ADMIN, RingCrds.CLUSTER_RING_CRD, RING);
    }

    private static SharderReplica replica() {
        return TestReplicas.withDefaults(ADMIN, NAMESPACE, "restart-grace-it");
    }

    /** The ClusterRing over the ConfigMaps of {@value #NAMESPACE}, with this restart grace. */
    private static void ring(int graceSeconds) {
        RingCrds.applyRing(ADMIN, "ClusterRing", RING, NAMESPACE, "shardRestartGraceSeconds: " + graceSeconds);
    }

    /**
     * A shard's Lease as a shard stopping to restart leaves it: still its own, renewed last now, marked
     * restarting now (as the shard writes it, RFC 3339 with the shard's clock); returns that time.
     */
    private static Instant restartingLease(String shard) {
        Instant now = Instant.now();
        ADMIN.leases().inNamespace(NAMESPACE).resource(TestLeases.shardLease(NAMESPACE, shard, RING, now, LEASE_SECONDS)
                .editMetadata().withLabels(Map.of(RING_LABEL, RING)).addToAnnotations(RESTARTING, now.toString())
                .endMetadata().build()).create();
        return now;
    }

    private static Lease lease(String shard) {
        return ADMIN.leases().inNamespace(NAMESPACE).withName(shard).get();
    }

    private static String state(String shard) {
        Map<String, String> labels = lease(shard).getMetadata().getLabels();
        return labels == null ? null : labels.get(STATE_LABEL);
    }

    private static void sleepUntil(Instant at) throws InterruptedException {
        long millis = Duration.between(Instant.now(), at).toMillis();
        if (millis > 0) {
            Thread.sleep(millis);
        }
    }
}
