package dev.ringmaster.ring;

import java.util.Locale;

/** The lifecycle of a shard as its lease shows it (docs/design.md section 3). */
public enum ShardState {
    READY(true),
    EXPIRED(true),
    UNCERTAIN(true),
    DEAD(false),
    ORPHANED(false);

    private final boolean available;

    ShardState(boolean available) {
        this.available = available;
    }

    /** Whether objects may be assigned to a shard in this state. */
    public boolean isAvailable() {
        return available;
    }

    /** The value of the state label on the shard's Lease. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
