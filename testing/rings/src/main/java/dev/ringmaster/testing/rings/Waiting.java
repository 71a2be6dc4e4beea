package dev.ringmaster.testing.rings;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Awaitility as the real tiers wait with it. Awaitility polls; this class only sets it up the same way
 * everywhere and describes a failure when it happens:
 *
 * <ul>
 * <li>The condition is polled on the test's own thread, the first time at once, then at the tier's pace
 * ({@link #every}), so a test acts on what it waited for as soon as it holds (with Awaitility's defaults,
 * a polling thread of its own and a first poll after 100 ms, itests' {@code ApiServerOutageRealIT},
 * which cuts the API server the moment a rebalance drains, failed three runs out of three).</li>
 * <li>A probe that throws counts as "not yet" ({@code ignoreExceptions}); Awaitility attaches the last
 * exception to its timeout.</li>
 * <li>A description is computed once, at the timeout: descriptions list the cluster or read a process's
 * whole stderr, which an Awaitility alias (a fixed string) would compute on every poll.</li>
 * </ul>
 */
public final class Waiting {

    private final Duration poll;

    private Waiting(Duration poll) {
        this.poll = poll;
    }

    /** Waits that poll every {@code poll}: each poll of a ring is a list request to a busy API server. */
    public static Waiting every(Duration poll) {
        return new Waiting(poll);
    }

    /** Awaitility for at most {@code atMost}, set up as above. */
    public ConditionFactory within(Duration atMost) {
        return Awaitility.await().atMost(atMost).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(poll)
                .ignoreExceptions();
    }

    /** Waits until {@code condition} holds; on timeout an AssertionError saying {@code what}. */
    public void until(Duration atMost, Supplier<String> what, Callable<Boolean> condition) {
        try {
            within(atMost).until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(notWithin(atMost, what), e);
        }
    }

    /** Waits until {@code probe} yields a value and returns it; on timeout an AssertionError saying {@code what}. */
    public <T> T value(Duration atMost, Supplier<String> what, Callable<Optional<T>> probe) {
        try {
            return within(atMost).until(probe, Optional::isPresent).get();
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(notWithin(atMost, what), e);
        }
    }

    private static String notWithin(Duration atMost, Supplier<String> what) {
        return "not within " + atMost.toSeconds() + " s: " + what.get();
    }

    /**
     * Checks that {@code problems} stays empty throughout {@code period}. The first non-empty answer is a
     * lapse and fails the check at once, saying {@code what} and the lapse ({@code during} alone would
     * start the period again after a lapse and pass once the condition held long enough). One evaluation
     * may take seconds (a ring of thousands of objects listed on 2 busy cores), so the wait may last well
     * past the period. Exceptions are not ignored here.
     */
    public void throughout(Duration period, Supplier<String> what, Callable<List<String>> problems) {
        try {
            Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(poll).during(period)
                    .atMost(period.multipliedBy(2).plusSeconds(30)).until(() -> {
                        List<String> now = problems.call();
                        if (!now.isEmpty()) {
                            throw new AssertionError(what.get() + "; first lapse: " + summary(now));
                        }
                        return true;
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("did not hold throughout " + period.toSeconds() + " s: " + what.get(), e);
        }
    }

    /**
     * Waits until {@code problems} is empty and stays so throughout {@code hold}, within {@code atMost} (plus the
     * hold): a lapse starts the hold again. On timeout an AssertionError saying {@code what} and the last lapse.
     */
    public void steady(Duration atMost, Duration hold, Supplier<String> what, Callable<List<String>> problems) {
        AtomicReference<List<String>> lastLapse = new AtomicReference<>(List.of());
        try {
            within(atMost.plus(hold)).during(hold).until(() -> {
                List<String> now = problems.call();
                if (!now.isEmpty()) {
                    lastLapse.set(now);
                }
                return now.isEmpty();
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(notWithin(atMost, () -> "steady for " + hold.toSeconds() + " s: " + what.get()
                    + "; last lapse: " + summary(lastLapse.get())), e);
        }
    }

    /** The first twelve of {@code problems} and how many more there are. */
    public static String summary(List<String> problems) {
        return problems.size() <= 12 ? problems.toString()
                : problems.subList(0, 12) + " and " + (problems.size() - 12) + " more";
    }
}
