package dev.ringmaster.ring.spi;

import dev.ringmaster.ring.ShardState;
import java.time.Instant;
import java.util.Objects;

/**
 * A lease detector's verdict.
 *
 * @param state     the shard's state now
 * @param revisitAt when the lease should be looked at again because its state may change then
 */
public record ShardStatus(ShardState state, Instant revisitAt) {

    public ShardStatus {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(revisitAt, "revisitAt");
    }
}
