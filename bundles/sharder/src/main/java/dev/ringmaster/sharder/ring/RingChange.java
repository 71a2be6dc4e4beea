package dev.ringmaster.sharder.ring;

import dev.ringmaster.sharder.model.RingKey;
import java.util.Objects;
import java.util.Optional;

/**
 * How one ring's view changed in an update of the registry.
 *
 * @param ring   the ring
 * @param before its view before, empty for a new ring
 * @param after  its view now, empty for a ring that went
 */
public record RingChange(RingKey ring, Optional<RingView> before, Optional<RingView> after) {

    public RingChange {
        Objects.requireNonNull(ring, "ring");
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(after, "after");
    }

    /** Objects of the ring may belong elsewhere now: its spec, strategy ring, interpreters or readiness changed. */
    public boolean movesObjects() {
        return after.isPresent() && !after.get().placesLike(before.orElse(null));
    }

    /** The ring's resources may differ, or the ring came or went. */
    public boolean resourcesChanged() {
        return before.isEmpty() || after.isEmpty() || !after.get().resources().equals(before.get().resources());
    }
}
