package dev.ringmaster.ring.ranges;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RangesTest {

    private static final String HALF = "0x8000000000000000";
    private static final String END = "0x10000000000000000";

    /** The published FNV-1a 64 test vectors, and one uid computed by an independent implementation. */
    @Test
    void fnv1a64MatchesTheReferenceVectors() {
        assertThat(Fnv1a64.hash("")).isEqualTo(0xcbf29ce484222325L);
        assertThat(Fnv1a64.hash("a")).isEqualTo(0xaf63dc4c8601ec8cL);
        assertThat(Fnv1a64.hash("foobar")).isEqualTo(0x85944171f73967e8L);
        assertThat(Fnv1a64.hash("0b6e5a3c-1f2d-4c1a-9a43-7f0e2d3c4b5a")).isEqualTo(0x828904a839e642d9L);
        assertThat(RangeKey.UID.hash("a", "ns")).isEqualTo(0xaf63dc4c8601ec8cL);
        assertThat(RangeKey.NAMESPACE.hash("uid", "a")).isEqualTo(0xaf63dc4c8601ec8cL);
        assertThat(RangeKey.NAMESPACE.hash("uid", null)).isEqualTo(0xcbf29ce484222325L);
    }

    @Test
    void aSetWritesTheSelectorKubeApiserverReads() {
        RangeSet lower = RangeSet.of(List.of(HashRange.of("0x0000000000000000", HALF)));
        assertThat(lower.selector(RangeKey.UID))
                .isEqualTo("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')");
        RangeSet two = RangeSet.parse("0x0000000000000000-0x1000000000000000,0xf000000000000000-" + END);
        assertThat(two.selector(RangeKey.NAMESPACE)).isEqualTo(
                "shardRange(object.metadata.namespace, '0x0000000000000000', '0x1000000000000000')"
                        + " || shardRange(object.metadata.namespace, '0xf000000000000000', '0x10000000000000000')");
        assertThatThrownBy(() -> RangeSet.EMPTY.selector(RangeKey.UID)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theAnnotationFormRoundTripsAndMergesWhatTouches() {
        RangeSet set = RangeSet.parse("0x8000000000000000-" + END + ", 0x0000000000000000-0x4000000000000000,"
                + "0x4000000000000000-0x6000000000000000");
        assertThat(set.toString()).isEqualTo("0x0000000000000000-0x6000000000000000,0x8000000000000000-" + END);
        assertThat(RangeSet.parse(set.toString())).isEqualTo(set);
        assertThat(RangeSet.parse("")).isEqualTo(RangeSet.EMPTY);
        assertThat(RangeSet.EMPTY.toString()).isEmpty();
        assertThat(RangeSet.ALL.toString()).isEqualTo("0x0000000000000000-" + END);
        assertThat(set.fraction()).isEqualTo(0.875);
        assertThat(RangeSet.ALL.fraction()).isEqualTo(1.0);
    }

    @Test
    void malformedRangesAreRefusedByName() {
        assertThatThrownBy(() -> RangeSet.parse("0x00-0x10")).hasMessageContaining("\"0x00\"");
        assertThatThrownBy(() -> RangeSet.parse("0x1000000000000000-0x0000000000000000")).hasMessageContaining("empty");
        assertThatThrownBy(() -> RangeSet.parse("0x1000000000000000-0x1000000000000000")).hasMessageContaining("empty");
        assertThatThrownBy(() -> RangeSet.parse("0x0000000000000000")).hasMessageContaining("not a range");
        assertThatThrownBy(() -> RangeSet.parse("0x0000000000000000-" + END + ",")).hasMessageContaining("not a range");
        assertThatThrownBy(() -> RangeSet.parse(END + "-" + END)).hasMessageContaining("\"" + END + "\"");
        assertThatThrownBy(() -> RangeSet.parse("0X0000000000000000-" + HALF)).hasMessageContaining("lower-case");
        assertThatThrownBy(() -> RangeKey.ofSpec("name")).hasMessageContaining("\"name\"");
        assertThat(RangeKey.ofSpec("namespace")).isEqualTo(RangeKey.NAMESPACE);
    }

    @Test
    void setAlgebraAgreesWithMembershipOfEveryProbe() {
        RangeSet a = RangeSet.parse("0x0000000000000000-0x5000000000000000,0xc000000000000000-" + END);
        RangeSet b = RangeSet.parse("0x4000000000000000-0xd000000000000000");
        SplittableRandom random = new SplittableRandom(7);
        List<Long> probes = new ArrayList<>(List.of(0L, -1L, 0x4000000000000000L, 0x4fffffffffffffffL,
                0x5000000000000000L, 0xbfffffffffffffffL, 0xc000000000000000L, 0xcfffffffffffffffL, 0xd000000000000000L));
        random.longs(10_000).forEach(probes::add);
        for (long hash : probes) {
            assertThat(a.union(b).contains(hash)).as("union %x", hash).isEqualTo(a.contains(hash) || b.contains(hash));
            assertThat(a.intersect(b).contains(hash)).as("intersect %x", hash).isEqualTo(a.contains(hash) && b.contains(hash));
            assertThat(a.minus(b).contains(hash)).as("minus %x", hash).isEqualTo(a.contains(hash) && !b.contains(hash));
            assertThat(a.complement().contains(hash)).as("complement %x", hash).isEqualTo(!a.contains(hash));
        }
        assertThat(RangeSet.EMPTY.complement()).isEqualTo(RangeSet.ALL);
        assertThat(RangeSet.ALL.complement()).isEqualTo(RangeSet.EMPTY);
    }

    @Test
    void theBucketContainingAHashIsTheOneItsTopBitsName() {
        assertThat(RangePlacement.bucketContaining(0x3fffffffffffffffL, 16).toString())
                .isEqualTo("0x3000000000000000-0x4000000000000000");
        assertThat(RangePlacement.bucketContaining(-1L, 64).toString()).isEqualTo("0xfc00000000000000-" + END);
        assertThat(RangePlacement.bucketContaining(0x8000000000000000L, 2).toString()).isEqualTo(HALF + "-" + END);
        assertThat(RangePlacement.bucketContaining(12345L, 1)).isEqualTo(new HashRange(0, -1L));
    }

    @Test
    void bucketsCutTheSpaceIntoEqualRanges() {
        assertThat(RangePlacement.bucket(0, 1)).isEqualTo(new HashRange(0, -1L));
        assertThat(RangePlacement.bucket(1, 2).toString()).isEqualTo(HALF + "-" + END);
        assertThat(RangePlacement.bucket(3, 16).toString()).isEqualTo("0x3000000000000000-0x4000000000000000");
        assertThatThrownBy(() -> RangePlacement.place(List.of("a"), 48)).hasMessageContaining("power of two");
        assertThatThrownBy(() -> RangePlacement.place(List.of("a"), 8192)).hasMessageContaining("power of two");
    }

    /** Every hash lies in exactly one shard's ranges, for every shard count. */
    @Test
    void placementPartitionsTheSpace() {
        SplittableRandom random = new SplittableRandom(11);
        for (int shards = 1; shards <= 9; shards++) {
            Map<String, RangeSet> placed = RangePlacement.place(names(shards), 64);
            assertThat(placed).hasSize(shards);
            assertThat(placed.values().stream().mapToDouble(RangeSet::fraction).sum()).isEqualTo(1.0);
            for (int probe = 0; probe < 2_000; probe++) {
                long hash = random.nextLong();
                assertThat(placed.values().stream().filter(set -> set.contains(hash)).count()).isEqualTo(1);
            }
        }
        assertThat(RangePlacement.place(List.of(), 64)).isEmpty();
    }

    /** Scale-out 3 to 4 takes only for the new shard, about a quarter; scale-in gives only the leaver's. */
    @Test
    void aMembershipChangeMovesOnlyTheChangingShardsShare() {
        Map<String, RangeSet> three = RangePlacement.place(names(3), 256);
        Map<String, RangeSet> four = RangePlacement.place(names(4), 256);
        for (String shard : three.keySet()) {
            assertThat(three.get(shard).minus(four.get(shard)).union(four.get(shard).minus(three.get(shard))))
                    .as("what %s gains or loses", shard).isEqualTo(three.get(shard).minus(four.get(shard)));
            assertThat(three.get(shard).minus(four.get(shard)).minus(four.get("shard-3"))).isEqualTo(RangeSet.EMPTY);
        }
        assertThat(four.get("shard-3").fraction()).isBetween(0.25 * 0.75, 0.25 * 1.25);
        for (RangeSet share : four.values()) {
            assertThat(share.fraction()).isBetween(0.25 * 0.7, 0.25 * 1.3);
        }
    }

    private static List<String> names(int count) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add("shard-" + i);
        }
        return names;
    }
}
