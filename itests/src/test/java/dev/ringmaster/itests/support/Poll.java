package dev.ringmaster.itests.support;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Bounded waiting for asynchronous outcomes: polls a condition until it holds or a deadline passes. */
public final class Poll {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    private static final long INTERVAL_MILLIS = 10;

    private Poll() {
    }

    /** Waits until {@code condition} holds; fails with {@code what} when it has not within the default timeout. */
    public static void until(String what, BooleanSupplier condition) {
        until(what, () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty());
    }

    /** Waits until {@code probe} yields a value and returns it; fails with {@code what} after the default timeout. */
    public static <T> T until(String what, Supplier<Optional<T>> probe) {
        long deadline = System.nanoTime() + DEFAULT_TIMEOUT.toNanos();
        while (true) {
            Optional<T> value = probe.get();
            if (value.isPresent()) {
                return value.get();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + DEFAULT_TIMEOUT.toSeconds() + " s waiting for " + what);
            }
            try {
                Thread.sleep(INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            }
        }
    }
}
