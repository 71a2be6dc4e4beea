package dev.ringmaster.sharder.runtime;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link Reconciler} over keys with the semantics of client-go's work queue: a key waiting in
 * the queue is there once however often it is added; a key is never reconciled by two workers at
 * once, and adds while it is being reconciled make one more pass afterwards; failures are retried
 * with per-key exponential backoff, capped low while the API server is unreachable
 * ({@link Backoff#unreachable}); delayed adds keep the earliest time.
 *
 * @param <K> the key type; must have value semantics
 */
public final class Controller<K> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Controller.class);
    /**
     * How long closing waits for reconciliations in flight. Short: a replica being stopped has at most
     * 30 s before Kubernetes kills it, and a request to an API server that does not answer would hold
     * it far longer; writes after leadership ends are fenced anyway.
     */
    public static final Duration CLOSE_GRACE = Duration.ofSeconds(2);

    private final String name;
    private final Reconciler<K> reconciler;
    private final Backoff backoff;
    private final ExecutorService workers;
    private final ScheduledExecutorService timer;
    private final int workerCount;

    private final Object lock = new Object();
    private final LinkedHashSet<K> queue = new LinkedHashSet<>();
    private final Set<K> processing = new HashSet<>();
    private final Set<K> dirty = new HashSet<>();
    private final Map<K, Integer> failures = new HashMap<>();
    private boolean closed;

    public Controller(String name, Reconciler<K> reconciler, int workerCount, Backoff backoff) {
        if (workerCount < 1) {
            throw new IllegalArgumentException("a controller needs at least one worker");
        }
        this.name = name;
        this.reconciler = reconciler;
        this.backoff = backoff;
        this.workerCount = workerCount;
        this.workers = Executors.newFixedThreadPool(workerCount, daemonThreads(name + "-worker"));
        this.timer = Executors.newSingleThreadScheduledExecutor(daemonThreads(name + "-timer"));
    }

    /** Starts the workers; keys added before are processed now. */
    public void start() {
        for (int i = 0; i < workerCount; i++) {
            workers.execute(this::work);
        }
    }

    /** Queues the key for reconciliation as soon as a worker is free. */
    public void enqueue(K key) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            if (processing.contains(key)) {
                dirty.add(key);
            } else if (queue.add(key)) {
                lock.notifyAll();
            }
        }
    }

    /** Queues the key after a delay. */
    public void enqueueAfter(K key, Duration delay) {
        if (delay.isZero() || delay.isNegative()) {
            enqueue(key);
            return;
        }
        synchronized (lock) {
            if (!closed) {
                timer.schedule(() -> enqueue(key), delay.toNanos(), TimeUnit.NANOSECONDS);
            }
        }
    }

    /** Keys waiting or being reconciled, for readiness and tests. */
    public int pending() {
        synchronized (lock) {
            return queue.size() + processing.size();
        }
    }

    private void work() {
        while (true) {
            K key;
            synchronized (lock) {
                while (!closed && queue.isEmpty()) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                key = queue.iterator().next();
                queue.remove(key);
                processing.add(key);
            }
            Duration retry = process(key);
            synchronized (lock) {
                processing.remove(key);
                if (dirty.remove(key)) {
                    queue.add(key);
                    lock.notifyAll();
                }
            }
            if (retry != null) {
                enqueueAfter(key, retry);
            }
        }
    }

    /** Reconciles once; returns when to retry or requeue, or null. */
    private Duration process(K key) {
        try {
            Reconciler.Result result = reconciler.reconcile(key);
            synchronized (lock) {
                failures.remove(key);
            }
            return result.requeueAfter();
        } catch (Exception | LinkageError e) {
            int attempt;
            synchronized (lock) {
                attempt = failures.merge(key, 1, Integer::sum);
            }
            Duration delay = backoff.delay(attempt, e);
            LOG.warn("{}: reconciling {} failed (attempt {}), retrying in {}: {}", name, key, attempt, delay,
                    describe(e));
            return delay;
        }
    }

    /** The failure and, when it wraps one, its root cause: fabric8's own message rarely says what went wrong. */
    private static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == failure ? failure.toString() : failure + " (cause: " + root + ")";
    }

    /**
     * Stops taking keys and returns at once; reconciliations in flight finish. Stopping several
     * controllers first and closing them after lets their last reconciliations run in parallel.
     */
    public void stop() {
        synchronized (lock) {
            closed = true;
            queue.clear();
            lock.notifyAll();
        }
        timer.shutdownNow();
        workers.shutdown();
    }

    /** Stops taking keys and waits up to {@link #CLOSE_GRACE} for the reconciliations in flight. */
    @Override
    public void close() {
        stop();
        awaitStopped(CLOSE_GRACE);
    }

    /**
     * Waits until the reconciliations in flight after {@link #stop()} have finished, at most
     * {@code timeout}; then interrupts any still running (a request to an API server that does not answer)
     * so that shutting down stays bounded.
     *
     * @return whether every reconciliation finished on its own
     */
    public boolean awaitStopped(Duration timeout) {
        try {
            if (workers.awaitTermination(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.warn("{}: reconciliations still running at shutdown were interrupted", name);
        workers.shutdownNow();
        return false;
    }

    private static java.util.concurrent.ThreadFactory daemonThreads(String prefix) {
        return runnable -> {
            Thread thread = new Thread(runnable, prefix);
            thread.setDaemon(true);
            return thread;
        };
    }
}
