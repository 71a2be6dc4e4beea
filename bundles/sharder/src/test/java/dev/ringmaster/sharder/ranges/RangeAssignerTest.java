package dev.ringmaster.sharder.ranges;

import static dev.ringmaster.sharder.testing.TestRings.configMapControllerRing;
import static dev.ringmaster.sharder.testing.TestRings.configMapRing;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.balancer.LoadAwarePolicy;
import dev.ringmaster.ring.load.CellLoad;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.lease.ShardInfo.RangeClaim;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.ControllerRing;
import dev.ringmaster.sharder.model.RingBalancing;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingRanges;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.testing.TestLeases;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RangeAssigner} against a mock API server, with a Lease cache the test controls (so it can lag behind the
 * writes): the Leases it writes, the claims it reads from them, and what it remembers between passes. Placement
 * over 4 buckets as in {@link RangeAssignmentTest}: a, b: a = B1, b = B0 B2 B3; a, b, c: c takes b's.
 */
@EnableCrudApiServer
class RangeAssignerTest {

    KubernetesClient client;
    KubernetesMockServer server;

    private static final String NS = "shards";
    private static final RingKey KEY = RingKey.clusterRing("ranges");
    private static final String B1 = "0x4000000000000000-0x8000000000000000";
    private static final String B023 = "0x0000000000000000-0x4000000000000000,0x8000000000000000-0x10000000000000000";
    private static final String B0 = "0x0000000000000000-0x4000000000000000";
    private static final String B23 = "0x8000000000000000-0x10000000000000000";
    private static final String B023_BUT_FIRST_SIXTEENTH =
            "0x1000000000000000-0x4000000000000000,0x8000000000000000-0x10000000000000000";

    private final RingRegistry registry = new RingRegistry();
    private final List<Lease> cache = new ArrayList<>();
    private final Recorded recorded = new Recorded();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final LabelHolds holds = new LabelHolds(clock);
    private final RangeReturns returns = new RangeReturns();
    private RangeAssigner assigner;

    @BeforeEach
    void ring() {
        ringWith(new RingRanges(null, 4));
        assigner = new RangeAssigner(registry, () -> List.copyOf(cache), client, clock, recorded, holds, returns);
    }

    @Test
    void aRangeModeRingIsPlacedOnItsLeasesWithTheKeyAndNothingElseIsWritten() {
        lease("a");
        lease("b");
        members(ready("a"), ready("b"));
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEqualTo(B1);
        assertThat(assigned("b")).isEqualTo(B023);
        assertThat(annotation("a", RingContract.RANGE_KEY_ANNOTATION)).isEqualTo("uid");
        assertThat(recorded.assigned).containsEntry("a", RangeSet.parse(B1));

        // nothing changed: no write (the resourceVersion stays)
        refresh();
        String version = server("a").getMetadata().getResourceVersion();
        assigner.reconcile(KEY);
        assertThat(server("a").getMetadata().getResourceVersion()).isEqualTo(version);
    }

    @Test
    void aJoiningShardGetsTheLosersRangesOnlyOnceItServesThemNoMore() {
        aServesB1AndBTheRest();
        lease("c");
        members(ready("a"), ready("b"), ready("c"));

        assigner.reconcile(KEY);
        assertThat(assigned("b")).isEmpty();
        assertThat(assigned("c")).isEmpty();
        refresh();
        assigner.reconcile(KEY);
        assertThat(assigned("c")).isEmpty(); // b still serves B0 B2 B3

        served("b", B0); // b let B2 B3 go
        refresh();
        assigner.reconcile(KEY);
        assertThat(assigned("c")).isEqualTo(B23);

        served("b", "");
        refresh();
        assigner.reconcile(KEY);
        assertThat(assigned("c")).isEqualTo(B023);
        assertThat(recorded.handedOver).isEqualTo(3); // three buckets from b to c
    }

    /**
     * A ring that entered range mode while a shard still serves by labels: a range is granted only where the
     * rebalancer's last pass, listed a quiet time after the switch, found none of that shard's objects (the shard
     * hands them back meanwhile); the shard of labels is given no range; once it stops, the whole placement.
     */
    @Test
    void aRangeIsGrantedBesideAShardOfLabelsOnlyWhereNoneOfItsObjectsIsLeft() {
        lease("a");
        lease("b");
        registry.update(inputs -> inputs.withMembership(new Membership(Map.of(KEY, List.of(
                new ShardInfo("a", ShardState.READY, 1, false, true, RangeClaim.NONE),
                new ShardInfo("b", ShardState.READY, 1, false, true, RangeClaim.UNANNOUNCED))))));
        assigner.reconcile(KEY);
        assertThat(assigned("a")).as("no pass of the rebalancer yet").isEmpty();

        holds.found(KEY, Set.of("b"), RangeSet.parse(B1), holds.listingStarts(KEY));
        assigner.reconcile(KEY);
        assertThat(assigned("a")).as("a pass listed at the switch").isEmpty();

        clock.advance(Duration.ofSeconds(3));
        holds.found(KEY, Set.of("b"), RangeSet.parse(B1), holds.listingStarts(KEY));
        assigner.reconcile(KEY);
        assertThat(assigned("a")).as("all but the bucket b holds").isEqualTo(B023);
        assertThat(assigned("b")).as("b serves no ranges").isEmpty();

        holds.found(KEY, Set.of("b"), RangeSet.EMPTY, holds.listingStarts(KEY));
        assigner.reconcile(KEY);
        assertThat(assigned("a")).as("b handed the last one back").isEqualTo(RangeSet.ALL.toString());
    }

    @Test
    void aShardOfLabelsThePassDidNotKnowHoldsEveryRange() {
        lease("a");
        lease("b");
        lease("c");
        holds.listingStarts(KEY);
        clock.advance(Duration.ofSeconds(3));
        holds.found(KEY, Set.of("b"), RangeSet.EMPTY, holds.listingStarts(KEY));
        registry.update(inputs -> inputs.withMembership(new Membership(Map.of(KEY, List.of(
                new ShardInfo("a", ShardState.READY, 1, false, true, RangeClaim.NONE),
                new ShardInfo("b", ShardState.READY, 1, false, true, RangeClaim.UNANNOUNCED),
                new ShardInfo("c", ShardState.READY, 1, false, true, RangeClaim.UNANNOUNCED))))));
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEmpty();

        members(ready("a"), new ShardInfo("b", ShardState.DEAD, 1, false, false),
                new ShardInfo("c", ShardState.DEAD, 1, false, false));
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEqualTo(RangeSet.ALL.toString());
    }

    @Test
    void aFencedShardsRangesMoveAtOnceAndItsAssignmentIsCleared() {
        aServesB1AndBTheRest();
        lease("c");
        members(ready("a"), new ShardInfo("b", ShardState.DEAD, 1, false, false), ready("c"));
        assigner.reconcile(KEY);
        assertThat(assigned("b")).isEmpty();
        assertThat(assigned("c")).isEqualTo(B023);
        assertThat(recorded.handedOver).isEqualTo(3);
    }

    @Test
    void aShardJudgedDeadButStillRenewingKeepsItsClaimUntilItsRenewalsRunOut() {
        aServesB1AndBTheRest();
        members(ready("a"), new ShardInfo("b", ShardState.DEAD, 1, false, true));
        assigner.reconcile(KEY);
        assertThat(assigned("b")).isEmpty();
        assertThat(assigned("a")).isEqualTo(B1);

        refresh();
        members(ready("a"), new ShardInfo("b", ShardState.DEAD, 1, false, false));
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEqualTo(RangeSet.ALL.toString());
    }

    @Test
    void itsOwnLastWriteCountsAsAClaimUntilTheCacheShowsIt() {
        lease("a", B1, B1);
        lease("c");
        lease("b", B023, B023);
        members(ready("a"), new ShardInfo("b", ShardState.DEAD, 1, false, false), ready("c"));
        assigner.reconcile(KEY); // c := B0 B2 B3, which the cache does not show
        assertThat(assigned("c")).isEqualTo(B023);

        // c is judged dead but renews; a alone is desired everything. Without the sharder's own last write, the
        // cache (c assigned and serving nothing) would let a have c's new ranges
        members(ready("a"), new ShardInfo("b", ShardState.DEAD, 1, false, false),
                new ShardInfo("c", ShardState.DEAD, 1, false, true));
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEqualTo(B1);
        assertThat(assigned("c")).isEmpty();

        // the cache shows both writes and c serves nothing (it never started): a gets it all
        refresh();
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEqualTo(RangeSet.ALL.toString());
    }

    /**
     * c is granted B0 B2 B3 and then, before the cache shows either write, has it taken back: the stale cache shows
     * the same text as the last write (nothing), but c may have claimed B0 B2 B3 in a version between. Every write
     * the cached version does not include counts, not only the last.
     */
    @Test
    void everyWriteTheCachedVersionDoesNotIncludeCountsAsAClaim() {
        aServesB1AndBTheRest();
        lease("c", "", "");
        members(ready("a"), new ShardInfo("b", ShardState.DEAD, 1, false, false), ready("c"));
        assigner.reconcile(KEY);
        assertThat(assigned("c")).isEqualTo(B023);

        members(ready("a"), new ShardInfo("b", ShardState.DEAD, 1, false, false),
                new ShardInfo("c", ShardState.DEAD, 1, false, true));
        assigner.reconcile(KEY);
        assertThat(assigned("c")).isEmpty();
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEqualTo(B1);

        refresh(); // a version with both writes: c never claimed anything
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEqualTo(RangeSet.ALL.toString());
    }

    @Test
    void unreadableServedRangesClaimWhatTheShardLastServedReadably() {
        aServesB1AndBTheRest();
        lease("c");
        members(ready("a"), ready("b"), ready("c"));
        assigner.reconcile(KEY); // b := nothing, its served B0 B2 B3 remembered
        served("b", "garbage");
        refresh();
        assigner.reconcile(KEY);
        assertThat(assigned("c")).isEmpty();
        assertThat(client.events().v1().events().inNamespace(NS).list().getItems())
                .anySatisfy(event -> assertThat(event.getReason()).isEqualTo(RangeAssigner.INVALID_SERVED_RANGES));

        served("b", "");
        refresh();
        assigner.reconcile(KEY);
        assertThat(assigned("c")).isEqualTo(B023);
    }

    @Test
    void unreadableServedRangesOfAShardNeverReadClaimTheWholeSpace() {
        lease("a", "", "");
        lease("b", "", "nonsense");
        members(ready("a"), ready("b"));
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEmpty();
        assertThat(assigned("b")).isEqualTo(B023);
    }

    @Test
    void aLabelModeRingOrAnInvalidOneAssignsNothing() {
        lease("a");
        members(ready("a"));
        ringWith(null);
        assigner.reconcile(KEY);
        assertThat(annotation("a", RingContract.ASSIGNED_RANGES_ANNOTATION)).isNull();

        ringWith(new RingRanges("name", 3));
        assigner.reconcile(KEY);
        assertThat(annotation("a", RingContract.ASSIGNED_RANGES_ANNOTATION)).isNull();
    }

    /**
     * A ring back in label mode publishes what its range-mode shards still claim, and takes their ranges back once a
     * shard serves by labels, one sixteenth of the space at a time: the next only once the last is let go and the
     * rebalancer labelled everything outside the claims. Each step writes once.
     */
    @Test
    void aRingThatLeftRangeModeTakesItsRangesBackASliceAtATimeOnceAShardServesByLabels() {
        aServesB1AndBTheRest();
        members(ready("a"), ready("b"));
        ringWith(null);
        assigner.reconcile(KEY);
        assertThat(assigned("a")).as("no shard serves by labels yet").isEqualTo(B1);
        assertThat(assigned("b")).isEqualTo(B023);
        RangeReturns.Claims everything = new RangeReturns.Claims(Optional.of(RangeKey.UID), RangeSet.ALL);
        assertThat(returns.claims(KEY)).contains(everything);

        lease("c");
        withAShardOfLabels("c", ready("a"), ready("b"));
        assigner.reconcile(KEY);
        assertThat(assigned("b")).as("the rebalancer has not labelled outside the claims yet").isEqualTo(B023);

        returns.labelled(KEY, everything);
        assigner.reconcile(KEY);
        assertThat(assigned("b")).as("the first sixteenth back").isEqualTo(B023_BUT_FIRST_SIXTEENTH);
        assertThat(assigned("a")).isEqualTo(B1);
        String version = server("b").getMetadata().getResourceVersion();
        refresh();
        returns.labelled(KEY, everything);
        assigner.reconcile(KEY);
        assertThat(server("b").getMetadata().getResourceVersion()).as("b still serves it: no next slice")
                .isEqualTo(version);

        served("b", B023_BUT_FIRST_SIXTEENTH);
        refresh();
        assigner.reconcile(KEY);
        RangeReturns.Claims smaller = new RangeReturns.Claims(Optional.of(RangeKey.UID),
                RangeSet.parse(B023_BUT_FIRST_SIXTEENTH).union(RangeSet.parse(B1)));
        assertThat(returns.claims(KEY)).contains(smaller);
        assertThat(assigned("b")).as("not before a pass over the smaller claims").isEqualTo(B023_BUT_FIRST_SIXTEENTH);
        returns.labelled(KEY, smaller);
        assigner.reconcile(KEY);
        assertThat(assigned("b")).isEqualTo("0x2000000000000000-0x4000000000000000,0x8000000000000000-0x10000000000000000");
    }

    @Test
    void aLeaseAlsoOfARangeModeControllerRingKeepsWhatThatRingAssigns() {
        RingKey controllerRing = RingKey.controllerRing(KEY.name());
        ControllerRing inRangeMode = configMapControllerRing(KEY.name());
        inRangeMode.getSpec().setRanges(new RingRanges(null, 4));
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(configMapRing(KEY.name())))
                .withRings(RingKind.CONTROLLER_RING, List.of(inRangeMode)));
        TestLeases.create(client, TestLeases.shardLease(NS, "a", KEY.name(), clock.instant(), 10).editMetadata()
                .addToLabels(RingKind.CONTROLLER_RING.leaseLabel(), controllerRing.name())
                .addToAnnotations(RingContract.ASSIGNED_RANGES_ANNOTATION, B1)
                .addToAnnotations(RingContract.RANGE_KEY_ANNOTATION, "uid").endMetadata());
        refresh();
        lease("c");
        withAShardOfLabels("c", ready("a"));
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEqualTo(B1);
    }

    @Test
    void anInvalidRingKeepsItsAssignments() {
        aServesB1AndBTheRest();
        members(ready("a"), ready("b"));
        ringWith(new RingRanges("name", 3));
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEqualTo(B1);
        assertThat(assigned("b")).isEqualTo(B023);
    }

    @Test
    void aKeyChangeHandsEverythingOverThroughNothing() {
        aServesB1AndBTheRest();
        members(ready("a"), ready("b"));
        ringWith(new RingRanges("namespace", 4));
        assigner.reconcile(KEY);
        // served ranges of the uid key may be any ranges of the namespace key: nobody gets anything yet
        assertThat(assigned("a")).isEmpty();
        assertThat(assigned("b")).isEmpty();
        assertThat(annotation("a", RingContract.RANGE_KEY_ANNOTATION)).isEqualTo("namespace");
        refresh();
        served("a", "");
        refresh();
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEmpty(); // b still serves (uid ranges)
        served("b", "");
        refresh();
        assigner.reconcile(KEY);
        assertThat(assigned("a")).isEqualTo(B1);
        assertThat(assigned("b")).isEqualTo(B023);
    }

    @Test
    void aBalancedRingMovesRangesByLoadAndTellsTheRingAndAnUnreadableReportIsWarnedOnce() {
        ClusterRing ring = configMapRing(KEY.name());
        RingRanges ranges = new RingRanges(null, 4);
        ranges.setBalancing(new RingBalancing(null, 10, 100, 5, 0));
        ring.getSpec().setRanges(ranges);
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(ring))
                .withPolicies(Map.of(LoadAwarePolicy.NAME, new LoadAwarePolicy())));
        lease("a");
        lease("b");
        members(ready("a"), ready("b"));
        assigner.reconcile(KEY);
        // nothing reported yet: two of the four buckets each, the policy's rule at equal costs
        String a = assigned("a");
        String b = assigned("b");
        assertThat(RangeSet.parse(a).fraction()).isEqualTo(0.5);
        assertThat(RangeSet.parse(b)).isEqualTo(RangeSet.parse(a).complement());
        assertThat(recorded.steps).isEmpty();

        served("a", a);
        served("b", b);
        report("a", a, 3.0); // a's two buckets 1.5 s/s each, b's 0.05: a gives one bucket to b
        report("b", b, 0.1);
        refresh();
        assigner.reconcile(KEY);
        assertThat(RangeSet.parse(assigned("a")).fraction()).isEqualTo(0.25);
        assertThat(assigned("b")).as("b grows once a serves the bucket no more").isEqualTo(b);
        assertThat(recorded.steps).containsExactly(0.25);
        assertThat(recorded.imbalance).isCloseTo(3.0 / 1.55, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(events("default", RangeAssigner.BALANCED)).singleElement()
                .satisfies(event -> assertThat(event.getNote()).contains("from a to b"));

        annotate("b", RingContract.LOAD_ANNOTATION, "busy=lots");
        annotate("a", RingContract.LOAD_ANNOTATION, new LoadReport(Duration.ofSeconds(15), 5000, 0, 1, List.of()).format());
        refresh();
        assigner.reconcile(KEY);
        assigner.reconcile(KEY);
        assertThat(events(NS, RangeAssigner.INVALID_LOAD_REPORT)).extracting(Event::getNote).containsExactlyInAnyOrder(
                "Annotation ringmaster.dev/load=\"busy=lots\" cannot be read (busy \"lots\" is not a number); the shard"
                        + " is counted by its share of the space",
                "Annotation ringmaster.dev/load=\"window=15s busy=5000.0000 wait=0.0000 objects=1 cells=\" cannot be"
                        + " read (busy time 5000.0 s/s is more than 1024.0 reconciles at once can spend); the shard is"
                        + " counted by its share of the space");
        assertThat(recorded.steps).as("unread reports weigh by space: no new step").hasSize(1);
    }

    /**
     * The shard's load report: {@code busy} spread over {@code ranges} by their share of the space, and 400 objects
     * over the whole space (100 a bucket).
     */
    private void report(String name, String ranges, double busy) {
        RangeSet set = RangeSet.parse(ranges);
        List<CellLoad> cells = set.ranges().stream().map(range -> new CellLoad(LoadReport.cell(range.first()),
                LoadReport.cell(range.last()), busy * range.fraction() / set.fraction(),
                Math.round(400 * range.fraction()))).toList();
        annotate(name, RingContract.LOAD_ANNOTATION, new LoadReport(Duration.ofSeconds(15), busy, 0,
                cells.stream().mapToLong(CellLoad::objects).sum(), cells).format());
    }

    private void annotate(String name, String annotation, String value) {
        client.leases().inNamespace(NS).resource(new LeaseBuilder(server(name)).editMetadata()
                .addToAnnotations(annotation, value).endMetadata().build()).update();
    }

    private List<Event> events(String namespace, String reason) {
        return client.events().v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(event -> reason.equals(event.getReason())).toList();
    }

    /** The ring as the registry has it, with {@code ranges}; null: in label mode. */
    private void ringWith(RingRanges ranges) {
        ClusterRing ring = configMapRing(KEY.name());
        ring.getSpec().setRanges(ranges);
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(ring)));
    }

    /** The ring's shards as the lease controller judged them, each a range-mode shard (its Lease announces ranges). */
    private void members(ShardInfo... shards) {
        registry.update(inputs -> inputs.withMembership(new Membership(Map.of(KEY, Arrays.stream(shards)
                .map(shard -> new ShardInfo(shard.name(), shard.state(), shard.weight(), shard.restarting(),
                        shard.renewing(), RangeClaim.NONE)).toList()))));
    }

    /** {@link #members} and a shard {@code name} whose Lease announces no ranges: it serves by labels. */
    private void withAShardOfLabels(String name, ShardInfo... rangeShards) {
        members(rangeShards);
        registry.update(inputs -> {
            Map<RingKey, List<ShardInfo>> shards = new HashMap<>();
            List<ShardInfo> all = new ArrayList<>(inputs.membership().shards(KEY));
            all.add(new ShardInfo(name, ShardState.READY, 1, false, true, RangeClaim.UNANNOUNCED));
            shards.put(KEY, all);
            return inputs.withMembership(new Membership(shards));
        });
    }

    private static ShardInfo ready(String name) {
        return new ShardInfo(name, ShardState.READY, 1);
    }

    /** The Leases of a, assigned and serving B1, and b, assigned and serving B0 B2 B3. */
    private void aServesB1AndBTheRest() {
        lease("a", B1, B1);
        lease("b", B023, B023);
    }

    private void lease(String name) {
        TestLeases.create(client, TestLeases.shardLease(NS, name, KEY.name(), clock.instant(), 10));
        refresh();
    }

    private void lease(String name, String assigned, String served) {
        TestLeases.create(client, TestLeases.shardLease(NS, name, KEY.name(), clock.instant(), 10).editMetadata()
                .addToAnnotations(RingContract.ASSIGNED_RANGES_ANNOTATION, assigned)
                .addToAnnotations(RingContract.RANGE_KEY_ANNOTATION, "uid")
                .addToAnnotations(RingContract.SERVED_RANGES_ANNOTATION, served).endMetadata());
        refresh();
    }

    /** The shard writes its served ranges (the cache shows it at the next {@link #refresh()}). */
    private void served(String name, String ranges) {
        Lease lease = server(name);
        client.leases().inNamespace(NS).resource(new LeaseBuilder(lease).editMetadata()
                .addToAnnotations(RingContract.SERVED_RANGES_ANNOTATION, ranges).endMetadata().build()).update();
    }

    /** The cache catches up with the server. */
    private void refresh() {
        cache.clear();
        cache.addAll(client.leases().inNamespace(NS).list().getItems());
    }

    private Lease server(String name) {
        return client.leases().inNamespace(NS).withName(name).get();
    }

    private String annotation(String name, String annotation) {
        Map<String, String> annotations = server(name).getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(annotation);
    }

    private String assigned(String name) {
        return annotation(name, RingContract.ASSIGNED_RANGES_ANNOTATION);
    }

    private static final class Recorded implements RangeRecorder {
        final Map<String, RangeSet> assigned = new HashMap<>();
        long handedOver;
        Duration took;
        double imbalance;
        /** The share of the objects each load step moved. */
        final List<Double> steps = new ArrayList<>();

        @Override
        public void assigned(RingKey ring, Map<String, RangeSet> sets) {
            assigned.clear();
            assigned.putAll(sets);
        }

        @Override
        public void handedOver(RingKey ring, long buckets, Duration took) {
            handedOver += buckets;
            this.took = took;
        }

        @Override
        public void balanced(RingKey ring, Map<String, Double> load, double imbalance, OptionalDouble moved) {
            this.imbalance = imbalance;
            moved.ifPresent(steps::add);
        }

        @Override
        public void notBalanced(RingKey ring) {
        }

        @Override
        public void forget(RingKey ring) {
            assigned.clear();
        }
    }
}
