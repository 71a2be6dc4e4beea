package dev.ringmaster.ring.consistent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.testing.PartitioningStrategyContract;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ConsistentHashRingTest extends PartitioningStrategyContract {

    @Override
    protected ShardRing build(Collection<Shard> shards) {
        return ConsistentHashRing.build(shards, 100);
    }

    @Override
    protected double movementTolerancePoints() {
        return 2.0;
    }

    /** Assignments of the reference Go sharder for shards shard-0..2 with 100 tokens each. */
    @ParameterizedTest
    @CsvSource({
        "/ConfigMap/default/foo, shard-0",
        "/ConfigMap/default/bar, shard-1",
        "apps/Deployment/default/web, shard-0",
        "/ConfigMap/default/baz, shard-2",
    })
    void matchesReferenceSharder(String key, String shard) {
        assertThat(build(shards(3)).shardFor(key)).contains(shard);
    }

    /**
     * The same keys with the token format of the reference's current source ({@code "%s-%d"});
     * computed with an independent sorted-map reimplementation of its ring, not by running it.
     */
    @ParameterizedTest
    @CsvSource({
        "/ConfigMap/default/foo, shard-0",
        "/ConfigMap/default/bar, shard-1",
        "apps/Deployment/default/web, shard-2",
        "/ConfigMap/default/baz, shard-1",
    })
    void matchesTheReferencesHyphenatedTokens(String key, String shard) {
        assertThat(ConsistentHashRing.build(shards(3), 100, "-").shardFor(key)).contains(shard);
    }

    @Test
    void aSeparatorKeepsNumberedNamesFromSharingTokens() {
        List<Shard> numbered = shards(20);
        assertThat(ConsistentHashRing.build(numbered, 100).tokenCount()).isLessThan(2000);
        assertThat(ConsistentHashRing.build(numbered, 100, "-").tokenCount()).isEqualTo(2000);
    }

    @Test
    void weightMultipliesTokens() {
        ConsistentHashRing ring = ConsistentHashRing.build(List.of(new Shard("a", 3), Shard.of("b")), 50);
        assertThat(ring.tokenCount()).isEqualTo(200);
    }

    @Test
    void weightedShardsGetProportionallyMoreKeys() {
        String[] owners = assign(ConsistentHashRing.build(List.of(Shard.of("a"), new Shard("b", 4)), 100), KEYS);
        long onB = java.util.Arrays.stream(owners).filter("b"::equals).count();
        // 4 of 5 parts, with the spread virtual nodes leave
        assertThat(100.0 * onB / KEYS).isBetween(74.0, 86.0);
    }

    @Test
    void ringsBeyondTheTokenBoundAreRefusedWithAReason() {
        List<Shard> heavy = List.of(new Shard("a", 1000), new Shard("b", 1000), new Shard("c", 1000));
        assertThatThrownBy(() -> ConsistentHashRing.build(heavy, 1000))
                .hasMessageContaining("3 shards with 1000 tokens per unit of weight need 3000000 tokens")
                .hasMessageContaining("lower tokensPerShard");
    }

    @Test
    void tokensPerShardMustBePositive() {
        assertThatThrownBy(() -> ConsistentHashRing.build(shards(1), 0)).hasMessageContaining("at least 1");
    }
}
