package dev.ringmaster.plugins.podreadiness;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an action once after a burst of requests: the first request schedules it {@code delay} later,
 * requests until then join that run, and a request while it runs schedules the next one.
 */
final class Debouncer {

    private static final Logger LOG = LoggerFactory.getLogger(Debouncer.class);

    private final ScheduledExecutorService executor;
    private final long delayMillis;
    private final Runnable action;
    private final AtomicBoolean pending = new AtomicBoolean();

    Debouncer(ScheduledExecutorService executor, Duration delay, Runnable action) {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.delayMillis = Math.max(0, delay.toMillis());
        this.action = Objects.requireNonNull(action, "action");
    }

    /** Asks for a run; never blocks. */
    void request() {
        if (!pending.compareAndSet(false, true)) {
            return;
        }
        try {
            executor.schedule(this::fire, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            pending.set(false); // shutting down
        }
    }

    private void fire() {
        pending.set(false);
        try {
            action.run();
        } catch (RuntimeException e) {
            LOG.warn("debounced action failed", e);
        }
    }
}
