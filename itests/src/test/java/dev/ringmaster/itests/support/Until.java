package dev.ringmaster.itests.support;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Bounded polling with a timeout of the caller's choosing, for outcomes that take a remote round trip
 * or a controller pass ({@link Poll} polls in-process state with a fixed 10 s). A probe that throws
 * counts as "not yet"; the last exception is attached when the deadline passes.
 */
public final class Until {

    private static final long INTERVAL_MILLIS = 100;

    private Until() {
    }

    /** Waits until {@code condition} holds; fails with {@code what} after {@code timeout}. */
    public static void holds(Duration timeout, String what, BooleanSupplier condition) {
        holds(timeout, () -> what, condition);
    }

    /** As {@link #holds(Duration, String, BooleanSupplier)}, describing the failure when it happens. */
    public static void holds(Duration timeout, Supplier<String> what, BooleanSupplier condition) {
        value(timeout, what, () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty());
    }

    /** Waits until {@code probe} yields a value and returns it. */
    public static <T> T value(Duration timeout, String what, Supplier<Optional<T>> probe) {
        return value(timeout, () -> what, probe);
    }

    public static <T> T value(Duration timeout, Supplier<String> what, Supplier<Optional<T>> probe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException last = null;
        while (true) {
            try {
                Optional<T> value = probe.get();
                if (value.isPresent()) {
                    return value.get();
                }
            } catch (RuntimeException e) {
                last = e;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what.get(), last);
            }
            pause(what);
        }
    }

    /**
     * Checks that {@code condition} holds throughout {@code period} (polled), failing at the first
     * observation that it does not.
     */
    public static void stays(Duration period, String what, BooleanSupplier condition) {
        long end = System.nanoTime() + period.toNanos();
        do {
            if (!condition.getAsBoolean()) {
                throw new AssertionError("expected throughout " + period.toMillis() + " ms: " + what);
            }
            pause(() -> what);
        } while (System.nanoTime() - end < 0);
        if (!condition.getAsBoolean()) {
            throw new AssertionError("expected throughout " + period.toMillis() + " ms: " + what);
        }
    }

    private static void pause(Supplier<String> what) {
        try {
            Thread.sleep(INTERVAL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + what.get(), e);
        }
    }
}
