package dev.ringmaster.shard.josdk;

import dev.ringmaster.shard.client.ShardLabels;
import dev.ringmaster.shard.client.Sharding;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands one controller's drained primaries back to the sharder, on a small pool of its own and never
 * while JOSDK executes the object ({@link ExecutionGate}). Fed by the controller's event filters, by
 * the cache when the Lease is acquired, and by a periodic list of the drained objects from the API
 * server (the drain sweep of shard-client's {@code ShardedReconciler}: a drain must not depend on one
 * watch event). The write itself is shard-client's {@code DrainAcknowledger}.
 */
final class HandBacks<P extends HasMetadata> {

    private static final Logger LOG = LoggerFactory.getLogger(HandBacks.class);

    private final Sharding sharding;
    private final ShardLabels labels;
    private final ExecutionGate gate;
    private final ExecutorService pool;
    private final ScheduledExecutorService sweeper;
    /** Objects queued and not taken yet, by {@link ExecutionGate#key}. */
    private final Set<String> queued = ConcurrentHashMap.newKeySet();
    /** JOSDK's cache of the controller's primaries; set when JOSDK prepares the controller's event sources. */
    private volatile IndexerResourceCache<P> primaries;
    private volatile boolean closed;

    HandBacks(Sharding sharding, ExecutionGate gate, int threads, String controller) {
        this.sharding = sharding;
        this.labels = sharding.labels();
        this.gate = gate;
        this.pool = Executors.newFixedThreadPool(threads, daemon("hand-back-" + controller));
        this.sweeper = Executors.newSingleThreadScheduledExecutor(daemon("drain-sweep-" + controller));
    }

    void primaries(IndexerResourceCache<P> cache) {
        this.primaries = cache;
    }

    /** Lists the drained primaries every {@code period} while the Lease is held and hands each back. */
    void sweep(Supplier<List<P>> drained, Duration period) {
        sweeper.scheduleWithFixedDelay(() -> {
            if (closed || !sharding.lease().isHeld()) {
                return;
            }
            try {
                drained.get().forEach(this::submit);
            } catch (RuntimeException e) {
                if (!closed) { // close() interrupts a list in flight: that one was meant to end
                    LOG.warn("Shard {} could not list its drained objects: {}", labels.shard(), e.toString());
                }
            }
        }, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Queues the object for a hand-back if this shard must drain it.
     *
     * @return whether it must: then it is not to be reconciled
     */
    boolean submit(P object) {
        if (!labels.mustDrain(object.getMetadata().getLabels())) {
            return false;
        }
        String key = ExecutionGate.key(object);
        if (closed || !queued.add(key)) {
            return true; // already queued: the hand-back re-reads on a conflict anyway
        }
        try {
            pool.execute(() -> {
                queued.remove(key);
                handBack(object);
            });
        } catch (RejectedExecutionException e) {
            queued.remove(key); // closing
        }
        return true;
    }

    /** The Lease is held again: hand back what was drained meanwhile (hand-backs wait for the Lease). */
    void onAcquired() {
        IndexerResourceCache<P> cache = primaries;
        if (cache != null) {
            cache.list(object -> labels.mustDrain(object.getMetadata().getLabels())).forEach(this::submit);
        }
    }

    private void handBack(P object) {
        gate.lock(object);
        try {
            // fenced: the objects may be another shard's by now; onAcquired or the sweep queues them again
            if (!closed && sharding.lease().isHeld()) {
                sharding.drainAcknowledger().acknowledgeIfDraining(object);
            }
        } catch (RuntimeException e) {
            LOG.warn("Shard {} could not hand back {}: {}", labels.shard(), ExecutionGate.key(object), e.toString());
        } finally {
            gate.unlock(object);
        }
    }

    /** Stops taking hand-backs and waits for the running ones. */
    void close(Duration timeout) {
        closed = true;
        sweeper.shutdownNow();
        pool.shutdown();
        try {
            pool.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
