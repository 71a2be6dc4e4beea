package dev.ringmaster.sharder.survey;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardState;
import java.util.Objects;
import java.util.Optional;

/**
 * A shard of the ring as the sharder judges its Lease.
 *
 * @param name         the Lease's (and shard's) name
 * @param state        the default lease detector's verdict at the time of the survey
 * @param weight       from the {@code ringmaster.dev/weight} annotation, 1 when absent or invalid
 * @param sharderState the state the sharder last wrote in the Lease's state label, which is its own
 *                     detector's verdict (another detector, such as {@code pod-readiness}, may judge
 *                     otherwise); empty when the Lease has none
 */
public record SurveyedShard(String name, ShardState state, int weight, Optional<ShardState> sharderState) {

    public SurveyedShard {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(sharderState, "sharderState");
    }

    /** Whether objects may be assigned to it (ready, expired or uncertain). */
    public boolean isAvailable() {
        return state.isAvailable();
    }

    /** Whether the sharder's label says the shard is available when the verdict here says it is not, or the other way round. */
    public boolean judgedOtherwiseBySharder() {
        return sharderState.map(labelled -> labelled.isAvailable() != isAvailable()).orElse(false);
    }

    public Shard toShard() {
        return new Shard(name, weight);
    }
}
