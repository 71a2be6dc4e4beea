package dev.ringmaster.sharder.ring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingResource.Role;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MoveTest {

    private static final String SHARD = "shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example";
    private static final String DRAIN = "drain.alpha.sharding.timebertt.dev/clusterring-50d858e0-example";
    private static final Set<String> LIVE = Set.of("shard-0", "shard-1");

    private static Move decide(Map<String, String> labels, Role role, String desired) {
        return Move.decide(labels, SHARD, DRAIN, role, Optional.ofNullable(desired), LIVE);
    }

    @Test
    void unassignedObjectsAreAssigned() {
        assertThat(decide(Map.of(), Role.MAIN, "shard-1")).isEqualTo(new Move.Assign("shard-1"));
        assertThat(decide(Map.of(SHARD, ""), Role.CONTROLLED, "shard-1")).isEqualTo(new Move.Assign("shard-1"));
        assertThat(decide(Map.of(DRAIN, "true"), Role.MAIN, "shard-0")).isEqualTo(new Move.Assign("shard-0"));
    }

    @Test
    void objectsOnTheirDesiredShardStay() {
        assertThat(decide(Map.of(SHARD, "shard-1"), Role.MAIN, "shard-1")).isEqualTo(Move.KEEP);
    }

    @Test
    void mainObjectsOnALiveShardAreDrainedOnce() {
        assertThat(decide(Map.of(SHARD, "shard-0"), Role.MAIN, "shard-1")).isEqualTo(new Move.Drain("shard-0"));
        assertThat(decide(Map.of(SHARD, "shard-0", DRAIN, "true"), Role.MAIN, "shard-1")).isEqualTo(Move.KEEP);
    }

    @Test
    void controlledObjectsMoveDirectlyWithTheirOwner() {
        assertThat(decide(Map.of(SHARD, "shard-0"), Role.CONTROLLED, "shard-1"))
                .isEqualTo(new Move.Reassign("shard-0", "shard-1"));
    }

    @Test
    void objectsOfAnUnavailableShardMoveDirectly() {
        assertThat(decide(Map.of(SHARD, "shard-dead", DRAIN, "true"), Role.MAIN, "shard-1"))
                .isEqualTo(new Move.Reassign("shard-dead", "shard-1"));
    }

    @Test
    void nothingMovesWithoutAvailableShards() {
        assertThat(decide(Map.of(SHARD, "shard-0"), Role.MAIN, null)).isEqualTo(Move.KEEP);
        assertThat(decide(Map.of(), Role.MAIN, null)).isEqualTo(Move.KEEP);
    }

    @Test
    void movesWriteOneLabelChangeAndRemoveOnlyLabelsThatArePresent() {
        assertThat(new Move.Assign("shard-1").labelChanges(Map.of(), SHARD, DRAIN)).isEqualTo(Map.of(SHARD, "shard-1"));
        assertThat(new Move.Drain("shard-0").labelChanges(Map.of(SHARD, "shard-0"), SHARD, DRAIN))
                .isEqualTo(Map.of(DRAIN, "true"));
        Map<String, String> reassign = new Move.Reassign("gone", "shard-1")
                .labelChanges(Map.of(SHARD, "gone", DRAIN, "true"), SHARD, DRAIN);
        assertThat(reassign).containsEntry(SHARD, "shard-1").containsEntry(DRAIN, null).hasSize(2);
        assertThat(Move.KEEP.labelChanges(Map.of(), SHARD, DRAIN)).isEmpty();
    }
}
