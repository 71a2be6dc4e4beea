package dev.ringmaster.sharder.lease;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardState;
import java.util.Objects;

/**
 * One shard of a ring as the shard lease controller last classified it.
 *
 * @param name   the Lease (and shard) name
 * @param state  the lease detector's verdict
 * @param weight from the {@code ringmaster.dev/weight} annotation, 1 when absent or invalid
 */
public record ShardInfo(String name, ShardState state, int weight) {

    public ShardInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
    }

    public boolean isAvailable() {
        return state.isAvailable();
    }

    public Shard toShard() {
        return new Shard(name, weight);
    }
}
