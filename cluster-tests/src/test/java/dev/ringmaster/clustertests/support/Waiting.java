package dev.ringmaster.clustertests.support;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Awaitility as this tier waits with it, the way itests' {@code Waiting} does: polled on the test's
 * thread, at once and then every {@code 250 ms} (a cluster moves in seconds, and every poll is a list
 * request to an API server on 2 busy cores), exceptions counting as "not yet", and a failure described
 * once, at the timeout (descriptions list the cluster).
 */
public final class Waiting {

    private static final Duration POLL = Duration.ofMillis(250);

    private Waiting() {
    }

    public static ConditionFactory within(Duration atMost) {
        return Awaitility.await().atMost(atMost).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(POLL)
                .ignoreExceptions();
    }

    /** Waits until {@code condition} holds; on timeout an AssertionError saying {@code what}. */
    public static void until(Duration atMost, Supplier<String> what, Callable<Boolean> condition) {
        try {
            within(atMost).until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("not within " + atMost.toSeconds() + " s: " + what.get(), e);
        }
    }

    /** Waits until {@code probe} yields a value and returns it; on timeout an AssertionError saying {@code what}. */
    public static <T> T value(Duration atMost, Supplier<String> what, Callable<Optional<T>> probe) {
        try {
            return within(atMost).until(probe, Optional::isPresent).get();
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("not within " + atMost.toSeconds() + " s: " + what.get(), e);
        }
    }

    /**
     * Checks that {@code condition} holds throughout {@code period}; a lapse fails, saying {@code what}.
     * One evaluation may take seconds (a ring of thousands of objects listed on 2 busy cores), so the
     * wait may last well past the period; the condition itself must record a lapse for the caller.
     */
    public static void throughout(Duration period, Supplier<String> what, Callable<Boolean> condition) {
        try {
            Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(POLL).during(period)
                    .atMost(period.multipliedBy(2).plusSeconds(30)).until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("did not hold throughout " + period.toSeconds() + " s: " + what.get(), e);
        }
    }
}
