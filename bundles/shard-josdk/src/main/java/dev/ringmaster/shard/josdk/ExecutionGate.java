package dev.ringmaster.shard.josdk;

import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Mutual exclusion per object between JOSDK's executions and hand-backs. JOSDK calls
 * {@link #reconciliationStarted} and {@link #reconciliationFinished} around the
 * whole execution of an object (finalizer added, reconcile, the patch its {@code UpdateControl} asks
 * for), on the executing thread: the only hook that brackets all of it, hence a {@link Metrics}.
 * A hand-back holds the same object's lock, so it never runs while JOSDK executes that object.
 * In range mode it also tells whether JOSDK executes an object outside given ranges
 * ({@link #busyOutside}): a shrink of the served ranges is acknowledged only when none does.
 */
final class ExecutionGate implements Metrics {

    /** Which thread holds each locked object; guarded by itself. */
    private final Map<String, Thread> holders = new HashMap<>();
    /** The objects JOSDK executes now, by {@link #key}. */
    private final Map<String, HasMetadata> executing = new ConcurrentHashMap<>();

    static String key(HasMetadata resource) {
        return resource.getClass().getName() + "/" + resource.getMetadata().getNamespace() + "/"
                + resource.getMetadata().getName();
    }

    /** Waits until no other thread holds the object, then holds it. */
    void lock(HasMetadata resource) {
        String key = key(resource);
        Thread me = Thread.currentThread();
        boolean interrupted = false;
        synchronized (holders) {
            while (holders.containsKey(key) && holders.get(key) != me) {
                try {
                    holders.wait();
                } catch (InterruptedException e) {
                    interrupted = true; // an execution must not run unguarded: keep waiting, restore the flag
                }
            }
            holders.put(key, me);
        }
        if (interrupted) {
            me.interrupt();
        }
    }

    /** Releases the object if this thread holds it. */
    void unlock(HasMetadata resource) {
        String key = key(resource);
        synchronized (holders) {
            if (holders.get(key) == Thread.currentThread()) {
                holders.remove(key);
                holders.notifyAll();
            }
        }
    }

    /** Whether JOSDK executes an object now whose hash of {@code key} lies outside {@code ranges}. */
    boolean busyOutside(RangeSet ranges, RangeKey key) {
        return executing.values().stream().anyMatch(resource -> !RangeScope.inRanges(resource, ranges, key));
    }

    /** The objects JOSDK executes now. */
    List<HasMetadata> executing() {
        return List.copyOf(executing.values());
    }

    @Override
    public void reconciliationStarted(HasMetadata resource, Map<String, Object> metadata) {
        lock(resource);
        // recorded before the execution reads the served ranges: see RangeScope
        executing.put(key(resource), resource);
    }

    @Override
    public void reconciliationFinished(HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
        // JOSDK also calls this for an execution it skipped without calling Started (object gone from its cache)
        if (resource != null) {
            executing.remove(key(resource));
            unlock(resource);
        }
    }
}
