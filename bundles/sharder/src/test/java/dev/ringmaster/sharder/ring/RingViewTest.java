package dev.ringmaster.sharder.ring;

import static dev.ringmaster.sharder.testing.TestRings.main;
import static dev.ringmaster.sharder.testing.TestRings.ring;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.OwnerReference;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.lease.ShardInfo.RangeClaim;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.ControllerRing;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.model.RingBalancing;
import dev.ringmaster.sharder.model.RingBalancingStatus;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingObject;
import dev.ringmaster.sharder.model.RingRanges;
import dev.ringmaster.sharder.model.RingResourceSpec;
import dev.ringmaster.sharder.testing.TestRings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a ring's view decides, compiled from the ring object and the plug-ins and shards in force. */
class RingViewTest {

    /** Keys every object by its namespace, as the namespace interpreter plug-in does. */
    private static final ResourceInterpreter BY_NAMESPACE = (object, resource) -> PartitionKey.key(object.namespace());

    private final Map<String, ResourceInterpreter> interpreters = new HashMap<>(Map.of(
            DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter(), "namespace", BY_NAMESPACE));

    private static ClusterRing shop() {
        RingResourceSpec configMaps = main("", "configmaps", new GroupResource("", "secrets"));
        configMaps.setInterpreter("namespace");
        return ring("shop", configMaps, main("apps", "deployments", new GroupResource("apps", "replicasets")));
    }

    private RingView compile(ClusterRing ring) {
        return compile(ring, new StrategyBinding(new RendezvousStrategy(), Map.of()));
    }

    private RingView compile(ClusterRing ring, StrategyBinding rendezvous) {
        RingInputs inputs = RingInputs.EMPTY
                .withStrategies(Map.of("rendezvous", rendezvous))
                .withDefaultStrategy("rendezvous")
                .withInterpreters(interpreters)
                .withMembership(new Membership(Map.of(RingKey.clusterRing("shop"), List.of(new ShardInfo("shard-0", ShardState.READY, 1),
                        new ShardInfo("shard-1", ShardState.DEAD, 1)))));
        return RingView.compile(ring, inputs, null);
    }

    @Test
    void theContractsLabelsAndEveryResourceWithItsRole() {
        RingView view = compile(shop());

        assertThat(view.kind()).isEqualTo(RingKind.CLUSTER_RING);
        assertThat(view.shardLabel()).isEqualTo(RingContract.shardLabel("shop"));
        assertThat(view.drainLabel()).isEqualTo(RingContract.drainLabel("shop"));
        assertThat(view.resources().values()).containsExactlyInAnyOrder(new RingResource("", "configmaps", Role.MAIN),
                new RingResource("", "secrets", Role.CONTROLLED), new RingResource("apps", "deployments", Role.MAIN),
                new RingResource("apps", "replicasets", Role.CONTROLLED));
        assertThat(view.resource("apps", "replicasets")).contains(new RingResource("apps", "replicasets", Role.CONTROLLED));
        assertThat(view.resource("", "pods")).isEmpty();
        assertThat(view.availableShards()).extracting(shard -> shard.name()).containsExactly("shard-0");
        assertThat(view.shards()).hasSize(2);
    }

    @Test
    void eachResourceAndWhatItControlsUseTheNamedInterpreterOrTheDefault() {
        RingView view = compile(shop());

        assertThat(view.keyFor(ObjectReference.of("", "v1", "ConfigMap", "shop", "cm"),
                new RingResource("", "configmaps", Role.MAIN))).isEqualTo(PartitionKey.key("shop"));
        assertThat(view.keyFor(new ObjectReference("", "v1", "Secret", "shop", "s", "", Map.of(),
                List.of(new OwnerReference("v1", "ConfigMap", "cm", true))), new RingResource("", "secrets", Role.CONTROLLED)))
                .isEqualTo(PartitionKey.key("shop"));
        assertThat(view.keyFor(ObjectReference.of("apps", "v1", "Deployment", "shop", "web"),
                new RingResource("apps", "deployments", Role.MAIN))).isEqualTo(PartitionKey.key("apps/Deployment/shop/web"));
        assertThat(view.keyFor(ObjectReference.of("", "v1", "Pod", "shop", "p"), new RingResource("", "pods", Role.MAIN)))
                .isInstanceOf(PartitionKey.NotAssigned.class);
    }

    @Test
    void theReadyMessageNamesTheBundleThatProvidesTheStrategy() {
        RingView view = compile(shop(), new StrategyBinding(new RendezvousStrategy(), Map.of(),
                "dev.ringmaster.ring.rendezvous 0.1.0"));
        assertThat(view.readyMessage()).isEqualTo("sharding with strategy \"rendezvous\" (the sharder's default),"
                + " bundle dev.ringmaster.ring.rendezvous 0.1.0");
    }

    @Test
    void theReadyMessageNamesTheStrategyInForceAndReadsBack() {
        RingView view = compile(shop());
        assertThat(view.readyMessage()).isEqualTo("sharding with strategy \"rendezvous\" (the sharder's default)");
        assertThat(RingView.strategyOfReadyMessage(view.readyMessage())).contains("rendezvous");
        assertThat(RingView.strategyOfReadyMessage("sharding with strategy \"jump-hash\" (spec.strategy)")).contains("jump-hash");
        assertThat(RingView.strategyOfReadyMessage("sharding with strategy \"jump-hash\" (spec.strategy), bundle"
                + " org.example.ringmaster.jumphash 0.1.0.202611260748")).contains("jump-hash");
        assertThat(RingView.strategyOfReadyMessage("partitioning strategy \"x\" is not available")).isEmpty();
        assertThat(RingView.strategyOfReadyMessage(null)).isEmpty();
    }

    /**
     * A label-mode ring weighed by load places with the weights its status holds, in tenths of a Lease weight: 50 % of
     * a Lease weight of 2 is 10, a shard not listed is at 100 %; without {@code spec.balancing} the status is ignored.
     */
    @Test
    void aRingWeighedByLoadPlacesWithTheWeightsOfItsStatus() {
        ClusterRing ring = shop();
        ring.setStatus(new dev.ringmaster.sharder.model.RingStatus());
        ring.getStatus().setBalancing(new RingBalancingStatus(Map.of("shard-0", 50, "gone", 300), "2026-11-29T10:00:00Z"));
        RingInputs inputs = RingInputs.EMPTY.withStrategies(Map.of("rendezvous", new StrategyBinding(new RendezvousStrategy(),
                Map.of()))).withDefaultStrategy("rendezvous").withInterpreters(interpreters)
                .withMembership(new Membership(Map.of(RingKey.clusterRing("shop"), List.of(
                        new ShardInfo("shard-0", ShardState.READY, 2), new ShardInfo("shard-1", ShardState.READY, 1)))));

        RingView unweighed = RingView.compile(ring, inputs, null);
        assertThat(unweighed.weightBalancing()).isEmpty();
        assertThat(unweighed.availableShards()).containsExactly(new Shard("shard-0", 2), new Shard("shard-1", 1));
        assertThat(unweighed.ringWithWeights(Map.of())).isEmpty();

        ring.getSpec().setBalancing(new RingBalancing());
        RingView weighed = RingView.compile(ring, inputs, null);
        assertThat(weighed.weightBalancing()).isPresent();
        assertThat(weighed.availableShards()).containsExactly(new Shard("shard-0", 10), new Shard("shard-1", 10));
        assertThat(weighed.shardRing().orElseThrow().shards()).isEqualTo(weighed.availableShards());
        assertThat(weighed.weightPercents()).isEqualTo(Map.of("shard-0", 50, "shard-1", 100));
        assertThat(weighed.readyMessage()).contains("shards weighed by load (spec.balancing)");
        assertThat(weighed.ringWithWeights(Map.of("shard-1", 500)).orElseThrow().shards())
                .containsExactly(new Shard("shard-0", 20), new Shard("shard-1", 50));
    }

    /**
     * A ring that left range mode labels nothing while a shard that may still be reconciling serves ranges; a dead
     * shard's last served ranges do not count, nor do those of a shard of a range-mode ring of the other kind.
     */
    @Test
    void aLabelModeRingWaitsForItsShardsToServeNoRanges() {
        ShardInfo serving = new ShardInfo("shard-0", ShardState.READY, 1, false, true, RangeClaim.SOME);
        ShardInfo deadServing = new ShardInfo("shard-1", ShardState.DEAD, 1, false, false, RangeClaim.SOME);
        ShardInfo renewingUncertain = new ShardInfo("shard-2", ShardState.UNCERTAIN, 1, false, true, RangeClaim.SOME);
        RingKey key = RingKey.clusterRing("shop");

        RingView waiting = compile(shop(), Map.of(key, List.of(serving, deadServing, renewingUncertain)));
        assertThat(waiting.canAct()).isFalse();
        assertThat(waiting.blocker()).contains(new RingView.Blocker(RingView.RANGES_STILL_SERVED,
                "shards [shard-0, shard-2] still serve ranges of the hash space (ringmaster.dev/served-ranges), taken"
                        + " back a slice at a time once a shard that serves by labels is available; only objects outside"
                        + " them are labelled, so no object is reconciled by a shard of its range and a shard of its"
                        + " label at once"));
        assertThat(waiting.labelsBesideRanges()).as("no shard serves by labels").isFalse();
        assertThat(compile(shop(), Map.of(key, List.of(serving, new ShardInfo("shard-3", ShardState.READY, 1))))
                .labelsBesideRanges()).isTrue();

        RingView free = compile(shop(), Map.of(key, List.of(new ShardInfo("shard-0", ShardState.READY, 1), deadServing)));
        assertThat(free.canAct()).isTrue();
        assertThat(free.labelsBesideRanges()).as("no range served").isFalse();
        assertThat(free.blocker()).isEmpty();
        assertThat(free.placesLike(waiting)).isFalse();

        ControllerRing ofTheOtherKind = TestRings.configMapControllerRing("shop");
        ofTheOtherKind.getSpec().setRanges(new RingRanges(null, 4));
        RingView beside = compile(shop(), Map.of(key, List.of(serving), RingKey.controllerRing("shop"), List.of(serving)),
                ofTheOtherKind);
        assertThat(beside.canAct()).isTrue();
        ClusterRing sameKind = ring("stock", main("", "configmaps"));
        sameKind.getSpec().setRanges(new RingRanges(null, 4));
        RingView besideSameKind = compile(shop(), Map.of(key, List.of(serving), RingKey.clusterRing("stock"), List.of(serving)),
                sameKind);
        assertThat(besideSameKind.canAct()).as("a shard of the same name in another ClusterRing is another Lease").isFalse();

        ClusterRing inRangeMode = shop();
        inRangeMode.getSpec().setRanges(new RingRanges(null, 4));
        assertThat(compile(inRangeMode, Map.of(key, List.of(serving))).blocker()).isEmpty();
    }

    /**
     * The other way: a ring that entered range mode drains the main objects labelled for a shard that may still be
     * reconciling and announces no ranges (a label-mode process), and holds the ranges they lie in; a range-mode shard
     * serving nothing yet announces an empty set, a dead label shard does not count, nor does a shard of a label-mode
     * ring of the other kind. Every other label left from label mode goes at once.
     */
    @Test
    void aRangeModeRingWaitsForItsShardsToServeByLabelsNoMore() {
        ClusterRing inRangeMode = shop();
        inRangeMode.getSpec().setRanges(new RingRanges(null, 4));
        RingKey key = RingKey.clusterRing("shop");
        ShardInfo byLabels = new ShardInfo("shard-0", ShardState.READY, 1, false, true, RangeClaim.UNANNOUNCED);
        ShardInfo deadByLabels = new ShardInfo("shard-1", ShardState.DEAD, 1, false, false, RangeClaim.UNANNOUNCED);
        ShardInfo rangesNone = new ShardInfo("shard-2", ShardState.READY, 1, false, true, RangeClaim.NONE);

        RingView waiting = compile(inRangeMode, Map.of(key, List.of(byLabels, deadByLabels, rangesNone)));
        assertThat(waiting.labelsStillServed()).containsExactly("shard-0");
        assertThat(waiting.rangeMode()).as("the ranges it has shrink, none grow").isPresent();
        assertThat(waiting.blocker()).contains(new RingView.Blocker(RingView.LABELS_STILL_SERVED,
                "shards [shard-0] announce no ranges (ringmaster.dev/served-ranges) and may still reconcile the objects"
                        + " labelled with them; those objects are drained, and a range is granted only where none is"
                        + " left with them, so no object is reconciled by a shard of its label and a shard of its range"
                        + " at once"));
        assertThat(waiting.availableShards()).as("ranges go to the shards that serve them").extracting(Shard::name)
                .containsExactly("shard-2");
        assertThat(waiting.hasShardsOfItsMode()).isTrue();

        RingView free = compile(inRangeMode, Map.of(key, List.of(rangesNone, deadByLabels)));
        assertThat(free.labelsStillServed()).isEmpty();
        assertThat(free.blocker()).isEmpty();
        assertThat(free.placesLike(waiting)).isFalse();

        // a main object a label-mode shard may still reconcile is drained (and held); every other label goes
        RingResource configMaps = new RingResource("", "configmaps", Role.MAIN);
        RingResource secrets = new RingResource("", "secrets", Role.CONTROLLED);
        ObjectReference labelled = labelled(Map.of(key.shardLabel(), "shard-0", key.drainLabel(), "true"));
        ObjectReference notDrained = labelled(Map.of(key.shardLabel(), "shard-0"));
        ObjectReference ofTheDead = labelled(Map.of(key.shardLabel(), "shard-1"));
        ObjectReference drainOnly = labelled(Map.of(key.drainLabel(), "true"));
        ObjectReference unlabelled = labelled(Map.of("app", "shop"));
        assertThat(waiting.clearsLabels()).isTrue();
        assertThat(waiting.heldByLabel(labelled, configMaps)).isTrue();
        assertThat(waiting.moveOf(labelled, configMaps, RingView.InvalidKeys.IGNORE)).as("in drain").isEqualTo(Move.KEEP);
        assertThat(waiting.moveOf(notDrained, configMaps, RingView.InvalidKeys.IGNORE)).isEqualTo(new Move.Drain("shard-0"));
        assertThat(waiting.heldByLabel(notDrained, secrets)).as("controlled objects are not drained").isFalse();
        assertThat(waiting.moveOf(notDrained, secrets, RingView.InvalidKeys.IGNORE)).isEqualTo(new Move.Unlabel("shard-0"));
        assertThat(waiting.heldByLabel(ofTheDead, configMaps)).isFalse();
        assertThat(waiting.moveOf(ofTheDead, configMaps, RingView.InvalidKeys.IGNORE)).isEqualTo(new Move.Unlabel("shard-1"));
        assertThat(free.clearsLabels()).isTrue();
        assertThat(free.heldByLabel(labelled, configMaps)).isFalse();
        Move unlabel = free.moveOf(labelled, configMaps, RingView.InvalidKeys.IGNORE);
        assertThat(unlabel).isEqualTo(new Move.Unlabel("shard-0"));
        Map<String, String> removed = new HashMap<>();
        removed.put(key.shardLabel(), null);
        removed.put(key.drainLabel(), null);
        assertThat(free.labelChanges(unlabel, labelled)).isEqualTo(removed);
        assertThat(free.moveOf(drainOnly, configMaps, RingView.InvalidKeys.IGNORE)).isEqualTo(new Move.Unlabel(null));
        assertThat(free.labelChanges(new Move.Unlabel(null), drainOnly)).containsOnlyKeys(key.drainLabel());
        assertThat(free.moveOf(unlabelled, configMaps, RingView.InvalidKeys.IGNORE)).isEqualTo(Move.KEEP);
        RingView labelMode = compile(shop(), Map.of(key, List.of(rangesNone)));
        assertThat(labelMode.clearsLabels()).as("label mode").isFalse();
        assertThat(labelMode.heldByLabel(notDrained, configMaps)).isFalse();

        // label mode places on the shards that serve by labels, on the others only if none does
        RingView labelModeBeside = compile(shop(), Map.of(key, List.of(byLabels, rangesNone)));
        assertThat(labelModeBeside.availableShards()).extracting(Shard::name).containsExactly("shard-0");
        assertThat(labelModeBeside.hasShardsOfItsMode()).isTrue();
        assertThat(labelMode.availableShards()).extracting(Shard::name).containsExactly("shard-2");
        assertThat(labelMode.hasShardsOfItsMode()).isFalse();

        RingView beside = compile(inRangeMode, Map.of(key, List.of(byLabels), RingKey.controllerRing("shop"),
                List.of(byLabels)), TestRings.configMapControllerRing("shop"));
        assertThat(beside.labelsStillServed()).as("its labels are the label-mode ControllerRing's").isEmpty();
        assertThat(compile(shop(), Map.of(key, List.of(byLabels))).labelsStillServed()).as("label mode").isEmpty();
    }

    private static ObjectReference labelled(Map<String, String> labels) {
        return new ObjectReference("", "v1", "ConfigMap", "shop", "cm", "", labels, List.of());
    }

    private RingView compile(ClusterRing ring, Map<RingKey, List<ShardInfo>> shards, RingObject... others) {
        List<RingObject> clusterRings = new ArrayList<>(List.of(ring));
        List<RingObject> controllerRings = new ArrayList<>();
        for (RingObject other : others) {
            (other instanceof ClusterRing ? clusterRings : controllerRings).add(other);
        }
        RingInputs inputs = RingInputs.EMPTY.withStrategies(Map.of("rendezvous", new StrategyBinding(new RendezvousStrategy(),
                        Map.of()))).withDefaultStrategy("rendezvous").withInterpreters(interpreters)
                .withMembership(new Membership(shards)).withRings(RingKind.CLUSTER_RING, clusterRings)
                .withRings(RingKind.CONTROLLER_RING, controllerRings);
        return RingView.compile(ring, inputs, null);
    }

    @Test
    void aRingWithMissingInterpretersCannotActAndSaysWhichAreMissing() {
        interpreters.remove("namespace");
        assertThat(compile(shop()).missingInterpreters()).containsExactly("namespace");

        interpreters.remove(DefaultResourceInterpreter.NAME);
        RingView view = compile(shop());
        assertThat(view.missingInterpreters()).containsExactly("default", "namespace");
        assertThat(view.canAct()).isFalse();
        assertThat(view.blocker()).contains(new RingView.Blocker(RingView.INTERPRETER_UNAVAILABLE,
                "resource interpreter \"default\", \"namespace\" is not available; objects are neither assigned nor"
                        + " moved until it is"));
        assertThat(view.moveOf(ObjectReference.of("apps", "v1", "Deployment", "shop", "web"),
                new RingResource("apps", "deployments", Role.MAIN), RingView.InvalidKeys.IGNORE)).isEqualTo(Move.KEEP);
    }

    @Test
    void anInvalidRingHasNoResourcesAndSaysWhy() {
        ClusterRing twice = ring("shop", main("", "configmaps"), main("", "configmaps"));
        RingView view = compile(twice);

        assertThat(view.isValid()).isFalse();
        assertThat(view.resources()).isEmpty();
        assertThat(view.blocker()).hasValueSatisfying(blocker -> {
            assertThat(blocker.reason()).isEqualTo(RingView.INVALID_SPEC);
            assertThat(blocker.message()).startsWith("the ClusterRing is invalid: ").contains("configmaps");
        });
    }

    @Test
    void anObjectOnADeadShardIsReassignedAndAnUnkeyableOneIsReportedAndKept() {
        RingView view = compile(shop());
        RingResource deployments = new RingResource("apps", "deployments", Role.MAIN);
        ObjectReference onDeadShard = new ObjectReference("apps", "v1", "Deployment", "shop", "web", "",
                Map.of(view.shardLabel(), "shard-1"), List.of());

        assertThat(view.moveOf(onDeadShard, deployments, RingView.InvalidKeys.IGNORE))
                .isEqualTo(new Move.Reassign("shard-1", "shard-0"));

        List<PartitionKey.Invalid> reported = new ArrayList<>();
        ResourceInterpreter refusing = (object, resource) -> PartitionKey.invalid("no name");
        interpreters.put(DefaultResourceInterpreter.NAME, refusing);
        assertThat(compile(shop()).moveOf(onDeadShard, deployments, (object, invalid) -> reported.add(invalid)))
                .isEqualTo(Move.KEEP);
        assertThat(reported).extracting(PartitionKey.Invalid::message).containsExactly("no name");
    }

    @Test
    void aRangeModeRingNeedsNoStrategyAndNeverLabels() {
        ClusterRing ring = shop();
        ring.getSpec().setRanges(new dev.ringmaster.sharder.model.RingRanges());
        RingView view = RingView.compile(ring, RingInputs.EMPTY.withInterpreters(interpreters)
                .withMembership(new Membership(Map.of(RingKey.clusterRing("shop"), List.of(
                        new ShardInfo("shard-0", ShardState.READY, 1, false, true, RangeClaim.NONE))))), null);
        assertThat(view.rangeModeAsked()).isTrue();
        assertThat(view.rangeMode()).contains(new RingView.RangeMode(dev.ringmaster.ring.ranges.RangeKey.UID, 64,
                java.util.Optional.empty()));
        assertThat(view.blocker()).isEmpty();
        assertThat(view.degraded()).isEmpty();
        assertThat(view.canAct()).isFalse();
        assertThat(view.shardRing()).isEmpty();
        assertThat(view.readyMessage()).isEqualTo("sharding by ranges of the hash of object.metadata.uid in 64 buckets"
                + " (spec.ranges), published on the shard Leases");
        assertThat(view.availableShards()).extracting(shard -> shard.name()).containsExactly("shard-0");

        ring.getSpec().setRanges(new dev.ringmaster.sharder.model.RingRanges("uid", 6));
        RingView invalid = RingView.compile(ring, RingInputs.EMPTY, null);
        assertThat(invalid.rangeModeAsked()).isTrue();
        assertThat(invalid.rangeMode()).isEmpty();
        assertThat(invalid.blocker()).hasValueSatisfying(blocker -> assertThat(blocker.reason()).isEqualTo("InvalidSpec"));
        assertThat(invalid.canAct()).isFalse();

        // switching modes changes where objects belong
        RingView labelled = compile(shop());
        assertThat(view.placesLike(labelled)).isFalse();
        assertThat(labelled.placesLike(view)).isFalse();
    }

    @Test
    void aBalancedRingWhosePolicyIsMissingKeepsItsRangesAndSaysWhy() {
        ClusterRing ring = shop();
        dev.ringmaster.sharder.model.RingRanges ranges = new dev.ringmaster.sharder.model.RingRanges();
        ranges.setBalancing(new dev.ringmaster.sharder.model.RingBalancing());
        ring.getSpec().setRanges(ranges);
        RingView missing = RingView.compile(ring, RingInputs.EMPTY.withInterpreters(interpreters), null);
        assertThat(missing.rangeMode()).hasValueSatisfying(mode -> assertThat(mode.balancing())
                .hasValueSatisfying(balancing -> assertThat(balancing.policy()).isEmpty()));
        assertThat(missing.blocker()).isEmpty();
        assertThat(missing.degraded()).hasValueSatisfying(degraded -> {
            assertThat(degraded.reason()).isEqualTo("PlacementPolicyUnavailable");
            assertThat(degraded.message()).isEqualTo("placement policy \"load-aware\" (spec.ranges.balancing.policy)"
                    + " is not available; the ranges stay where they are until it is");
        });

        dev.ringmaster.ring.spi.PlacementPolicy policy = request -> {
            throw new AssertionError("not called by a view");
        };
        RingView bound = RingView.compile(ring, RingInputs.EMPTY.withInterpreters(interpreters)
                .withPolicies(Map.of("load-aware", policy)), missing);
        assertThat(bound.rangeMode().flatMap(RingView.RangeMode::balancing).flatMap(RingView.Balancing::policy))
                .containsSame(policy);
        assertThat(bound.degraded()).isEmpty();
        assertThat(bound.readyMessage()).endsWith(", placed by load with policy \"load-aware\"");
        assertThat(bound.placesLike(missing)).as("a policy's arrival changes the view").isFalse();
    }
}
