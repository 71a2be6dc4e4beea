package org.example.ringmaster.jumphash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JumpHashStrategyTest {

    private static final ShardRing THREE = new JumpHashStrategy().build(shards(3));
    private static final ShardRing TEN = new JumpHashStrategy().build(shards(10));

    private static List<Shard> shards(int count) {
        return IntStream.range(0, count).mapToObj(i -> Shard.of("shard-" + i)).toList();
    }

    /**
     * 50 keys of every shape on shard-0..2 and on shard-0..9. Computed by an independent implementation
     * (Python) of XXH64, written from its specification, and of jump consistent hash from Lamping and
     * Veach's paper, over the shards in name order.
     */
    @ParameterizedTest
    @CsvSource(textBlock = """
        # key,                                             3 shards, 10 shards
        /ConfigMap/default/cm-0,                           shard-2, shard-3
        apps/Deployment/team-1/web,                        shard-1, shard-8
        /Secret/kube-system/a-rather-long-secret-name-2,   shard-2, shard-2
        /PersistentVolume//pv-3,                           shard-0, shard-8
        batch/Job/ns-4/nightly,                            shard-0, shard-9
        /ConfigMap/default/cm-5,                           shard-2, shard-3
        apps/Deployment/team-6/web,                        shard-1, shard-9
        /Secret/kube-system/a-rather-long-secret-name-7,   shard-1, shard-1
        /PersistentVolume//pv-8,                           shard-0, shard-5
        batch/Job/ns-9/nightly,                            shard-1, shard-1
        /ConfigMap/default/cm-10,                          shard-2, shard-7
        apps/Deployment/team-11/web,                       shard-2, shard-2
        /Secret/kube-system/a-rather-long-secret-name-12,  shard-0, shard-6
        /PersistentVolume//pv-13,                          shard-2, shard-3
        batch/Job/ns-14/nightly,                           shard-1, shard-1
        /ConfigMap/default/cm-15,                          shard-0, shard-6
        apps/Deployment/team-16/web,                       shard-0, shard-5
        /Secret/kube-system/a-rather-long-secret-name-17,  shard-1, shard-8
        /PersistentVolume//pv-18,                          shard-2, shard-9
        batch/Job/ns-19/nightly,                           shard-2, shard-3
        /ConfigMap/default/cm-20,                          shard-0, shard-3
        apps/Deployment/team-21/web,                       shard-0, shard-8
        /Secret/kube-system/a-rather-long-secret-name-22,  shard-0, shard-6
        /PersistentVolume//pv-23,                          shard-0, shard-6
        batch/Job/ns-24/nightly,                           shard-2, shard-2
        /ConfigMap/default/cm-25,                          shard-2, shard-9
        apps/Deployment/team-26/web,                       shard-1, shard-8
        /Secret/kube-system/a-rather-long-secret-name-27,  shard-1, shard-3
        /PersistentVolume//pv-28,                          shard-0, shard-5
        batch/Job/ns-29/nightly,                           shard-2, shard-9
        /ConfigMap/default/cm-30,                          shard-0, shard-8
        apps/Deployment/team-31/web,                       shard-2, shard-9
        /Secret/kube-system/a-rather-long-secret-name-32,  shard-2, shard-4
        /PersistentVolume//pv-33,                          shard-2, shard-2
        batch/Job/ns-34/nightly,                           shard-0, shard-9
        /ConfigMap/default/cm-35,                          shard-2, shard-2
        apps/Deployment/team-36/web,                       shard-2, shard-4
        /Secret/kube-system/a-rather-long-secret-name-37,  shard-1, shard-4
        /PersistentVolume//pv-38,                          shard-0, shard-8
        batch/Job/ns-39/nightly,                           shard-1, shard-1
        /ConfigMap/default/cm-40,                          shard-1, shard-4
        apps/Deployment/team-41/web,                       shard-2, shard-3
        /Secret/kube-system/a-rather-long-secret-name-42,  shard-1, shard-7
        /PersistentVolume//pv-43,                          shard-0, shard-7
        batch/Job/ns-44/nightly,                           shard-0, shard-9
        /ConfigMap/default/cm-45,                          shard-0, shard-6
        apps/Deployment/team-46/web,                       shard-1, shard-8
        /Secret/kube-system/a-rather-long-secret-name-47,  shard-1, shard-8
        /PersistentVolume//pv-48,                          shard-0, shard-4
        batch/Job/ns-49/nightly,                           shard-0, shard-5
        """)
    void pinnedPlacements(String key, String onThree, String onTen) {
        assertThat(THREE.shardFor(key)).contains(onThree);
        assertThat(TEN.shardFor(key)).contains(onTen);
    }

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
