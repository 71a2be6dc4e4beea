package dev.ringmaster.sharder.ranges;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.sharder.ranges.RangeAssignment.Shard;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The handover rule on 4 buckets, by hand: B0..B3 are the quarters of the hash space. The placement pinned
 * here is {@link RangePlacement}'s (checked first): over a, b: a = B1, b = B0 B2 B3; over a, b, c: a = B1,
 * b = nothing, c = B0 B2 B3 (the joining c takes all of b's buckets).
 */
class RangeAssignmentTest {

    private static final RangeSet B0 = RangeSet.parse("0x0000000000000000-0x4000000000000000");
    private static final RangeSet B1 = RangeSet.parse("0x4000000000000000-0x8000000000000000");
    private static final RangeSet B2 = RangeSet.parse("0x8000000000000000-0xc000000000000000");
    private static final RangeSet B3 = RangeSet.parse("0xc000000000000000-0x10000000000000000");
    private static final RangeSet B023 = B0.union(B2).union(B3);
    private static final RangeSet NONE = RangeSet.EMPTY;

    private static final Map<String, RangeSet> AB = Map.of("a", B1, "b", B023);
    private static final Map<String, RangeSet> ABC = Map.of("a", B1, "b", NONE, "c", B023);

    @Test
    void thePinnedPlacementIsThePlacements() {
        assertThat(RangePlacement.place(List.of("a", "b"), 4)).isEqualTo(AB);
        assertThat(RangePlacement.place(List.of("a", "b", "c"), 4)).isEqualTo(ABC);
        assertThat(B0.union(B1).union(B2).union(B3)).isEqualTo(RangeSet.ALL);
        assertThat(B023.toString()).isEqualTo("0x0000000000000000-0x4000000000000000,0x8000000000000000-0x10000000000000000");
    }

    @Test
    void aNewRingGetsThePlacementAtOnce() {
        assertThat(RangeAssignment.assign(AB, shards("a", Shard.live(NONE, NONE), "b", Shard.live(NONE, NONE))))
                .isEqualTo(AB);
    }

    @Test
    void theGainerGetsNothingUntilTheLoserServesItNoMore() {
        // c joins: b shrinks at once, c gets nothing while b is assigned or serves B0 B2 B3
        Map<String, RangeSet> next = RangeAssignment.assign(ABC, shards("a", Shard.live(B1, B1),
                "b", Shard.live(B023, B023), "c", Shard.live(NONE, NONE)));
        assertThat(next).isEqualTo(Map.of("a", B1, "b", NONE, "c", NONE));

        // the cache shows b's shrink, but b still serves everything: still nothing for c
        next = RangeAssignment.assign(ABC, shards("a", Shard.live(B1, B1), "b", Shard.live(NONE, B023),
                "c", Shard.live(NONE, NONE)));
        assertThat(next).isEqualTo(Map.of("a", B1, "b", NONE, "c", NONE));

        // b dropped B2 B3 but still serves B0: c gets what b let go
        next = RangeAssignment.assign(ABC, shards("a", Shard.live(B1, B1), "b", Shard.live(NONE, B0),
                "c", Shard.live(NONE, NONE)));
        assertThat(next).isEqualTo(Map.of("a", B1, "b", NONE, "c", B2.union(B3)));

        // b serves nothing: c gets the rest, keeping what it has
        next = RangeAssignment.assign(ABC, shards("a", Shard.live(B1, B1), "b", Shard.live(NONE, NONE),
                "c", Shard.live(B2.union(B3), B2.union(B3))));
        assertThat(next).isEqualTo(ABC);
    }

    @Test
    void aShrinkIsAtOnceAndAGrowthNeverTakesAnotherShardsClaim() {
        // b leaves the placement (a, c left): b's assignment goes at once, c waits for b's served ranges
        Map<String, RangeSet> desired = RangePlacement.place(List.of("a", "c"), 4);
        Map<String, RangeSet> next = RangeAssignment.assign(desired, shards("a", Shard.live(B1, B1),
                "b", Shard.live(B023, B023), "c", Shard.live(NONE, NONE)));
        assertThat(next.get("b")).isEqualTo(NONE);
        assertThat(next.get("c").intersect(B023)).isEqualTo(NONE);
        assertThat(next.get("a")).isEqualTo(B1.union(desired.get("a").minus(B023)));
    }

    @Test
    void aFencedShardsRangesMoveAtOnce() {
        // b is dead and its Lease taken: it claims nothing, whatever its Lease says it serves
        Map<String, RangeSet> next = RangeAssignment.assign(ABC, shards("a", Shard.live(B1, B1),
                "b", Shard.fenced(B023), "c", Shard.live(NONE, NONE)));
        assertThat(next).isEqualTo(ABC);
        // even if it were desired something, a fenced shard's assignment is cleared
        next = RangeAssignment.assign(AB, shards("a", Shard.live(B1, B1), "b", Shard.fenced(B023)));
        assertThat(next).isEqualTo(Map.of("a", B1, "b", NONE));
    }

    @Test
    void aShardJudgedDeadButStillRenewingKeepsItsClaim() {
        // b is not available (not desired anything) but renews its Lease: not fenced, so its claims hold
        Map<String, RangeSet> desired = Map.of("a", RangeSet.ALL);
        Map<String, RangeSet> next = RangeAssignment.assign(desired, shards("a", Shard.live(B1, B1),
                "b", Shard.live(B023, B023)));
        assertThat(next).isEqualTo(Map.of("a", B1, "b", NONE));
        // its renewals ran out and its Lease was taken: fenced, and a gets everything
        next = RangeAssignment.assign(desired, shards("a", Shard.live(B1, B1), "b", Shard.fenced(NONE)));
        assertThat(next).isEqualTo(Map.of("a", RangeSet.ALL, "b", NONE));
    }

    @Test
    void theSharderslastWriteCountsAsAClaimUntilTheCacheShowsIt() {
        // the cache shows c with nothing, but the sharder has just written B0 B2 B3 to c: c's current and claims
        // hold them (as RangeAssigner passes them), so a, now desired everything, does not get them
        Map<String, RangeSet> desired = Map.of("a", RangeSet.ALL);
        Shard cJustWritten = new Shard(B023, B023, false);
        Map<String, RangeSet> next = RangeAssignment.assign(desired, shards("a", Shard.live(B1, B1), "c", cJustWritten));
        assertThat(next).isEqualTo(Map.of("a", B1, "c", NONE));
    }

    @Test
    void newAssignmentsNeverOverlapOneAnotherNorAnotherShardsClaim() {
        List<RangeSet> sets = List.of(NONE, B0, B1, B2, B3, B023, B0.union(B1), RangeSet.ALL);
        Map<String, RangeSet> desired = ABC;
        for (RangeSet aCurrent : sets) {
            for (RangeSet bServed : sets) {
                for (RangeSet cCurrent : sets) {
                    Map<String, Shard> shards = shards("a", Shard.live(aCurrent, aCurrent), "b", Shard.live(NONE, bServed),
                            "c", Shard.live(cCurrent, cCurrent));
                    Map<String, RangeSet> next = RangeAssignment.assign(desired, shards);
                    next.forEach((name, set) -> next.forEach((other, otherSet) -> {
                        if (!name.equals(other)) {
                            assertThat(set.intersect(otherSet)).as("%s and %s", name, other).isEqualTo(NONE);
                            // what a shard gained, no other shard claimed
                            assertThat(set.minus(shards.get(name).current()).intersect(shards.get(other).claims()))
                                    .isEqualTo(NONE);
                        }
                    }));
                    next.forEach((name, set) -> assertThat(set.minus(desired.get(name))).isEqualTo(NONE));
                }
            }
        }
    }

    private static Map<String, Shard> shards(Object... nameAndShard) {
        Map<String, Shard> shards = new LinkedHashMap<>();
        for (int i = 0; i < nameAndShard.length; i += 2) {
            shards.put((String) nameAndShard[i], (Shard) nameAndShard[i + 1]);
        }
        return shards;
    }
}
