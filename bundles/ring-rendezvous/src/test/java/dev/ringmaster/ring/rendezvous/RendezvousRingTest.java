package dev.ringmaster.ring.rendezvous;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.testing.PartitioningStrategyContract;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RendezvousRingTest extends PartitioningStrategyContract {

    @Override
    protected ShardRing build(Collection<Shard> shards) {
        return RendezvousRing.build(shards);
    }

    @Override
    protected double movementTolerancePoints() {
        return 0.5;
    }

    @Test
    void weightsOneTwoFourAreHonouredWithinOnePercent() {
        ShardRing ring = build(List.of(Shard.of("light"), new Shard("medium", 2), new Shard("heavy", 4)));
        int keys = 1_000_000;
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < keys; i++) {
            counts.merge(ring.shardFor(key(i)).orElseThrow(), 1, Integer::sum);
        }
        assertThat(counts.get("light") / (keys / 7.0)).isCloseTo(1.0, within(0.01));
        assertThat(counts.get("medium") / (2 * keys / 7.0)).isCloseTo(1.0, within(0.01));
        assertThat(counts.get("heavy") / (4 * keys / 7.0)).isCloseTo(1.0, within(0.01));
    }

    @Test
    void addingAWeightedShardMovesItsShareOfKeys() {
        String[] before = assign(build(shards(4)), KEYS);
        List<Shard> grown = new java.util.ArrayList<>(shards(4));
        grown.add(new Shard("big", 4));
        String[] after = assign(build(grown), KEYS);
        int moved = 0;
        for (int i = 0; i < KEYS; i++) {
            if (!before[i].equals(after[i])) {
                assertThat(after[i]).isEqualTo("big");
                moved++;
            }
        }
        assertThat(100.0 * moved / KEYS).isCloseTo(50.0, within(0.5));
    }
}
