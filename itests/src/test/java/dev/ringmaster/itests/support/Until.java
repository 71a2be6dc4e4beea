package dev.ringmaster.itests.support;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Bounded polling for the tests that run inside the framework (the Pax Exam probe: {@code SharderIT},
 * {@code WebhookIT}, {@code StrategyHotSwapIT}, {@link Configurations}); the tests in the test JVM
 * ({@code *RealIT}, {@code *CliIT}, {@link RealCluster}) use Awaitility ({@link Waiting}). A probe that
 * throws counts as "not yet"; the last exception is attached when the deadline passes.
 *
 * <p>Why not Awaitility here too: in the framework it would have to be a bundle, and it cannot share a
 * class space with the JUnit 4 bundle the probe runs on. Awaitility 4.2.2 exports {@code org.awaitility}
 * with {@code uses:="org.hamcrest"} and imports {@code org.hamcrest;version="[2.1,3)"}, whereas the
 * JUnit bundle Pax Exam installs ({@code org.apache.servicemix.bundles.junit} 4.13.2_1) exports
 * {@code org.junit} with {@code uses:="org.hamcrest"} bound to the Hamcrest 1.3 it exports itself. A
 * probe importing both {@code org.junit} and {@code org.awaitility} would need two {@code org.hamcrest}
 * packages in one class space, which the resolver refuses (a uses-constraint violation), and adding
 * Hamcrest 2 and Awaitility would put bundles into the framework that the distribution does not ship.
 * This class needs nothing but the JDK, so it travels in the probe with the tests.
 */
public final class Until {

    /**
     * For state inside the framework, without a remote round trip: a service registered or gone, a
     * configuration published.
     */
    public static final Duration IN_PROCESS = Duration.ofSeconds(10);

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
