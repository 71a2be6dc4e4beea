package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.ranges.Fnv1a64;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import java.util.Map;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SnapshotTest {

    private static final List<Snapshot.LeaseState> LEASES = List.of(
            new Snapshot.LeaseState("shard-0", "ready", "shard-0"),
            new Snapshot.LeaseState("shard-1", "expired", "shard-1"),
            new Snapshot.LeaseState("shard-2", "dead", "shardlease-controller"),
            new Snapshot.LeaseState("shard-3", null, "shard-3"));

    @Test
    void usableShardsAreAvailableToTheSharderAndRunning() {
        Snapshot snapshot = Snapshot.of("sandbox", List.of(), LEASES);

        assertThat(snapshot.usable(Set.of("shard-0", "shard-1", "shard-2", "shard-3"))).containsExactly("shard-0", "shard-1");
        // killed, but the sharder does not know yet
        assertThat(snapshot.usable(Set.of("shard-0"))).containsExactly("shard-0");
        assertThat(snapshot.state("shard-3")).isEqualTo("-");
        assertThat(snapshot.state("shard-9")).isEqualTo("-");
    }

    @Test
    void countsPerShardIncludeShardsWithoutObjects() {
        Snapshot snapshot = Snapshot.of("sandbox", List.of(
                object("cm-0", "shard-0"), object("cm-1", "shard-0"), object("cm-2", "shard-1"), object("cm-3", null)), LEASES);

        assertThat(snapshot.perShard(List.of("shard-0", "shard-1", "shard-2")))
                .containsExactly(entry("shard-0", 2), entry("shard-1", 1), entry("shard-2", 0));
        assertThat(snapshot.unassigned()).isEqualTo(1);
        assertThat(snapshot.count("shard-0")).isEqualTo(2);
    }

    @Test
    void saysWhyTheRingIsNotAtRest() {
        Set<String> usable = Set.of("shard-0", "shard-1");
        assertThat(Snapshot.of("sandbox", List.of(object("cm-0", "shard-0")), LEASES).unsettled(2, usable))
                .contains("1 of 2 ConfigMaps seen");
        assertThat(Snapshot.of("sandbox", List.of(object("cm-0", null)), LEASES).unsettled(1, usable))
                .contains("1 unassigned");
        assertThat(Snapshot.of("sandbox", List.of(new Snapshot.ObjectState("cm-0", "shard-0", true, true)), LEASES)
                .unsettled(1, usable)).contains("1 in drain");
        assertThat(Snapshot.of("sandbox", List.of(object("cm-0", "shard-2"), object("cm-1", "shard-2")), LEASES)
                .unsettled(2, usable)).contains("2 on unavailable shard shard-2");
        assertThat(Snapshot.of("sandbox", List.of(new Snapshot.ObjectState("cm-0", "shard-0", false, false)), LEASES)
                .unsettled(1, usable)).contains("1 Secrets missing, stale or not on their ConfigMap's shard");
        assertThat(Snapshot.of("sandbox", List.of(object("cm-0", "shard-0"), object("cm-1", "shard-1")), LEASES)
                .unsettled(2, usable)).isEmpty();
    }

    @Test
    void misplacedObjectsAreThoseNotWhereTheRingPutsThem() {
        ShardRing ring = Placement.ring("rendezvous", List.of("shard-0", "shard-1"), new Properties());
        String home = ring.shardFor("/ConfigMap/sandbox/cm-0").orElseThrow();
        String other = home.equals("shard-0") ? "shard-1" : "shard-0";

        assertThat(Snapshot.of("sandbox", List.of(object("cm-0", home)), LEASES).misplaced(ring)).isZero();
        assertThat(Snapshot.of("sandbox", List.of(object("cm-0", other)), LEASES).misplaced(ring)).isEqualTo(1);
        assertThat(Snapshot.of("sandbox", List.of(object("cm-0", null)), LEASES).misplaced(ring)).isEqualTo(1);
    }

    @Test
    void theFingerprintChangesWithAssignmentsDrainsAndSecrets() {
        String base = Snapshot.of("sandbox", List.of(object("cm-0", "shard-0")), LEASES).fingerprint();

        assertThat(Snapshot.of("sandbox", List.of(object("cm-0", "shard-0")), List.of()).fingerprint()).isEqualTo(base);
        assertThat(Snapshot.of("sandbox", List.of(object("cm-0", "shard-1")), LEASES).fingerprint()).isNotEqualTo(base);
        assertThat(Snapshot.of("sandbox", List.of(new Snapshot.ObjectState("cm-0", "shard-0", true, true)), LEASES)
                .fingerprint()).isNotEqualTo(base);
        assertThat(Snapshot.of("sandbox", List.of(new Snapshot.ObjectState("cm-0", "shard-0", false, false)), LEASES)
                .fingerprint()).isNotEqualTo(base);
    }

    @Test
    void inRangeModeAnObjectBelongsToTheShardHoldingItsLeaseThatServesItsHash() {
        RangeSet lower = RangeSet.parse("0x0000000000000000-0x8000000000000000");
        RangeSet upper = lower.complement();
        List<Snapshot.LeaseState> leases = List.of(
                new Snapshot.LeaseState("shard-0", "ready", "shard-0", lower, lower),
                new Snapshot.LeaseState("shard-1", "ready", "shard-1", upper, upper));

        assertThat(Snapshot.owner(0x10L, leases)).isEqualTo("shard-0");
        assertThat(Snapshot.owner(0x8000000000000000L, leases)).isEqualTo("shard-1");
        assertThat(Snapshot.owner(-1L, leases)).isEqualTo("shard-1");
        // taken over by the sharder (dead) or released: its served ranges own nothing
        List<Snapshot.LeaseState> dead = List.of(new Snapshot.LeaseState("shard-0", "dead", "shardlease-controller",
                RangeSet.EMPTY, lower), new Snapshot.LeaseState("shard-1", "ready", "shard-1", upper, upper));
        assertThat(Snapshot.owner(0x10L, dead)).isNull();
        assertThat(Snapshot.owner(0x10L, List.of())).isNull();
        // the hash is FNV-1a 64 of the uid, as ring-api computes it
        assertThat(RangeKey.UID.hash("uid-1", "sandbox")).isEqualTo(Fnv1a64.hash("uid-1"));
    }

    @Test
    void inRangeModeTheRingIsAtRestWhenEveryUsableShardServesItsPlacedRanges() {
        Map<String, RangeSet> placed = RangePlacement.place(List.of("shard-0", "shard-1"), 8);
        List<Snapshot.LeaseState> asPlaced = List.of(
                new Snapshot.LeaseState("shard-0", "ready", "shard-0", placed.get("shard-0"), placed.get("shard-0")),
                new Snapshot.LeaseState("shard-1", "ready", "shard-1", placed.get("shard-1"), placed.get("shard-1")));
        Set<String> usable = Set.of("shard-0", "shard-1");

        assertThat(Snapshot.of("sandbox", List.of(), asPlaced).rangesPending(usable, 8)).isEmpty();
        // granted, not yet served (a handover in progress)
        List<Snapshot.LeaseState> granted = List.of(asPlaced.get(0),
                new Snapshot.LeaseState("shard-1", "ready", "shard-1", placed.get("shard-1"), RangeSet.EMPTY));
        assertThat(Snapshot.of("sandbox", List.of(), granted).rangesPending(usable, 8))
                .contains("ranges of shard-1 not yet assigned and served as placed");
        // a third shard joined: the placement over three differs
        assertThat(Snapshot.of("sandbox", List.of(), asPlaced).rangesPending(Set.of("shard-0", "shard-1", "shard-2"), 8))
                .isPresent();
        assertThat(Snapshot.of("sandbox", List.of(), asPlaced).rangesPending(Set.of(), 8)).contains("no shard available");
        Snapshot snapshot = Snapshot.of("sandbox", List.of(new Snapshot.ObjectState("cm-0", "shard-0", false, true, true),
                object("cm-1", "shard-1")), asPlaced);
        assertThat(snapshot.labelled()).isEqualTo(1);
        assertThat(snapshot.served(List.of("shard-0", "shard-9")))
                .containsEntry("shard-0", placed.get("shard-0")).containsEntry("shard-9", RangeSet.EMPTY);
        assertThat(Snapshot.of("sandbox", List.of(), List.of(new Snapshot.LeaseState("shard-0", "dead",
                "shardlease-controller", RangeSet.EMPTY, RangeSet.ALL))).served(List.of("shard-0")))
                .as("a Lease the shard no longer holds serves nothing").containsEntry("shard-0", RangeSet.EMPTY);
        assertThat(snapshot.fingerprint()).as("served ranges are part of the state at rest")
                .isNotEqualTo(Snapshot.of("sandbox", snapshot.objects().values(), granted).fingerprint());
    }

    private static Snapshot.ObjectState object(String name, String shard) {
        return new Snapshot.ObjectState(name, shard, false, true);
    }

    private static java.util.Map.Entry<String, Integer> entry(String key, int value) {
        return java.util.Map.entry(key, value);
    }

    @Test
    void rangesAreSettledWhenEveryUsableShardServesWhatItIsAssignedAndTogetherTheWholeSpace() {
        RangeSet lower = RangeSet.parse("0x0000000000000000-0x8000000000000000");
        RangeSet upper = lower.complement();
        Snapshot settled = Snapshot.of("sandbox", List.of(), List.of(
                new Snapshot.LeaseState("shard-0", "ready", "shard-0", lower, lower, java.util.OptionalDouble.of(0.25)),
                new Snapshot.LeaseState("shard-1", "ready", "shard-1", upper, upper),
                new Snapshot.LeaseState("shard-2", "dead", "shardlease-controller", RangeSet.EMPTY, RangeSet.EMPTY,
                        java.util.OptionalDouble.of(9))));
        assertThat(settled.rangesSettled(Set.of("shard-0", "shard-1"))).isEmpty();
        assertThat(settled.busy()).as("shards holding their Lease, with a report").containsExactly(Map.entry("shard-0", 0.25));
        Snapshot handingOver = Snapshot.of("sandbox", List.of(), List.of(
                new Snapshot.LeaseState("shard-0", "ready", "shard-0", RangeSet.EMPTY, lower),
                new Snapshot.LeaseState("shard-1", "ready", "shard-1", upper, upper)));
        assertThat(handingOver.rangesSettled(Set.of("shard-0", "shard-1")))
                .contains("ranges of shard-0 not yet served as assigned");
        assertThat(settled.rangesSettled(Set.of("shard-0"))).contains("the shards serve 50.0% of the hash space");
        assertThat(settled.rangesSettled(Set.of())).contains("no shard available");
    }
}
