package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MoveCounterTest {

    private final MoveCounter counter = new MoveCounter();

    @Test
    void anAssignmentFromNoneIsNoMove() {
        counter.observe("cm-1", null);
        counter.observe("cm-1", "shard-0");
        counter.observe("cm-2", "shard-1"); // first seen assigned

        assertThat(counter.moves()).isZero();
    }

    @Test
    void aDrainedObjectCountsOnceWhenItsShardHandsItBack() {
        counter.observe("cm-1", "shard-0");
        counter.observe("cm-1", "shard-0"); // drain label added: same shard
        counter.observe("cm-1", "");        // acknowledged: both labels removed
        counter.observe("cm-1", "shard-3"); // assigned afresh

        assertThat(counter.moves()).isEqualTo(1);
    }

    @Test
    void aDirectMoveCountsOnce() {
        counter.observe("cm-1", "shard-0");
        counter.observe("cm-1", "shard-1");
        counter.observe("cm-1", "shard-1");

        assertThat(counter.moves()).isEqualTo(1);
    }

    @Test
    void aMissedIntermediateStateStillCountsOnce() {
        counter.observe("cm-1", "shard-0");
        // the watch broke while the object was unassigned; the re-list shows it on its new shard
        counter.observe("cm-1", "shard-2");

        assertThat(counter.moves()).isEqualTo(1);
    }

    @Test
    void aDeletedObjectIsForgotten() {
        counter.observe("cm-1", "shard-0");
        counter.forget("cm-1");
        counter.observe("cm-1", "shard-1"); // created again

        assertThat(counter.moves()).isZero();
    }

    @Test
    void objectsAreCountedEachOnTheirOwn() {
        counter.observe("cm-1", "shard-0");
        counter.observe("cm-2", "shard-0");
        counter.observe("cm-1", "shard-1");
        counter.observe("cm-2", null);
        counter.observe("cm-2", "shard-0"); // back where it was: it still left once

        assertThat(counter.moves()).isEqualTo(2);
    }
}
