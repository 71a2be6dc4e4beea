package dev.ringmaster.itests.support;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * The real tiers' waits ({@link dev.ringmaster.testing.rings.Waiting}) as the tests in the test JVM wait
 * ({@code *RealIT}, {@code *CliIT}, {@link RealCluster}): every 100 ms, the pace of the project's former
 * pollers, so that a test acts on what it waited for as soon as it holds.
 */
public final class Waiting {

    static final dev.ringmaster.testing.rings.Waiting EVERY_100_MS = dev.ringmaster.testing.rings.Waiting
            .every(Duration.ofMillis(100));

    private Waiting() {
    }

    /** As {@link dev.ringmaster.testing.rings.Waiting#within}, failing with Awaitility's message naming {@code what}. */
    public static ConditionFactory within(Duration atMost, String what) {
        return EVERY_100_MS.within(atMost).alias(what);
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
        EVERY_100_MS.until(atMost, what, condition);
    }

    /** Waits until {@code probe} yields a value and returns it; on timeout an AssertionError saying {@code what}. */
    public static <T> T value(Duration atMost, Supplier<String> what, Callable<Optional<T>> probe) {
        return EVERY_100_MS.value(atMost, what, probe);
    }
}
