package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The departure rules against the CRUD mock server; the decisions and their reasons are written out. */
@EnableKubernetesMockClient(crud = true)
class ShardDepartureTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:01:00Z");
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    KubernetesMockServer server;

    private KubernetesClient client;
    private String namespace;

    @BeforeEach
    void setUp() {
        client = server.createClient(builder -> builder.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig());
        namespace = "departure-test-" + NAMESPACES.incrementAndGet();
    }

    @AfterEach
    void tearDown() {
        client.close();
    }

    @Test
    void theFixedRules() {
        assertThat(ShardDeparture.leave().decide("s", NOW).kind()).isEqualTo(ShardDeparture.Kind.LEAVE);
        assertThat(ShardDeparture.restart().decide("s", NOW).kind()).isEqualTo(ShardDeparture.Kind.RESTART);
    }

    @Test
    void aStatefulSetPodBelowTheReplicasRestarts() {
        statefulSet("checksum-controller", 3, false);

        ShardDeparture.Decision decision = ShardDeparture.statefulSet(client, namespace, "checksum-controller-2")
                .decide("checksum-controller-2", NOW);

        assertThat(decision).isEqualTo(ShardDeparture.Decision.restart(
                "StatefulSet checksum-controller has 3 replicas and this is ordinal 2"));
    }

    @Test
    void aStatefulSetPodAboveTheReplicasLeaves() {
        statefulSet("checksum-controller", 2, false);

        ShardDeparture.Decision decision = ShardDeparture.statefulSet(client, namespace, "checksum-controller-2")
                .decide("checksum-controller-2", NOW);

        assertThat(decision).isEqualTo(ShardDeparture.Decision.leave(
                "StatefulSet checksum-controller has 2 replicas and this is ordinal 2"));
    }

    @Test
    void aPodOfAStatefulSetBeingDeletedLeaves() {
        statefulSet("checksum-controller", 3, true);

        ShardDeparture.Decision decision = ShardDeparture.statefulSet(client, namespace, "checksum-controller-0")
                .decide("checksum-controller-0", NOW);

        assertThat(decision).isEqualTo(ShardDeparture.Decision.leave("StatefulSet checksum-controller is being deleted"));
    }

    @Test
    void aPodOfAStatefulSetThatIsGoneLeaves() {
        ShardDeparture.Decision decision = ShardDeparture.statefulSet(client, namespace, "checksum-controller-0")
                .decide("checksum-controller-0", NOW);

        assertThat(decision).isEqualTo(ShardDeparture.Decision.leave("StatefulSet checksum-controller does not exist"));
    }

    @Test
    void aPodNotNamedLikeAStatefulSetPodLeaves() {
        ShardDeparture.Decision decision = ShardDeparture.statefulSet(client, namespace, "checksum-controller-7d9f-x2b4q")
                .decide("shard", NOW);

        assertThat(decision).isEqualTo(ShardDeparture.Decision.leave(
                "pod checksum-controller-7d9f-x2b4q is not named <statefulset>-<ordinal>"));
    }

    @Test
    void aStatefulSetThatCannotBeReadMeansLeave() {
        server.expect().get().withPath("/apis/apps/v1/namespaces/" + namespace + "/statefulsets/checksum-controller")
                .andReturn(403, "forbidden").once();

        ShardDeparture.Decision decision = ShardDeparture.statefulSet(client, namespace, "checksum-controller-0")
                .decide("checksum-controller-0", NOW);

        assertThat(decision.kind()).isEqualTo(ShardDeparture.Kind.LEAVE);
        assertThat(decision.reason()).startsWith("cannot read StatefulSet " + namespace + "/checksum-controller: HTTP 403");
    }

    @Test
    void aPoolWithNoMoreLiveHoldersThanReplicasRestarts() {
        deployment("pool", 3, false);
        lease("pool-0", NOW.minusSeconds(1), Map.of());
        lease("pool-1", NOW.minusSeconds(1), Map.of());
        lease("pool-2", NOW.minusSeconds(1), Map.of());
        lease("other-0", NOW.minusSeconds(1), Map.of());

        ShardDeparture.Decision decision = ShardDeparture.pool(client, namespace, "pool").decide("pool-1", NOW);

        assertThat(decision).isEqualTo(ShardDeparture.Decision.restart(
                "Deployment pool has 3 replicas and the pool has 3 live holders [pool-0, pool-1, pool-2]"));
    }

    @Test
    void aScaleDownLeaves() {
        deployment("pool", 2, false);
        lease("pool-0", NOW.minusSeconds(1), Map.of());
        lease("pool-1", NOW.minusSeconds(1), Map.of());
        lease("pool-2", NOW.minusSeconds(1), Map.of());

        ShardDeparture.Decision decision = ShardDeparture.pool(client, namespace, "pool").decide("pool-2", NOW);

        assertThat(decision).isEqualTo(ShardDeparture.Decision.leave(
                "Deployment pool has 2 replicas and the pool has 3 live holders [pool-0, pool-1, pool-2]"));
    }

    @Test
    void restartingAndExpiredSlotsAreNotLiveHolders() {
        deployment("pool", 2, false);
        lease("pool-0", NOW.minusSeconds(1), Map.of());
        lease("pool-1", NOW.minusSeconds(1), Map.of("ringmaster.dev/restarting", "2026-01-01T00:00:59Z"));
        lease("pool-2", NOW.minusSeconds(15), Map.of());   // renewed 15 s ago with a 15 s duration: expired
        lease("pool-3", NOW.minusSeconds(1), Map.of());

        ShardDeparture.Decision decision = ShardDeparture.pool(client, namespace, "pool").decide("pool-0", NOW);

        assertThat(decision).isEqualTo(ShardDeparture.Decision.restart(
                "Deployment pool has 2 replicas and the pool has 2 live holders [pool-0, pool-3]"));
    }

    @Test
    void aPoolWhoseDeploymentIsGoneOrDeletedLeaves() {
        lease("pool-0", NOW.minusSeconds(1), Map.of());
        assertThat(ShardDeparture.pool(client, namespace, "pool").decide("pool-0", NOW))
                .isEqualTo(ShardDeparture.Decision.leave("Deployment pool does not exist"));

        deployment("pool", 3, true);
        assertThat(ShardDeparture.pool(client, namespace, "pool").decide("pool-0", NOW))
                .isEqualTo(ShardDeparture.Decision.leave("Deployment pool is being deleted"));
    }

    @Test
    void leasesThatCannotBeListedMeanLeave() {
        deployment("pool", 3, false);
        server.expect().get().withPath("/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases")
                .andReturn(403, "forbidden").once();

        ShardDeparture.Decision decision = ShardDeparture.pool(client, namespace, "pool").decide("pool-0", NOW);

        assertThat(decision.kind()).isEqualTo(ShardDeparture.Kind.LEAVE);
        assertThat(decision.reason()).startsWith("cannot list the Leases of pool pool in " + namespace + ": HTTP 403");
    }

    private void statefulSet(String name, int replicas, boolean deleting) {
        StatefulSetBuilder set = new StatefulSetBuilder().withNewMetadata().withName(name).withNamespace(namespace)
                .endMetadata().withNewSpec().withReplicas(replicas).endSpec();
        if (deleting) {
            set.editMetadata().withFinalizers("test/keep").endMetadata();
        }
        client.apps().statefulSets().inNamespace(namespace).resource(set.build()).create();
        if (deleting) {
            client.apps().statefulSets().inNamespace(namespace).withName(name).delete();
        }
    }

    private void deployment(String name, int replicas, boolean deleting) {
        DeploymentBuilder deployment = new DeploymentBuilder().withNewMetadata().withName(name).withNamespace(namespace)
                .endMetadata().withNewSpec().withReplicas(replicas).endSpec();
        if (deleting) {
            deployment.editMetadata().withFinalizers("test/keep").endMetadata();
        }
        client.apps().deployments().inNamespace(namespace).resource(deployment.build()).create();
        if (deleting) {
            client.apps().deployments().inNamespace(namespace).withName(name).delete();
        }
    }

    private void lease(String name, Instant renewed, Map<String, String> annotations) {
        client.leases().inNamespace(namespace).resource(new LeaseBuilder().withNewMetadata().withName(name)
                .withNamespace(namespace).addToAnnotations(annotations).endMetadata()
                .withNewSpec().withHolderIdentity(name).withLeaseDurationSeconds(15)
                .withRenewTime(ZonedDateTime.ofInstant(renewed, ZoneOffset.UTC)).endSpec().build()).create();
    }
}
