package dev.ringmaster.sharder.ring;

import static dev.ringmaster.sharder.testing.TestRings.configMapRing;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RingRegistryTest {

    private final AtomicInteger builds = new AtomicInteger();
    private final PartitioningStrategy counting = shards -> {
        builds.incrementAndGet();
        return new RendezvousStrategy().build(shards);
    };
    private final List<String> built = new ArrayList<>();
    private final RingRegistry registry = new RingRegistry(ring -> built.add(ring.name()));
    private final List<List<RingChange>> notifications = new ArrayList<>();

    private static Membership membership(Map<String, List<ShardInfo>> shards) {
        Map<RingKey, List<ShardInfo>> byKey = new java.util.HashMap<>();
        shards.forEach((ring, infos) -> byKey.put(RingKey.clusterRing(ring), infos));
        return new Membership(byKey);
    }

    private static ShardInfo shard(String name, ShardState state) {
        return new ShardInfo(name, state, 1);
    }

    private static List<RingObject> rings(RingObject... rings) {
        return List.of(rings);
    }

    private ShardRing shardRing(String ring) {
        return registry.view(RingKey.clusterRing(ring)).orElseThrow().shardRing().orElseThrow();
    }

    private List<String> changedRings() {
        return notifications.stream().flatMap(List::stream).map(change -> change.ring().name()).toList();
    }

    /** Ring a's shards a-0 and a-1 now in these states, ring b's one shard expired as before. */
    private void shardsOfRingA(ShardState a0, ShardState a1) {
        registry.update(inputs -> inputs.withMembership(membership(Map.of(
                "a", List.of(shard("a-0", a0), shard("a-1", a1)),
                "b", List.of(shard("b-0", ShardState.EXPIRED))))));
    }

    /** The one change of the one notification the test caused. */
    /** The one change notified, which is of the ClusterRing {@code ring}. */
    private RingChange theOnlyChangeOf(String ring) {
        assertThat(notifications).singleElement().satisfies(changes -> assertThat(changes).hasSize(1));
        RingChange change = notifications.get(0).get(0);
        assertThat(change.ring()).isEqualTo(RingKey.clusterRing(ring));
        return change;
    }

    @BeforeEach
    void twoRingsOnTheDefaultStrategy() {
        registry.addListener(notifications::add);
        registry.update(inputs -> inputs
                .withStrategies(Map.of("rendezvous", new StrategyBinding(counting, Map.of())))
                .withDefaultStrategy("rendezvous")
                .withInterpreters(Map.of(DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter()))
                .withRings(RingKind.CLUSTER_RING, rings(configMapRing("a"), configMapRing("b")))
                .withMembership(membership(Map.of(
                        "a", List.of(shard("a-0", ShardState.READY), shard("a-1", ShardState.DEAD)),
                        "b", List.of(shard("b-0", ShardState.EXPIRED))))));
        notifications.clear();
        builds.set(0);
        built.clear();
    }

    @Test
    void snapshotsHoldOnlyAvailableShardsWithTheirWeights() {
        registry.update(inputs -> inputs.withMembership(membership(Map.of(
                "a", List.of(new ShardInfo("a-0", ShardState.UNCERTAIN, 3), shard("a-1", ShardState.ORPHANED))))));
        ShardRing a = shardRing("a");
        assertThat(registry.view(RingKey.clusterRing("a")).orElseThrow().strategyName()).isEqualTo("rendezvous");
        assertThat(a.shards()).containsExactly(new Shard("a-0", 3));
        assertThat(a.shardFor("/ConfigMap/default/foo")).contains("a-0");
        assertThat(shardRing("b").shards()).isEmpty();
        assertThat(shardRing("b").shardFor("x")).isEmpty();
    }

    @Test
    void unchangedInputsKeepTheViewAndNotifyNobody() {
        RingView before = registry.view(RingKey.clusterRing("a")).orElseThrow();
        registry.update(inputs -> inputs.withDefaultStrategy("rendezvous"));
        assertThat(registry.view(RingKey.clusterRing("a")).orElseThrow()).isSameAs(before);
        assertThat(notifications).isEmpty();
        assertThat(builds.get()).isZero();
    }

    @Test
    void aChangeOfUnavailableShardsKeepsTheStrategyRingAndMovesNothing() {
        ShardRing before = shardRing("a");
        shardsOfRingA(ShardState.EXPIRED, ShardState.ORPHANED);
        assertThat(shardRing("a")).isSameAs(before);
        assertThat(builds.get()).isZero();
        // the shard states are news for the ring's status, not for its objects
        RingChange change = theOnlyChangeOf("a");
        assertThat(change.movesObjects()).isFalse();
        assertThat(change.resourcesChanged()).isFalse();
    }

    @Test
    void aMembershipChangeRebuildsOnlyItsRingOnceAndNotifiesOnce() {
        ShardRing b = shardRing("b");
        shardsOfRingA(ShardState.READY, ShardState.READY);
        assertThat(changedRings()).containsExactly("a");
        assertThat(notifications.get(0).get(0).movesObjects()).isTrue();
        assertThat(builds.get()).isEqualTo(1);
        assertThat(built).containsExactly("a");
        assertThat(shardRing("b")).isSameAs(b);
        assertThat(shardRing("a").shards()).hasSize(2);
    }

    @Test
    void aMissingStrategyLeavesTheRingWithoutStrategyRingUntilItReturns() {
        registry.update(inputs -> inputs.withStrategies(Map.of()));
        RingView a = registry.view(RingKey.clusterRing("a")).orElseThrow();
        assertThat(a.shardRing()).isEmpty();
        assertThat(a.canAct()).isFalse();
        assertThat(a.blocker()).map(RingView.Blocker::reason).contains(RingView.STRATEGY_UNAVAILABLE);
        assertThat(changedRings()).containsExactly("a", "b");

        registry.update(inputs -> inputs.withStrategies(Map.of("rendezvous", new StrategyBinding(counting, Map.of()))));
        assertThat(registry.view(RingKey.clusterRing("a")).orElseThrow().canAct()).isTrue();
    }

    @Test
    void changedStrategySettingsRebuildTheRing() {
        ShardRing before = shardRing("a");
        registry.update(inputs -> inputs.withStrategies(
                Map.of("rendezvous", new StrategyBinding(counting, Map.of("tokensPerShard", 7)))));
        assertThat(shardRing("a")).isNotSameAs(before);
        assertThat(builds.get()).isEqualTo(2);
        assertThat(notifications).singleElement().satisfies(changes -> assertThat(changes)
                .allSatisfy(change -> assertThat(change.movesObjects()).isTrue()));
    }

    @Test
    void theDefaultStrategyAppliesOnlyToRingsNamingNone() {
        PartitioningStrategy other = new RendezvousStrategy();
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, rings(configMapRing("a"), configMapRing("b", "rendezvous")))
                .withStrategies(Map.of("rendezvous", new StrategyBinding(counting, Map.of()),
                        "other", new StrategyBinding(other, Map.of())))
                .withDefaultStrategy("other"));
        assertThat(registry.view(RingKey.clusterRing("a")).orElseThrow().strategyName()).isEqualTo("other");
        assertThat(registry.view(RingKey.clusterRing("b")).orElseThrow().strategyName()).isEqualTo("rendezvous");
        assertThat(shardRing("a")).isNotSameAs(shardRing("b"));
        assertThat(registry.view(RingKey.clusterRing("b")).orElseThrow().strategySource()).isEqualTo("spec.strategy");
    }

    @Test
    void aFailingStrategyMakesTheRingUnavailableWithoutThrowingOrRetryingEachUpdate() {
        AtomicInteger attempts = new AtomicInteger();
        PartitioningStrategy broken = shards -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("boom");
        };
        registry.update(inputs -> inputs.withStrategies(Map.of("rendezvous", new StrategyBinding(broken, Map.of()))));
        assertThat(registry.view(RingKey.clusterRing("a")).orElseThrow().shardRing()).isEmpty();
        int afterFirst = attempts.get();
        registry.update(inputs -> inputs.withDefaultStrategy("rendezvous"));
        assertThat(attempts.get()).isEqualTo(afterFirst);
    }

    @Test
    void aStatusUpdateOfTheRingObjectIsNewsButMovesNothing() {
        ClusterRing a = configMapRing("a");
        a.getStatus().setShards(2);
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, rings(a, registry.view(RingKey.clusterRing("b")).orElseThrow().ring())));
        RingChange change = theOnlyChangeOf("a");
        assertThat(change.movesObjects()).isFalse();
        assertThat(builds.get()).isZero();
    }

    @Test
    void removedRingsAreForgottenAndReported() {
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, rings(registry.view(RingKey.clusterRing("a")).orElseThrow().ring())));
        assertThat(registry.view(RingKey.clusterRing("b"))).isEmpty();
        RingChange change = theOnlyChangeOf("b");
        assertThat(change.after()).isEmpty();
        assertThat(change.resourcesChanged()).isTrue();
        assertThat(change.movesObjects()).isFalse();
    }
}
