package dev.ringmaster.ring.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Properties every partitioning strategy must have, over 100k keys. A strategy's test extends this
 * class; it ships in ring-api's test jar so third-party strategies can run it too.
 */
public abstract class PartitioningStrategyContract {

    protected static final int KEYS = 100_000;

    /** Builds a ring with the strategy under test. */
    protected abstract ShardRing build(Collection<Shard> shards);

    /** Allowed distance, in percentage points, of the N=10 → 11 movement from the optimal 1/11. */
    protected abstract double movementTolerancePoints();

    /** The key of object i, as the simulator forms it. */
    protected static String key(int i) {
        return "/ConfigMap/ns-" + (i % 100) + "/obj-" + i;
    }

    protected static List<Shard> shards(int count) {
        return IntStream.range(0, count).mapToObj(i -> Shard.of("shard-" + i)).toList();
    }

    /**
     * A placement the strategy pins: {@code key}'s shard on rings of shard-0..2 ({@code onThree}),
     * shard-0..3 ({@code onFour}) and shard-0..2 weighted 1:2:4 ({@code weighted}).
     */
    protected void assertPinnedPlacement(String key, String onThree, String onFour, String weighted) {
        assertThat(build(shards(3)).shardFor(key)).contains(onThree);
        assertThat(build(shards(4)).shardFor(key)).contains(onFour);
        assertThat(build(List.of(Shard.of("shard-0"), new Shard("shard-1", 2), new Shard("shard-2", 4))).shardFor(key))
                .contains(weighted);
    }

    protected static String[] assign(ShardRing ring, int keys) {
        String[] owners = new String[keys];
        for (int i = 0; i < keys; i++) {
            owners[i] = ring.shardFor(key(i)).orElseThrow();
        }
        return owners;
    }

    @Test
    void emptyRingAnswersNoShard() {
        ShardRing ring = build(List.of());
        assertThat(ring.shards()).isEmpty();
        assertThat(ring.shardFor(key(0))).isEmpty();
        assertThat(ring.shardFor("")).isEmpty();
    }

    @Test
    void singleShardOwnsEveryKey() {
        ShardRing ring = build(List.of(Shard.of("only")));
        assertThat(ring.shardFor("")).contains("only");
        assertThat(assign(ring, 1000)).containsOnly("only");
    }

    @Test
    void duplicateShardNamesAreRejected() {
        assertThatThrownBy(() -> build(List.of(Shard.of("a"), Shard.of("a"))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void deterministicAcrossRebuildsAndShardOrderings() {
        List<Shard> shards = new ArrayList<>(shards(7));
        String[] first = assign(build(shards), KEYS);
        Collections.shuffle(shards, new Random(42));
        assertThat(assign(build(shards), KEYS)).isEqualTo(first);
        Collections.reverse(shards);
        assertThat(assign(build(List.copyOf(shards)), KEYS)).isEqualTo(first);
        assertThat(build(shards).shards()).isEqualTo(shards(7));
    }

    @Test
    void everyShardGetsKeys() {
        assertThat(assign(build(shards(10)), KEYS)).containsOnly(
                shards(10).stream().map(Shard::name).toArray(String[]::new));
    }

    @Test
    void removingAShardMovesOnlyItsKeys() {
        String[] before = assign(build(shards(10)), KEYS);
        String removed = "shard-4";
        List<Shard> remaining = shards(10).stream().filter(s -> !s.name().equals(removed)).toList();
        String[] after = assign(build(remaining), KEYS);
        for (int i = 0; i < KEYS; i++) {
            if (!before[i].equals(removed)) {
                assertThat(after[i]).as("key %s owned by %s", key(i), before[i]).isEqualTo(before[i]);
            }
        }
    }

    @Test
    void addingAShardMovesCloseToTheOptimalFraction() {
        String[] before = assign(build(shards(10)), KEYS);
        String[] after = assign(build(shards(11)), KEYS);
        int moved = 0;
        for (int i = 0; i < KEYS; i++) {
            if (!before[i].equals(after[i])) {
                assertThat(after[i]).as("a key only ever moves to the new shard").isEqualTo("shard-10");
                moved++;
            }
        }
        double movedPoints = 100.0 * moved / KEYS;
        assertThat(movedPoints).isCloseTo(100.0 / 11, org.assertj.core.data.Offset.offset(movementTolerancePoints()));
    }
}
