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
     * The same keys with a {@code "-"} token separator (the format of an unreleased commit of the
     * reference, {@code "%s-%d"}, which no release shipped); computed with an independent sorted-map
     * reimplementation of the ring, not by running it.
     */
    @ParameterizedTest
    @CsvSource({
        "/ConfigMap/default/foo, shard-0",
        "/ConfigMap/default/bar, shard-1",
        "apps/Deployment/default/web, shard-2",
        "/ConfigMap/default/baz, shard-1",
    })
    void aHyphenSeparatorPlacesElsewhere(String key, String shard) {
        assertThat(ConsistentHashRing.build(shards(3), 100, "-").shardFor(key)).contains(shard);
    }

    /**
     * 50 keys of every shape (core and grouped, namespaced and cluster-scoped, shorter and longer than
     * XXH64's 32-byte stripe) on shard-0..2, on shard-0..3, and on shard-0..2 weighted 1:2:4; 100 tokens,
     * no separator. Computed by an independent implementation (Python) of XXH64, written from its
     * specification, and of the ring as docs/strategies.md describes it; that implementation reproduces
     * the reference sharder's assignments above.
     */
    @ParameterizedTest
    @CsvSource(textBlock = """
        # key,                                             3 shards, 4 shards, weighted
        /ConfigMap/default/cm-0,                           shard-2, shard-2, shard-2
        apps/Deployment/team-1/web,                        shard-0, shard-0, shard-0
        /Secret/kube-system/a-rather-long-secret-name-2,   shard-2, shard-2, shard-2
        /PersistentVolume//pv-3,                           shard-0, shard-0, shard-0
        batch/Job/ns-4/nightly,                            shard-0, shard-0, shard-1
        /ConfigMap/default/cm-5,                           shard-1, shard-1, shard-2
        apps/Deployment/team-6/web,                        shard-1, shard-1, shard-1
        /Secret/kube-system/a-rather-long-secret-name-7,   shard-1, shard-1, shard-1
        /PersistentVolume//pv-8,                           shard-0, shard-0, shard-0
        batch/Job/ns-9/nightly,                            shard-1, shard-1, shard-2
        /ConfigMap/default/cm-10,                          shard-0, shard-3, shard-2
        apps/Deployment/team-11/web,                       shard-2, shard-2, shard-2
        /Secret/kube-system/a-rather-long-secret-name-12,  shard-0, shard-0, shard-0
        /PersistentVolume//pv-13,                          shard-0, shard-3, shard-2
        batch/Job/ns-14/nightly,                           shard-0, shard-0, shard-2
        /ConfigMap/default/cm-15,                          shard-2, shard-2, shard-2
        apps/Deployment/team-16/web,                       shard-2, shard-2, shard-1
        /Secret/kube-system/a-rather-long-secret-name-17,  shard-0, shard-0, shard-2
        /PersistentVolume//pv-18,                          shard-2, shard-2, shard-2
        batch/Job/ns-19/nightly,                           shard-2, shard-3, shard-2
        /ConfigMap/default/cm-20,                          shard-0, shard-0, shard-0
        apps/Deployment/team-21/web,                       shard-0, shard-0, shard-2
        /Secret/kube-system/a-rather-long-secret-name-22,  shard-2, shard-2, shard-2
        /PersistentVolume//pv-23,                          shard-2, shard-2, shard-2
        batch/Job/ns-24/nightly,                           shard-2, shard-2, shard-2
        /ConfigMap/default/cm-25,                          shard-2, shard-2, shard-2
        apps/Deployment/team-26/web,                       shard-1, shard-3, shard-1
        /Secret/kube-system/a-rather-long-secret-name-27,  shard-0, shard-0, shard-0
        /PersistentVolume//pv-28,                          shard-0, shard-0, shard-0
        batch/Job/ns-29/nightly,                           shard-1, shard-1, shard-1
        /ConfigMap/default/cm-30,                          shard-1, shard-1, shard-2
        apps/Deployment/team-31/web,                       shard-2, shard-2, shard-2
        /Secret/kube-system/a-rather-long-secret-name-32,  shard-2, shard-2, shard-2
        /PersistentVolume//pv-33,                          shard-1, shard-1, shard-2
        batch/Job/ns-34/nightly,                           shard-1, shard-1, shard-1
        /ConfigMap/default/cm-35,                          shard-1, shard-1, shard-1
        apps/Deployment/team-36/web,                       shard-0, shard-0, shard-1
        /Secret/kube-system/a-rather-long-secret-name-37,  shard-2, shard-2, shard-2
        /PersistentVolume//pv-38,                          shard-2, shard-3, shard-2
        batch/Job/ns-39/nightly,                           shard-0, shard-0, shard-2
        /ConfigMap/default/cm-40,                          shard-1, shard-3, shard-2
        apps/Deployment/team-41/web,                       shard-0, shard-3, shard-0
        /Secret/kube-system/a-rather-long-secret-name-42,  shard-0, shard-0, shard-2
        /PersistentVolume//pv-43,                          shard-0, shard-0, shard-2
        batch/Job/ns-44/nightly,                           shard-1, shard-1, shard-1
        /ConfigMap/default/cm-45,                          shard-0, shard-3, shard-0
        apps/Deployment/team-46/web,                       shard-0, shard-0, shard-0
        /Secret/kube-system/a-rather-long-secret-name-47,  shard-2, shard-3, shard-2
        /PersistentVolume//pv-48,                          shard-1, shard-1, shard-1
        batch/Job/ns-49/nightly,                           shard-2, shard-3, shard-2
        """)
    void pinnedPlacements(String key, String onThree, String onFour, String weighted) {
        assertPinnedPlacement(key, onThree, onFour, weighted);
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
