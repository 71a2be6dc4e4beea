package dev.ringmaster.examples.checksum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReconcileLineTest {

    @Test
    void printsAndParsesTheContractFormat() {
        ReconcileLine line = new ReconcileLine("shard-0", "team-a", "cm-1", 1000, 1005);

        assertThat(line).hasToString("reconcile shard=shard-0 object=team-a/cm-1 start=1000 end=1005");
        assertThat(ReconcileLine.parse(line.toString())).contains(line);
        assertThat(ReconcileLine.parse("  " + line + "\n")).contains(line);
    }

    @Test
    void otherLinesAreNotReconcileLines() {
        assertThat(ReconcileLine.parse("2026-01-01 INFO started")).isEmpty();
        assertThat(ReconcileLine.parse("reconcile shard=s object=noslash start=1 end=2")).isEmpty();
        assertThat(ReconcileLine.parse("reconcile shard=s object=ns/n start=1 end=2 extra")).isEmpty();
        assertThat(ReconcileLine.parse("")).isEmpty();
    }

    @Test
    void overlapIsPerObjectOnClosedIntervals() {
        ReconcileLine a = new ReconcileLine("shard-0", "ns", "x", 100, 200);

        assertThat(a.overlaps(new ReconcileLine("shard-1", "ns", "x", 200, 300))).as("touching ends").isTrue();
        assertThat(a.overlaps(new ReconcileLine("shard-1", "ns", "x", 150, 160))).as("inside").isTrue();
        assertThat(a.overlaps(new ReconcileLine("shard-1", "ns", "x", 50, 100))).as("touching starts").isTrue();
        assertThat(a.overlaps(new ReconcileLine("shard-1", "ns", "x", 201, 300))).as("after").isFalse();
        assertThat(a.overlaps(new ReconcileLine("shard-1", "ns", "x", 10, 99))).as("before").isFalse();
        assertThat(a.overlaps(new ReconcileLine("shard-1", "ns", "y", 100, 200))).as("another object").isFalse();
    }

    @Test
    void aReconcileCannotEndBeforeItStarts() {
        assertThatThrownBy(() -> new ReconcileLine("s", "ns", "x", 2, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
