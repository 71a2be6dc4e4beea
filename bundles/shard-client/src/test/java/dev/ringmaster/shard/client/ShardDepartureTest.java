package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The departure rules against the CRUD mock server; the decisions and their reasons are written out. */
class ShardDepartureTest extends MockServerTestBase {

    private static final Instant NOW = Instant.parse("2026-01-01T00:01:00Z");

    @Test
    void theFixedRules() {
        assertThat(ShardDeparture.leave().decide("s", NOW).kind()).isEqualTo(ShardDeparture.Kind.LEAVE);
        assertThat(ShardDeparture.restart().decide("s", NOW).kind()).isEqualTo(ShardDeparture.Kind.RESTART);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void aStatefulSetPodsDecision(String situation, int replicas, boolean deleting, String pod,
                                  ShardDeparture.Decision expected) {
        statefulSet("checksum-controller", replicas, deleting);

        assertThat(statefulSetDecision(pod, pod)).isEqualTo(expected);
    }

    static Stream<Arguments> aStatefulSetPodsDecision() {
        return Stream.of(
                Arguments.of("a pod below the replicas restarts", 3, false, "checksum-controller-2",
                        ShardDeparture.Decision.restart("StatefulSet checksum-controller has 3 replicas and this is ordinal 2")),
                Arguments.of("a pod above the replicas leaves", 2, false, "checksum-controller-2",
                        ShardDeparture.Decision.leave("StatefulSet checksum-controller has 2 replicas and this is ordinal 2")),
                Arguments.of("a pod of a StatefulSet being deleted leaves", 3, true, "checksum-controller-0",
                        ShardDeparture.Decision.leave("StatefulSet checksum-controller is being deleted")));
    }

    @Test
    void aPodOfAStatefulSetThatIsGoneLeaves() {
        ShardDeparture.Decision decision = statefulSetDecision("checksum-controller-0", "checksum-controller-0");

        assertThat(decision).isEqualTo(ShardDeparture.Decision.leave("StatefulSet checksum-controller does not exist"));
    }

    @Test
    void aPodNotNamedLikeAStatefulSetPodLeaves() {
        ShardDeparture.Decision decision = statefulSetDecision("checksum-controller-7d9f-x2b4q", "shard");

        assertThat(decision).isEqualTo(ShardDeparture.Decision.leave(
                "pod checksum-controller-7d9f-x2b4q is not named <statefulset>-<ordinal>"));
    }

    @Test
    void aStatefulSetThatCannotBeReadMeansLeave() {
        server.expect().get().withPath("/apis/apps/v1/namespaces/" + namespace + "/statefulsets/checksum-controller")
                .andReturn(403, "forbidden").once();

        ShardDeparture.Decision decision = statefulSetDecision("checksum-controller-0", "checksum-controller-0");

        assertThat(decision.kind()).isEqualTo(ShardDeparture.Kind.LEAVE);
        assertThat(decision.reason()).startsWith("cannot read StatefulSet " + namespace + "/checksum-controller: HTTP 403");
    }

    /** Live holders: the Leases of the pool's names renewed a second ago; another pool's Lease does not count. */
    @ParameterizedTest(name = "{0}")
    @MethodSource
    void aPoolSlotsDecision(String situation, int replicas, List<String> live, String shard,
                            ShardDeparture.Decision expected) {
        deployment("pool", replicas, false);
        liveLeases(live.toArray(String[]::new));

        assertThat(poolDecision(shard)).isEqualTo(expected);
    }

    static Stream<Arguments> aPoolSlotsDecision() {
        return Stream.of(
                Arguments.of("no more live holders than replicas: restart", 3,
                        List.of("pool-0", "pool-1", "pool-2", "other-0"), "pool-1", ShardDeparture.Decision.restart(
                                "Deployment pool has 3 replicas and the pool has 3 live holders [pool-0, pool-1, pool-2]")),
                Arguments.of("a scale-down leaves", 2, List.of("pool-0", "pool-1", "pool-2"), "pool-2",
                        ShardDeparture.Decision.leave(
                                "Deployment pool has 2 replicas and the pool has 3 live holders [pool-0, pool-1, pool-2]")));
    }

    @Test
    void restartingAndExpiredSlotsAreNotLiveHolders() {
        deployment("pool", 2, false);
        lease("pool-0", NOW.minusSeconds(1), Map.of());
        lease("pool-1", NOW.minusSeconds(1), Map.of("ringmaster.dev/restarting", "2026-01-01T00:00:59Z"));
        lease("pool-2", NOW.minusSeconds(15), Map.of());   // renewed 15 s ago with a 15 s duration: expired
        lease("pool-3", NOW.minusSeconds(1), Map.of());

        ShardDeparture.Decision decision = poolDecision("pool-0");

        assertThat(decision).isEqualTo(ShardDeparture.Decision.restart(
                "Deployment pool has 2 replicas and the pool has 2 live holders [pool-0, pool-3]"));
    }

    @Test
    void aPoolWhoseDeploymentIsGoneOrDeletedLeaves() {
        liveLeases("pool-0");
        assertThat(poolDecision("pool-0"))
                .isEqualTo(ShardDeparture.Decision.leave("Deployment pool does not exist"));

        deployment("pool", 3, true);
        assertThat(poolDecision("pool-0"))
                .isEqualTo(ShardDeparture.Decision.leave("Deployment pool is being deleted"));
    }

    @Test
    void leasesThatCannotBeListedMeanLeave() {
        deployment("pool", 3, false);
        server.expect().get().withPath("/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases")
                .andReturn(403, "forbidden").once();

        ShardDeparture.Decision decision = poolDecision("pool-0");

        assertThat(decision.kind()).isEqualTo(ShardDeparture.Kind.LEAVE);
        assertThat(decision.reason()).startsWith("cannot list the Leases of pool pool in " + namespace + ": HTTP 403");
    }

    private void statefulSet(String name, int replicas, boolean deleting) {
        create(client.apps().statefulSets(), new StatefulSetBuilder().withNewMetadata().withName(name)
                .withNamespace(namespace).endMetadata().withNewSpec().withReplicas(replicas).endSpec().build(), deleting);
    }

    private void deployment(String name, int replicas, boolean deleting) {
        create(client.apps().deployments(), new DeploymentBuilder().withNewMetadata().withName(name)
                .withNamespace(namespace).endMetadata().withNewSpec().withReplicas(replicas).endSpec().build(), deleting);
    }

    /** Creates {@code workload}; {@code deleting}: then deletes it, which a finalizer holds up. */
    private <T extends HasMetadata> void create(MixedOperation<T, ?, ? extends Resource<T>> workloads, T workload,
                                                boolean deleting) {
        if (deleting) {
            workload.getMetadata().setFinalizers(List.of("test/keep"));
        }
        workloads.inNamespace(namespace).resource(workload).create();
        if (deleting) {
            workloads.inNamespace(namespace).withName(workload.getMetadata().getName()).delete();
        }
    }

    private ShardDeparture.Decision statefulSetDecision(String pod, String shard) {
        return ShardDeparture.statefulSet(client, namespace, pod).decide(shard, NOW);
    }

    private ShardDeparture.Decision poolDecision(String shard) {
        return ShardDeparture.pool(client, namespace, "pool").decide(shard, NOW);
    }

    /** Leases renewed a second ago by their holders, with no annotations. */
    private void liveLeases(String... names) {
        for (String name : names) {
            lease(name, NOW.minusSeconds(1), Map.of());
        }
    }

    private void lease(String name, Instant renewed, Map<String, String> annotations) {
        client.leases().inNamespace(namespace).resource(new LeaseBuilder().withNewMetadata().withName(name)
                .withNamespace(namespace).addToAnnotations(annotations).endMetadata()
                .withNewSpec().withHolderIdentity(name).withLeaseDurationSeconds(15)
                .withRenewTime(ZonedDateTime.ofInstant(renewed, ZoneOffset.UTC)).endSpec().build()).create();
    }
}
