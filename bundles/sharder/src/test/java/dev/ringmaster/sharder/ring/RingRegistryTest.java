package dev.ringmaster.sharder.ring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingSnapshot;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import dev.ringmaster.sharder.membership.Membership;
import dev.ringmaster.sharder.membership.ShardInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RingRegistryTest {

    private final AtomicInteger builds = new AtomicInteger();
    private final PartitioningStrategy counting = shards -> {
        builds.incrementAndGet();
        return new RendezvousStrategy().build(shards);
    };
    private final RingRegistry registry = new RingRegistry();
    private final List<Set<String>> notifications = new ArrayList<>();

    private static Membership membership(Map<String, List<ShardInfo>> shards) {
        return new Membership(shards);
    }

    private static ShardInfo shard(String name, ShardState state) {
        return new ShardInfo(name, state, 1);
    }

    @BeforeEach
    void twoRingsOnTheDefaultStrategy() {
        registry.addListener(notifications::add);
        registry.update(inputs -> inputs
                .withStrategies(Map.of("rendezvous", new StrategyBinding(counting, Map.of())))
                .withDefaultStrategy("rendezvous")
                .withRings(Map.of("a", "", "b", ""))
                .withMembership(membership(Map.of(
                        "a", List.of(shard("a-0", ShardState.READY), shard("a-1", ShardState.DEAD)),
                        "b", List.of(shard("b-0", ShardState.EXPIRED))))));
        notifications.clear();
        builds.set(0);
    }

    @Test
    void snapshotsHoldOnlyAvailableShardsWithTheirWeights() {
        registry.update(inputs -> inputs.withMembership(membership(Map.of(
                "a", List.of(new ShardInfo("a-0", ShardState.UNCERTAIN, 3), shard("a-1", ShardState.ORPHANED))))));
        RingSnapshot a = registry.snapshot("a").orElseThrow();
        assertThat(a.strategy()).isEqualTo("rendezvous");
        assertThat(a.shards().shards()).containsExactly(new Shard("a-0", 3));
        assertThat(a.shardFor("/ConfigMap/default/foo")).contains("a-0");
        assertThat(registry.snapshot("b").orElseThrow().shards().shards()).isEmpty();
        assertThat(registry.snapshot("b").orElseThrow().shardFor("x")).isEmpty();
    }

    @Test
    void unchangedInputsKeepTheSnapshotAndNotifyNobody() {
        RingSnapshot before = registry.snapshot("a").orElseThrow();
        registry.update(inputs -> inputs.withMembership(membership(Map.of(
                "a", List.of(shard("a-0", ShardState.EXPIRED), shard("a-1", ShardState.ORPHANED)),
                "b", List.of(shard("b-0", ShardState.READY))))));
        assertThat(registry.snapshot("a").orElseThrow()).isSameAs(before);
        assertThat(notifications).isEmpty();
        assertThat(builds.get()).isZero();
    }

    @Test
    void aMembershipChangeRebuildsOnlyItsRing() {
        RingSnapshot b = registry.snapshot("b").orElseThrow();
        registry.update(inputs -> inputs.withMembership(membership(Map.of(
                "a", List.of(shard("a-0", ShardState.READY), shard("a-1", ShardState.READY)),
                "b", List.of(shard("b-0", ShardState.EXPIRED))))));
        assertThat(notifications).containsExactly(Set.of("a"));
        assertThat(builds.get()).isEqualTo(1);
        assertThat(registry.snapshot("b").orElseThrow()).isSameAs(b);
        assertThat(registry.snapshot("a").orElseThrow().shards().shards()).hasSize(2);
    }

    @Test
    void aMissingStrategyLeavesTheRingWithoutSnapshotUntilItReturns() {
        registry.update(inputs -> inputs.withStrategies(Map.of()));
        assertThat(registry.snapshot("a")).isEmpty();
        assertThat(registry.ring("a").orElseThrow().strategyAvailable()).isFalse();
        assertThat(notifications).containsExactly(Set.of("a", "b"));

        registry.update(inputs -> inputs.withStrategies(Map.of("rendezvous", new StrategyBinding(counting, Map.of()))));
        assertThat(registry.snapshot("a")).isPresent();
    }

    @Test
    void changedStrategySettingsRebuildTheRing() {
        RingSnapshot before = registry.snapshot("a").orElseThrow();
        registry.update(inputs -> inputs.withStrategies(
                Map.of("rendezvous", new StrategyBinding(counting, Map.of("tokensPerShard", 7)))));
        assertThat(registry.snapshot("a").orElseThrow()).isNotSameAs(before);
        assertThat(builds.get()).isEqualTo(2);
    }

    @Test
    void theDefaultStrategyAppliesOnlyToRingsNamingNone() {
        PartitioningStrategy other = new RendezvousStrategy();
        registry.update(inputs -> inputs.withRings(Map.of("a", "", "b", "rendezvous"))
                .withStrategies(Map.of("rendezvous", new StrategyBinding(counting, Map.of()),
                        "other", new StrategyBinding(other, Map.of())))
                .withDefaultStrategy("other"));
        assertThat(registry.snapshot("a").orElseThrow().strategy()).isEqualTo("other");
        assertThat(registry.snapshot("b").orElseThrow().strategy()).isEqualTo("rendezvous");
    }

    @Test
    void aFailingStrategyMakesTheRingUnavailableWithoutThrowingOrRetryingEachUpdate() {
        AtomicInteger attempts = new AtomicInteger();
        PartitioningStrategy broken = shards -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("boom");
        };
        registry.update(inputs -> inputs.withStrategies(Map.of("rendezvous", new StrategyBinding(broken, Map.of()))));
        assertThat(registry.snapshot("a")).isEmpty();
        int afterFirst = attempts.get();
        registry.update(inputs -> inputs.withDefaultStrategy("rendezvous"));
        assertThat(attempts.get()).isEqualTo(afterFirst);
    }

    @Test
    void removedRingsAreForgottenAndReported() {
        registry.update(inputs -> inputs.withRings(Map.of("a", "")));
        assertThat(registry.ring("b")).isEmpty();
        assertThat(notifications).containsExactly(Set.of("b"));
    }
}
