package dev.ringmaster.sharder.app;

import static dev.ringmaster.ring.testing.PinnedContract.STATE_LABEL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.ControllerRing;
import dev.ringmaster.sharder.model.RingObject;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The state metrics against the reference sharder's docs/monitoring.md and pkg/metrics (v0.13.0): names,
 * label names and values written out here, never taken from the code under test.
 */
class RingStateMetricsTest {

    private static final String CONTROLLERRING_LEASE_LABEL = "alpha.sharding.timebertt.dev/controllerring";
    private static final String CLUSTERRING_LEASE_LABEL = "alpha.sharding.timebertt.dev/clusterring";
    /** The reference's KnownShardStates and its unknown state. */
    private static final Set<String> REFERENCE_STATES = Set.of("orphaned", "dead", "uncertain", "expired", "ready", "unknown");

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AtomicBoolean leading = new AtomicBoolean();
    private final RingStateMetrics metrics = new RingStateMetrics(meters, leading::get);

    @Test
    void everyRingExportsItsGenerationsAndStatusInItsKindsFamily() {
        metrics.rings(List.of(
                ring(new ControllerRing(), "shop", "uid-1", 3L, 2L, 4, 3, "True", "ReconciliationSucceeded"),
                ring(new ClusterRing(), "shop", "uid-2", 7L, 7L, 2, 0, "False", "StrategyUnavailable")));

        assertThat(gauge("controller.sharding.controllerring.metadata.generation", "controllerring", "shop", "uid", "uid-1")).isEqualTo(3);
        assertThat(gauge("controller.sharding.controllerring.observed.generation", "controllerring", "shop", "uid", "uid-1")).isEqualTo(2);
        assertThat(gauge("controller.sharding.controllerring.status.shards", "controllerring", "shop", "uid", "uid-1")).isEqualTo(4);
        assertThat(gauge("controller.sharding.controllerring.status.available.shards", "controllerring", "shop", "uid", "uid-1")).isEqualTo(3);
        assertThat(gauge("controller.sharding.clusterring.metadata.generation", "clusterring", "shop", "uid", "uid-2")).isEqualTo(7);
        assertThat(gauge("controller.sharding.clusterring.status.available.shards", "clusterring", "shop", "uid", "uid-2")).isZero();
        // the reference's label names, exactly: no empty label of the other kind in these families
        assertThat(labelNames("controller.sharding.controllerring.status.shards")).containsExactly(Set.of("controllerring", "uid"));
        assertThat(labelNames("controller.sharding.clusterring.status.shards")).containsExactly(Set.of("clusterring", "uid"));

        assertThat(gauge("ringmaster.ring.ready", "controllerring", "shop", "clusterring", "", "reason", "ReconciliationSucceeded")).isEqualTo(1);
        assertThat(gauge("ringmaster.ring.ready", "clusterring", "shop", "controllerring", "", "reason", "StrategyUnavailable")).isZero();
    }

    @Test
    void aRingWithoutStatusCountsZeroAndIsNotReady() {
        ControllerRing fresh = new ControllerRing();
        fresh.setMetadata(new ObjectMetaBuilder().withName("fresh").withUid("uid-3").withGeneration(1L).build());
        metrics.rings(List.of(fresh));

        assertThat(gauge("controller.sharding.controllerring.observed.generation", "controllerring", "fresh", "uid", "uid-3")).isZero();
        assertThat(gauge("controller.sharding.controllerring.status.shards", "controllerring", "fresh", "uid", "uid-3")).isZero();
        assertThat(gauge("ringmaster.ring.ready", "controllerring", "fresh", "reason", "NotObserved")).isZero();
    }

    @Test
    void ringsGoneDisappear() {
        metrics.rings(List.of(ring(new ControllerRing(), "shop", "uid-1", 1L, 1L, 1, 1, "True", "ReconciliationSucceeded")));
        metrics.rings(List.of());
        assertThat(meters.find("controller.sharding.controllerring.metadata.generation").gauges()).isEmpty();
        assertThat(meters.find("ringmaster.ring.ready").gauges()).isEmpty();
    }

    @Test
    void everyShardLeaseIsAStatesetOverTheReferenceStatesWithItsInfo() {
        metrics.shards(List.of(
                lease("shards", "shard-0", "lease-uid-0", Map.of(CONTROLLERRING_LEASE_LABEL, "shop", STATE_LABEL, "ready")),
                lease("shards", "shard-1", "lease-uid-1", Map.of(CONTROLLERRING_LEASE_LABEL, "shop", STATE_LABEL, "dead")),
                lease("shards", "shard-2", "lease-uid-2", Map.of(CONTROLLERRING_LEASE_LABEL, "shop")),
                lease("shards", "shard-3", "lease-uid-3", Map.of(CONTROLLERRING_LEASE_LABEL, "shop", STATE_LABEL, "bogus"))));

        assertThat(gauge("controller.sharding.shard.info", "namespace", "shards", "shard", "shard-0", "controllerring", "shop",
                "uid", "lease-uid-0")).isEqualTo(1);
        assertThat(states("shard-0")).isEqualTo(stateset("ready"));
        assertThat(states("shard-1")).isEqualTo(stateset("dead"));
        assertThat(states("shard-2")).as("no state label yet").isEqualTo(stateset("unknown"));
        assertThat(states("shard-3")).isEqualTo(stateset("unknown"));
        assertThat(labelNames("controller.sharding.shard.info"))
                .containsExactly(Set.of("namespace", "shard", "controllerring", "clusterring", "uid"));
        assertThat(labelNames("controller.sharding.shard.state"))
                .containsExactly(Set.of("namespace", "shard", "controllerring", "clusterring", "state"));
    }

    /** A Lease labelled for a ring of each kind is a shard of both: two series each, told apart by the kind's label. */
    @Test
    void aLeaseOfRingsOfBothKindsIsAShardOfEach() {
        metrics.shards(List.of(lease("shards", "shard-0", "lease-uid-0",
                Map.of(CONTROLLERRING_LEASE_LABEL, "a", CLUSTERRING_LEASE_LABEL, "b", STATE_LABEL, "expired"))));

        assertThat(gauge("controller.sharding.shard.info", "shard", "shard-0", "controllerring", "a", "clusterring", "")).isEqualTo(1);
        assertThat(gauge("controller.sharding.shard.info", "shard", "shard-0", "clusterring", "b", "controllerring", "")).isEqualTo(1);
        assertThat(gauge("controller.sharding.shard.state", "clusterring", "b", "state", "expired")).isEqualTo(1);
    }

    @Test
    void leasesGoneAndStatesChangedAreFollowed() {
        metrics.shards(List.of(lease("shards", "shard-0", "u0", Map.of(CONTROLLERRING_LEASE_LABEL, "shop", STATE_LABEL, "ready")),
                lease("shards", "shard-1", "u1", Map.of(CONTROLLERRING_LEASE_LABEL, "shop", STATE_LABEL, "ready"))));
        metrics.shards(List.of(lease("shards", "shard-0", "u0", Map.of(CONTROLLERRING_LEASE_LABEL, "shop", STATE_LABEL, "uncertain"))));

        assertThat(states("shard-0")).isEqualTo(stateset("uncertain"));
        assertThat(meters.find("controller.sharding.shard.state").tags("shard", "shard-1").gauges()).isEmpty();
        assertThat(meters.find("controller.sharding.shard.info").tags("shard", "shard-1").gauges()).isEmpty();
    }

    @Test
    void theLeaderGaugeSaysWhetherThisReplicaLeads() {
        assertThat(meters.get("ringmaster.sharder.leader").gauge().value()).isZero();
        leading.set(true);
        assertThat(meters.get("ringmaster.sharder.leader").gauge().value()).isEqualTo(1);
    }

    /** A gauge holds its state weakly unless told otherwise: the supplier must survive a collection. */
    @Test
    void theLeaderGaugeSurvivesGarbageCollection() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new RingStateMetrics(registry, () -> leading.get() || true);
        for (int i = 0; i < 5; i++) {
            System.gc();
        }
        assertThat(registry.get("ringmaster.sharder.leader").gauge().value()).isEqualTo(1);
    }

    @Test
    void closingRemovesEveryGaugeSoASuccessorStartsClean() {
        metrics.rings(List.of(ring(new ControllerRing(), "shop", "uid-1", 1L, 1L, 1, 1, "True", "ReconciliationSucceeded")));
        metrics.shards(List.of(lease("shards", "shard-0", "u0", Map.of(CONTROLLERRING_LEASE_LABEL, "shop", STATE_LABEL, "ready"))));
        metrics.close();
        assertThat(meters.getMeters()).isEmpty();

        RingStateMetrics successor = new RingStateMetrics(meters, () -> true);
        successor.shards(List.of(lease("shards", "shard-0", "u0", Map.of(CONTROLLERRING_LEASE_LABEL, "shop", STATE_LABEL, "dead"))));
        assertThat(states("shard-0")).isEqualTo(stateset("dead"));
    }

    private double gauge(String name, String... tags) {
        return meters.get(name).tags(tags).gauge().value();
    }

    private Set<Set<String>> labelNames(String name) {
        return meters.find(name).gauges().stream().map(gauge -> gauge.getId().getTags().stream()
                .map(tag -> tag.getKey()).collect(Collectors.toSet())).collect(Collectors.toSet());
    }

    /** The stateset of a shard: each state's value. */
    private Map<String, Double> states(String shard) {
        Map<String, Double> states = new TreeMap<>();
        for (Gauge gauge : meters.find("controller.sharding.shard.state").tags("shard", shard).gauges()) {
            states.put(gauge.getId().getTag("state"), gauge.value());
        }
        return states;
    }

    private static Map<String, Double> stateset(String current) {
        return REFERENCE_STATES.stream().collect(Collectors.toMap(state -> state, state -> state.equals(current) ? 1.0 : 0.0,
                (a, b) -> a, TreeMap::new));
    }

    private static RingObject ring(RingObject ring, String name, String uid, long generation, long observed, int shards,
            int available, String ready, String reason) {
        ring.setMetadata(new ObjectMetaBuilder().withName(name).withUid(uid).withGeneration(generation).build());
        ring.getStatus().setObservedGeneration(observed);
        ring.getStatus().setShards(shards);
        ring.getStatus().setAvailableShards(available);
        ring.getStatus().setConditions(List.of(new ConditionBuilder().withType("Ready").withStatus(ready).withReason(reason)
                .build()));
        return ring;
    }

    private static Lease lease(String namespace, String name, String uid, Map<String, String> labels) {
        return new LeaseBuilder().withNewMetadata().withNamespace(namespace).withName(name).withUid(uid).withLabels(labels)
                .endMetadata().build();
    }
}
