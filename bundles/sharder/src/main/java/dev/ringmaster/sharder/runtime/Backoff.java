package dev.ringmaster.sharder.runtime;

import java.time.Duration;

/**
 * Exponential backoff: {@code initial * 2^(attempt-1)}, capped at {@code max}.
 *
 * @param initial delay after the first failure
 * @param max     upper bound
 */
public record Backoff(Duration initial, Duration max) {

    /** 100 ms doubling up to 1 minute: fast for conflicts, gentle on a struggling API server. */
    public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(100), Duration.ofMinutes(1));

    public Backoff {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max");
        }
    }

    /** The delay before retry number {@code attempt} (1 for the first retry). */
    public Duration delay(int attempt) {
        int doublings = Math.min(Math.max(attempt - 1, 0), 30);
        Duration delay = initial.multipliedBy(1L << doublings);
        return delay.compareTo(max) > 0 ? max : delay;
    }
}
