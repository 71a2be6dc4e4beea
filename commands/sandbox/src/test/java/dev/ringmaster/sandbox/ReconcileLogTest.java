package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.examples.checksum.ReconcileLine;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

    /** Three shards' reconciles of one object, from shard-0 to shard-2: {@code start-end} each. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            intervals are closed, so sharing the end millisecond overlaps | 100-200 200-300 301-400 | 1
            every overlapping pair counts once: 0-1, 0-2, 1-2             | 0-1000 10-20 15-30      | 3
            """)
    void overlappingReconcilesOfOneObjectAreCounted(String rule, String intervals, int overlaps) {
        ReconcileLog log = new ReconcileLog();
        String[] startEnd = intervals.split(" ");
        for (int shard = 0; shard < startEnd.length; shard++) {
            String[] interval = startEnd[shard].split("-");
            log.add(reconcile("shard-" + shard, "cm-1", Long.parseLong(interval[0]), Long.parseLong(interval[1])));
        }

        assertThat(log.overlaps()).isEqualTo(overlaps);
    }

    @Test
    void aHandOverWithoutOverlapAndOneShardsOwnReconcilesAreFine() {
        ReconcileLog log = log(reconcile("shard-0", "cm-1", 100, 200),
                reconcile("shard-0", "cm-1", 150, 180), // same shard: never a violation
                reconcile("shard-1", "cm-1", 201, 300),
                reconcile("shard-1", "cm-2", 100, 300)); // another object

        assertThat(log.overlaps()).isZero();
        assertThat(log.firstOverlap()).isEmpty();
        assertThat(log.shardsThatReconciled("sandbox/cm-1")).containsExactly("shard-0", "shard-1");
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
        log.add(reconcile("shard-1", "cm-1", 300, 400));
        log.add(reconcile("shard-0", "cm-1", 100, 200));

        assertThat(log.lastReconciler("sandbox/cm-1")).contains("shard-1");
    }

    /** A reconcile of ConfigMap sandbox/{@code name}. */
    private static ReconcileLine reconcile(String shard, String name, long start, long end) {
        return new ReconcileLine(shard, "sandbox", name, start, end);
    }

    private static ReconcileLog log(ReconcileLine... lines) {
        ReconcileLog log = new ReconcileLog();
        for (ReconcileLine line : lines) {
            log.add(line);
        }
        return log;
    }
}
