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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RendezvousRingTest extends PartitioningStrategyContract {

    @Override
    protected ShardRing build(Collection<Shard> shards) {
        return RendezvousRing.build(shards);
    }

    @Override
    protected double movementTolerancePoints() {
        return 0.5;
    }

    /**
     * 50 keys of every shape on shard-0..2, on shard-0..3, and on shard-0..2 weighted 1:2:4. Computed by
     * an independent implementation (Python) of XXH64, written from its specification, and of the scores
     * docs/strategies.md describes, in real arithmetic rather than fixed point: every weighted winner
     * here beats the runner-up even with each {@code -log2(h)} off by 1e-6, far more than the fixed-point
     * error, so the pinned shard does not depend on how the logarithm is approximated.
     */
    @ParameterizedTest
    @CsvSource(textBlock = """
        # key,                                             3 shards, 4 shards, weighted
        /ConfigMap/default/cm-0,                           shard-0, shard-0, shard-2
        apps/Deployment/team-1/web,                        shard-0, shard-0, shard-0
        /Secret/kube-system/a-rather-long-secret-name-2,   shard-2, shard-2, shard-2
        /PersistentVolume//pv-3,                           shard-2, shard-2, shard-2
        batch/Job/ns-4/nightly,                            shard-0, shard-0, shard-1
        /ConfigMap/default/cm-5,                           shard-0, shard-0, shard-2
        apps/Deployment/team-6/web,                        shard-2, shard-3, shard-2
        /Secret/kube-system/a-rather-long-secret-name-7,   shard-0, shard-0, shard-2
        /PersistentVolume//pv-8,                           shard-2, shard-3, shard-2
        batch/Job/ns-9/nightly,                            shard-1, shard-1, shard-1
        /ConfigMap/default/cm-10,                          shard-2, shard-2, shard-2
        apps/Deployment/team-11/web,                       shard-0, shard-0, shard-1
        /Secret/kube-system/a-rather-long-secret-name-12,  shard-1, shard-1, shard-1
        /PersistentVolume//pv-13,                          shard-1, shard-1, shard-1
        batch/Job/ns-14/nightly,                           shard-2, shard-2, shard-2
        /ConfigMap/default/cm-15,                          shard-2, shard-2, shard-2
        apps/Deployment/team-16/web,                       shard-1, shard-1, shard-2
        /Secret/kube-system/a-rather-long-secret-name-17,  shard-0, shard-3, shard-2
        /PersistentVolume//pv-18,                          shard-0, shard-3, shard-0
        batch/Job/ns-19/nightly,                           shard-1, shard-1, shard-1
        /ConfigMap/default/cm-20,                          shard-1, shard-3, shard-2
        apps/Deployment/team-21/web,                       shard-0, shard-0, shard-0
        /Secret/kube-system/a-rather-long-secret-name-22,  shard-0, shard-0, shard-0
        /PersistentVolume//pv-23,                          shard-0, shard-0, shard-2
        batch/Job/ns-24/nightly,                           shard-2, shard-2, shard-2
        /ConfigMap/default/cm-25,                          shard-1, shard-1, shard-1
        apps/Deployment/team-26/web,                       shard-2, shard-2, shard-2
        /Secret/kube-system/a-rather-long-secret-name-27,  shard-1, shard-1, shard-1
        /PersistentVolume//pv-28,                          shard-2, shard-2, shard-2
        batch/Job/ns-29/nightly,                           shard-1, shard-3, shard-2
        /ConfigMap/default/cm-30,                          shard-1, shard-1, shard-1
        apps/Deployment/team-31/web,                       shard-2, shard-2, shard-2
        /Secret/kube-system/a-rather-long-secret-name-32,  shard-1, shard-1, shard-2
        /PersistentVolume//pv-33,                          shard-1, shard-1, shard-1
        batch/Job/ns-34/nightly,                           shard-1, shard-3, shard-2
        /ConfigMap/default/cm-35,                          shard-2, shard-2, shard-2
        apps/Deployment/team-36/web,                       shard-0, shard-0, shard-0
        /Secret/kube-system/a-rather-long-secret-name-37,  shard-1, shard-1, shard-1
        /PersistentVolume//pv-38,                          shard-2, shard-3, shard-2
        batch/Job/ns-39/nightly,                           shard-1, shard-1, shard-1
        /ConfigMap/default/cm-40,                          shard-0, shard-0, shard-0
        apps/Deployment/team-41/web,                       shard-0, shard-3, shard-2
        /Secret/kube-system/a-rather-long-secret-name-42,  shard-2, shard-2, shard-2
        /PersistentVolume//pv-43,                          shard-1, shard-1, shard-1
        batch/Job/ns-44/nightly,                           shard-2, shard-2, shard-2
        /ConfigMap/default/cm-45,                          shard-0, shard-0, shard-0
        apps/Deployment/team-46/web,                       shard-2, shard-2, shard-2
        /Secret/kube-system/a-rather-long-secret-name-47,  shard-2, shard-2, shard-2
        /PersistentVolume//pv-48,                          shard-0, shard-0, shard-0
        batch/Job/ns-49/nightly,                           shard-2, shard-3, shard-2
        """)
    void pinnedPlacements(String key, String onThree, String onFour, String weighted) {
        assertPinnedPlacement(key, onThree, onFour, weighted);
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
