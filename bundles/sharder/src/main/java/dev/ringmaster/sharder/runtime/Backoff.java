package dev.ringmaster.sharder.runtime;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * Exponential backoff: {@code initial * 2^(attempt-1)}, capped at {@code max}; a failure that only
 * says the API server could not be reached is capped at {@code unreachableMax} instead, so that work
 * which failed throughout an outage runs again within that much of the server's return.
 *
 * @param initial        delay after the first failure
 * @param max            upper bound
 * @param unreachableMax upper bound while the API server is unreachable (at most {@code max})
 */
public record Backoff(Duration initial, Duration max, Duration unreachableMax) {

    /**
     * 100 ms doubling up to 1 minute: fast for conflicts, gentle on a struggling API server; 2 s while
     * it cannot be reached at all (a request per key every 2 s costs nothing, waiting a minute after an
     * outage costs a minute of lag).
     */
    public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(100), Duration.ofMinutes(1), Duration.ofSeconds(2));

    /** HTTP status codes of an API server (or its proxy) that is up but not serving yet. */
    private static final Set<Integer> UNAVAILABLE = Set.of(502, 503, 504);

    public Backoff {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0
                || unreachableMax.compareTo(initial) < 0 || unreachableMax.compareTo(max) > 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= unreachableMax <= max");
        }
    }

    /** A backoff that treats every failure alike: {@code unreachableMax = max}. */
    public Backoff(Duration initial, Duration max) {
        this(initial, max, max);
    }

    /** The delay before retry number {@code attempt} (1 for the first retry). */
    public Duration delay(int attempt) {
        int doublings = Math.min(Math.max(attempt - 1, 0), 30);
        Duration delay = initial.multipliedBy(1L << doublings);
        return delay.compareTo(max) > 0 ? max : delay;
    }

    /** The delay before retry number {@code attempt} after {@code failure}. */
    public Duration delay(int attempt, Throwable failure) {
        Duration delay = delay(attempt);
        return unreachable(failure) && delay.compareTo(unreachableMax) > 0 ? unreachableMax : delay;
    }

    /**
     * Whether the failure, or one of its causes, says the API server could not be reached or is not
     * serving: an I/O failure (refused, reset, TLS handshake cut, timeout) or a 502/503/504.
     */
    public static boolean unreachable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof IOException || cause instanceof TimeoutException
                    || cause instanceof KubernetesClientException kube && UNAVAILABLE.contains(kube.getCode())) {
                return true;
            }
        }
        return false;
    }
}
