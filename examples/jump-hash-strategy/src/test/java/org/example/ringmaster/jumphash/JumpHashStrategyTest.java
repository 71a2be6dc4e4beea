package org.example.ringmaster.jumphash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class JumpHashStrategyTest {

    @Test
    void growingTheBucketCountMovesKeysOnlyToTheNewBucket() {
        for (long key = 0; key < 10_000; key++) {
            int before = JumpHashStrategy.bucket(key, 10);
            int after = JumpHashStrategy.bucket(key, 11);
            assertThat(after).isIn(before, 10);
        }
    }

    @Test
    void emptyRingHasNoShardAndShardsAreUsedEvenly() {
        JumpHashStrategy strategy = new JumpHashStrategy();
        assertThat(strategy.build(List.of()).shardFor("x")).isEmpty();
        ShardRing ring = strategy.build(IntStream.range(0, 4).mapToObj(i -> Shard.of("s" + i)).toList());
        long onFirst = IntStream.range(0, 40_000).filter(i -> ring.shardFor("k" + i).orElseThrow().equals("s0")).count();
        assertThat(onFirst).isBetween(9_500L, 10_500L);
    }
}
