package dev.ringmaster.ring.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.load.LoadMap;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.ring.spi.Placement;
import dev.ringmaster.ring.spi.PlacementRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** With every cell as busy as the next, the policy counts buckets: ⌊B/N⌋ or ⌈B/N⌉ each, and only shares move. */
class EqualCostTest {

    private final LoadAwarePolicy policy = new LoadAwarePolicy();

    @ParameterizedTest
    @ValueSource(ints = {1, 16, 64, 4096})
    void fromNothingEveryShardHoldsItsShareOfWholeBuckets(int buckets) {
        for (int n = 1; n <= 16; n++) {
            List<String> shards = shards(n);
            Placement placement = policy.place(request(buckets, shards, Map.of(), false));
            Buckets.assertEven(placement.ranges(), shards, buckets);
            assertThat(placement.moved()).as("nothing was held, so nothing moves").isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 16, 64, 4096})
    void growingAndShrinkingMovesOnlyTheJoinersOrLeaversShare(int buckets) {
        List<String> shards = new ArrayList<>(List.of("shard-1"));
        Map<String, RangeSet> current = policy.place(request(buckets, shards, Map.of(), false)).ranges();
        Buckets.assertEven(current, shards, buckets);
        for (int n = 2; n <= 16; n++) {
            String joiner = "shard-" + n;
            shards.add(joiner);
            shards.sort(null);
            Map<String, RangeSet> next = policy.place(request(buckets, shards, current, false)).ranges();
            Buckets.assertEven(next, shards, buckets);
            String[] before = ownersWith(current, buckets);
            String[] after = Buckets.owners(next, buckets);
            int joinersShare = Buckets.counts(next, buckets).get(joiner);
            assertThat(Buckets.moved(before, after)).as("B=%d, %s joining %d shards", buckets, joiner, n - 1)
                    .isEqualTo(joinersShare)
                    .isLessThanOrEqualTo(ceiling(buckets, n));
            for (int bucket = 0; bucket < buckets; bucket++) {
                if (!before[bucket].equals(after[bucket])) {
                    assertThat(after[bucket]).as("a moved bucket goes to the joiner").isEqualTo(joiner);
                }
            }
            current = next;
        }
        while (shards.size() > 1) {
            String leaver = shards.remove(shards.size() / 2);
            int leaversShare = Buckets.counts(current, buckets).get(leaver);
            Map<String, RangeSet> next = policy.place(request(buckets, shards, current, false)).ranges();
            Buckets.assertEven(next, shards, buckets);
            String[] before = Buckets.owners(current, buckets);
            String[] after = Buckets.owners(next, buckets);
            assertThat(Buckets.moved(before, after)).as("B=%d, %s leaving %d shards", buckets, leaver, shards.size() + 1)
                    .isEqualTo(leaversShare)
                    .isLessThanOrEqualTo(ceiling(buckets, shards.size() + 1));
            for (int bucket = 0; bucket < buckets; bucket++) {
                if (!before[bucket].equals(after[bucket])) {
                    assertThat(before[bucket]).as("only the leaver's buckets move").isEqualTo(leaver);
                }
            }
            current = next;
        }
    }

    /** The owners in {@code current}, which holds every bucket but may lack shards of the request. */
    private static String[] ownersWith(Map<String, RangeSet> current, int buckets) {
        return Buckets.owners(new TreeMap<>(current), buckets);
    }

    private static int ceiling(int buckets, int shards) {
        return (buckets + shards - 1) / shards;
    }

    static List<String> shards(int n) {
        return IntStream.rangeClosed(1, n).mapToObj(i -> "shard-" + i).sorted().toList();
    }

    static PlacementRequest request(int buckets, List<String> shards, Map<String, RangeSet> current, boolean loadStep) {
        return new PlacementRequest(buckets, shards, current, LoadMap.uniform(), 1.1, 0.1, loadStep);
    }
}
