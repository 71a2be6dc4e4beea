package dev.ringmaster.clustertests.support;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * The real tiers' waits ({@link dev.ringmaster.testing.rings.Waiting}) at this tier's pace: every
 * {@code 250 ms}, since a cluster moves in seconds and every poll is a list request to an API server on
 * 2 busy cores.
 */
public final class Waiting {

    static final dev.ringmaster.testing.rings.Waiting EVERY_250_MS = dev.ringmaster.testing.rings.Waiting
            .every(Duration.ofMillis(250));

    private Waiting() {
    }

    /** Waits until {@code condition} holds; on timeout an AssertionError saying {@code what}. */
    public static void until(Duration atMost, Supplier<String> what, Callable<Boolean> condition) {
        EVERY_250_MS.until(atMost, what, condition);
    }

    /** Waits until {@code probe} yields a value and returns it; on timeout an AssertionError saying {@code what}. */
    public static <T> T value(Duration atMost, Supplier<String> what, Callable<Optional<T>> probe) {
        return EVERY_250_MS.value(atMost, what, probe);
    }
}
