package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.examples.checksum.ReconcileLine;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReconcileLogTest {

    @Test
    void reconcilesOfOneObjectByTwoShardsAtOverlappingTimesAreCounted() {
        ReconcileLog log = new ReconcileLog();
        log.accept("reconcile shard=shard-0 object=sandbox/cm-1 start=100 end=200");
        log.accept("reconcile shard=shard-1 object=sandbox/cm-1 start=150 end=250");

        assertThat(log.overlaps()).isEqualTo(1);
        assertThat(log.reconciles()).isEqualTo(2);
        assertThat(log.firstOverlap()).contains("reconcile shard=shard-0 object=sandbox/cm-1 start=100 end=200"
                + " / reconcile shard=shard-1 object=sandbox/cm-1 start=150 end=250");
    }

    @Test
    void intervalsAreClosedSoSharingTheEndMillisecondOverlaps() {
        ReconcileLog log = new ReconcileLog();
        log.add(new ReconcileLine("shard-0", "sandbox", "cm-1", 100, 200));
        log.add(new ReconcileLine("shard-1", "sandbox", "cm-1", 200, 300));
        log.add(new ReconcileLine("shard-2", "sandbox", "cm-1", 301, 400));

        assertThat(log.overlaps()).isEqualTo(1);
    }

    @Test
    void aHandOverWithoutOverlapAndOneShardsOwnReconcilesAreFine() {
        ReconcileLog log = new ReconcileLog();
        log.add(new ReconcileLine("shard-0", "sandbox", "cm-1", 100, 200));
        log.add(new ReconcileLine("shard-0", "sandbox", "cm-1", 150, 180)); // same shard: never a violation
        log.add(new ReconcileLine("shard-1", "sandbox", "cm-1", 201, 300));
        log.add(new ReconcileLine("shard-1", "sandbox", "cm-2", 100, 300)); // another object

        assertThat(log.overlaps()).isZero();
        assertThat(log.firstOverlap()).isEmpty();
        assertThat(log.shardsThatReconciled("sandbox/cm-1")).containsExactly("shard-0", "shard-1");
    }

    @Test
    void everyOverlappingPairCountsOnce() {
        ReconcileLog log = new ReconcileLog();
        log.add(new ReconcileLine("shard-0", "sandbox", "cm-1", 0, 1000));
        log.add(new ReconcileLine("shard-1", "sandbox", "cm-1", 10, 20));
        log.add(new ReconcileLine("shard-2", "sandbox", "cm-1", 15, 30));

        // 0-1, 0-2, 1-2
        assertThat(log.overlaps()).isEqualTo(3);
    }

    @Test
    void countingOneByOneEqualsCountingAllPairs() {
        Random random = new Random(42);
        List<ReconcileLine> lines = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            long start = random.nextInt(10_000);
            lines.add(new ReconcileLine("shard-" + random.nextInt(3), "sandbox", "cm-" + random.nextInt(20), start,
                    start + random.nextInt(50)));
        }
        ReconcileLog log = new ReconcileLog();
        lines.forEach(log::add);

        assertThat(log.overlaps()).isEqualTo(ReconcileLog.countOverlaps(lines)).isPositive();
    }

    @Test
    void otherLinesAreCountedAsUnreadable() {
        ReconcileLog log = new ReconcileLog();
        log.accept("created Secret sandbox/checksums-cm-1");

        assertThat(log.reconciles()).isZero();
        assertThat(log.unreadable()).isEqualTo(1);
    }

    @Test
    void theLastReconcilerIsTheShardOfTheLatestStart() {
        ReconcileLog log = new ReconcileLog();
        assertThat(log.lastReconciler("sandbox/cm-1")).isEmpty();
        log.add(new ReconcileLine("shard-1", "sandbox", "cm-1", 300, 400));
        log.add(new ReconcileLine("shard-0", "sandbox", "cm-1", 100, 200));

        assertThat(log.lastReconciler("sandbox/cm-1")).contains("shard-1");
    }
}
