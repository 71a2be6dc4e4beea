package dev.ringmaster.sharder.survey;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardState;
import java.util.Objects;

/**
 * A shard of the ring as the sharder judges its Lease.
 *
 * @param name   the Lease's (and shard's) name
 * @param state  the default lease detector's verdict at the time of the survey
 * @param weight from the {@code ringmaster.dev/weight} annotation, 1 when absent or invalid
 */
public record SurveyedShard(String name, ShardState state, int weight) {

    public SurveyedShard {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
    }

    /** Whether objects may be assigned to it (ready, expired or uncertain). */
    public boolean isAvailable() {
        return state.isAvailable();
    }

    public Shard toShard() {
        return new Shard(name, weight);
    }
}
