package dev.ringmaster.itests.support;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Awaitility as the tests in the test JVM wait with it ({@code *RealIT}, {@code *CliIT},
 * {@link RealCluster}). Awaitility polls; this class only sets it up the same way everywhere and
 * describes a failure when it happens:
 *
 * <ul>
 * <li>The condition is polled on the test's own thread, the first time at once, then every 100 ms (the
 * pace of the project's former pollers), so a test acts on what it waited for as soon as it holds:
 * {@code ApiServerOutageRealIT} cuts the API server the moment the rebalance drains. (With Awaitility's
 * defaults, a polling thread of its own and a first poll after 100 ms, that test failed three runs
 * out of three; it is timing-sensitive either way.)</li>
 * <li>A probe that throws counts as "not yet" ({@code ignoreExceptions}); Awaitility attaches the last
 * exception to its timeout.</li>
 * <li>{@link #until} and {@link #value} compute their description once, at the timeout: the tests'
 * descriptions list the cluster or read a process's whole stderr, which an Awaitility alias (a fixed
 * string) or an {@code untilAsserted} message would compute on every poll.</li>
 * </ul>
 */
public final class Waiting {

    private Waiting() {
    }

    /** Awaitility for at most {@code atMost}, set up as above. */
    public static ConditionFactory within(Duration atMost) {
        return Awaitility.await().atMost(atMost).pollInSameThread().pollDelay(Duration.ZERO).ignoreExceptions();
    }

    /** As {@link #within(Duration)}, failing with Awaitility's message naming {@code what}. */
    public static ConditionFactory within(Duration atMost, String what) {
        return within(atMost).alias(what);
    }

    /**
     * A condition that must hold throughout {@code period} (Awaitility's {@code during}); a lapse fails
     * the wait. Exceptions are not ignored here.
     */
    public static ConditionFactory throughout(Duration period, String what) {
        return Awaitility.await("throughout " + period.toMillis() + " ms: " + what).pollInSameThread()
                .pollDelay(Duration.ZERO).during(period).atMost(period.plusSeconds(1));
    }

    /** Waits until {@code condition} holds; on timeout an AssertionError saying {@code what}. */
    public static void until(Duration atMost, Supplier<String> what, Callable<Boolean> condition) {
        try {
            within(atMost).until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(what.get(), e);
        }
    }

    /** Waits until {@code probe} yields a value and returns it; on timeout an AssertionError saying {@code what}. */
    public static <T> T value(Duration atMost, Supplier<String> what, Callable<Optional<T>> probe) {
        try {
            return within(atMost).until(probe, Optional::isPresent).get();
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(what.get(), e);
        }
    }
}
