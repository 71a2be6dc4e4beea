package dev.ringmaster.shard.josdk;

import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.shard.client.RangeTarget;
import dev.ringmaster.shard.client.ShardSelectorInterceptor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.RegisteredController;
import io.javaoperatorsdk.operator.processing.Controller;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.controller.ControllerEventSource;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Range mode, one controller: the ranges it serves, handed over by shard-client's {@code ShardRanges}
 * (as a {@code RangeTarget}). It
 * <ul>
 *   <li>admits an object (event filters, {@link ShardGatedReconciler}) only if its hash lies in the
 *       ranges served now, read at each call: a shrink takes effect at once;</li>
 *   <li>sends the ranges' {@code shardSelector} on the list and watch of the controller's primary
 *       resource and, on a change, restarts JOSDK's informers of the primary resource (its controller
 *       event source) so they list again with the new selector: objects of new ranges are added and
 *       reconciled, while an object it kept is passed on only if its version is not the one the user's
 *       reconciler last completed ({@link #delivers}), so a change of ranges reconciles what moved, and
 *       what had not been reconciled yet, not all it serves;
 *       serving nothing after having served ranges (fenced, or all ranges taken away) stops them. Started
 *       before the first assignment, JOSDK lists without a selector and this controller refuses every
 *       object until the first ranges arrive;</li>
 *   <li>tells {@code ShardRanges} whether JOSDK executes an object outside given ranges
 *       ({@link ExecutionGate#busyOutside}), so a shrink is acknowledged only after those executions end.</li>
 * </ul>
 * The restarts run on a thread of its own, the latest ranges winning, so the shard's Lease work is never
 * held up by a list.
 *
 * <p>Why a shrink is safe: an execution is recorded in the {@link ExecutionGate} before it reads the
 * ranges. When {@code ShardRanges} asks {@link #busyOutside} the new ranges are set already, so an
 * execution not recorded then reads them and refuses an object outside.
 */
final class RangeScope<P extends HasMetadata> implements RangeTarget {

    private static final Logger LOG = LoggerFactory.getLogger(RangeScope.class);
    private static final long RETRY_MILLIS = 1000;

    private final String name;
    private final ExecutionGate gate;
    private final ShardSelectorInterceptor selector;
    private final ScheduledExecutorService restarts;
    /** The ranges served now and the key they hash, swapped whole: a filter never reads one without the other. */
    private volatile Served served = new Served(RangeSet.EMPTY, RangeKey.UID);
    /** Set once registered. */
    private volatile Controller<P> controller;
    // guarded by the controller event source (its start and stop are synchronized on it)
    private Served applied;
    /** The namespaces of JOSDK's informers (keys of its InformerManager) while they ran last. */
    private Set<String> namespaces;
    private volatile boolean closed;
    /**
     * The version of each object the user's reconciler last completed, by uid, while the object stayed in
     * the served ranges: an object leaving them is forgotten, so coming back it is reconciled again. Not the
     * version JOSDK was last given: an event JOSDK took while its informers listed again finds no object in
     * their cache and is dropped, so the object must pass when the new list adds it.
     */
    private final Map<String, Reconciled> lastReconciled = new ConcurrentHashMap<>();

    private record Reconciled(String version, long hash) {
    }

    /** The objects JOSDK received an event for and has not submitted since ({@link PendingEvents}). */
    private final Set<ResourceID> pending = ConcurrentHashMap.newKeySet();

    private record Served(RangeSet ranges, RangeKey key) {

        boolean holds(HasMetadata object) {
            return inRanges(object, ranges, key);
        }
    }

    RangeScope(String name, ExecutionGate gate, ShardSelectorInterceptor selector) {
        this.name = name;
        this.gate = gate;
        this.selector = selector;
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "ranges-" + name);
            thread.setDaemon(true);
            return thread;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.restarts = executor;
    }

    /** Whether an object with this uid and namespace lies in {@code ranges} of {@code key}. */
    static boolean inRanges(HasMetadata object, RangeSet ranges, RangeKey key) {
        if (object == null || object.getMetadata() == null || ranges.isEmpty()) {
            return false;
        }
        return ranges.contains(key.hash(object.getMetadata().getUid(), object.getMetadata().getNamespace()));
    }

    /** Whether the controller serves {@code object} now. */
    boolean serves(HasMetadata object) {
        return served.holds(object);
    }

    RangeSet ranges() {
        return served.ranges();
    }

    /**
     * An add event of an object the controller serves: passed on unless the user's reconciler completed this
     * very version already (informers that list again after a change of ranges add every object they kept) and
     * JOSDK has no event of it pending, which it may have dropped while they listed.
     */
    boolean delivers(HasMetadata object) {
        if (pending.contains(ResourceID.fromResource(object))) {
            return true;
        }
        Reconciled last = lastReconciled.get(object.getMetadata().getUid());
        return last == null || !Objects.equals(last.version(), object.getMetadata().getResourceVersion());
    }

    /** JOSDK received an event of the object and has not submitted it yet. */
    void pending(ResourceID object) {
        pending.add(object);
    }

    /** JOSDK submitted the object's execution, or forgot the object on its delete. */
    void settled(ResourceID object) {
        pending.remove(object);
    }

    /** The user's reconciler completed {@code object} at its version. */
    void reconciled(HasMetadata object) {
        String uid = object.getMetadata().getUid();
        RangeKey hashed = served.key();
        lastReconciled.put(uid, new Reconciled(object.getMetadata().getResourceVersion(),
                hashed.hash(uid, object.getMetadata().getNamespace())));
        Served now = served;
        if (!now.holds(object) || hashed != now.key()) {
            lastReconciled.remove(uid); // the ranges changed meanwhile, after they forgot what they no longer hold
        }
    }

    /** The controller JOSDK registered; from now on the ranges restart its informers. */
    @SuppressWarnings("unchecked")
    void controller(RegisteredController<P> registered) {
        this.controller = (Controller<P>) Objects.requireNonNull(registered, "registered");
        submit();
    }

    /** JOSDK started: its informers listed with the selector of the ranges known then, or none (nothing assigned yet). */
    void started() {
        submit();
    }

    @Override
    public void serve(RangeSet ranges, RangeKey key) {
        if (closed) {
            return;
        }
        Served before = served;
        served = new Served(ranges, key);
        if (key != before.key()) {
            lastReconciled.clear();
        } else {
            lastReconciled.values().removeIf(object -> !ranges.contains(object.hash()));
        }
        submit();
    }

    @Override
    public boolean busyOutside(RangeSet ranges, RangeKey key) {
        return gate.busyOutside(ranges, key);
    }

    private void submit() {
        try {
            restarts.execute(this::sync);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    /** Brings JOSDK's informers of the primary resource to the latest ranges. */
    private void sync() {
        Controller<P> registered = controller;
        if (closed || registered == null) {
            return;
        }
        ControllerEventSource<P> source = registered.getEventSourceManager().getControllerEventSource();
        synchronized (source) {
            Served wanted = served;
            RangeSet want = wanted.ranges();
            if (wanted.equals(applied)) {
                return;
            }
            selector.selector(want.isEmpty() ? null : want.selector(wanted.key()));
            if (!source.isRunning()) {
                // JOSDK's start lists with this selector. With none (nothing assigned yet) it lists
                // everything, refused here, until the first ranges list again with theirs
                applied = wanted;
                return;
            }
            try {
                Set<String> cached = source.list(any -> true).map(object -> object.getMetadata().getUid())
                        .collect(Collectors.toSet());
                lastReconciled.keySet().retainAll(cached); // the deleted ones
                Set<String> running = Set.copyOf(source.informerHealthIndicators().keySet());
                if (!running.isEmpty()) {
                    namespaces = running;
                }
                applied = wanted;
                source.changeNamespaces(Set.of()); // stops every informer of the primary resource
                if (!want.isEmpty() && namespaces != null) {
                    source.changeNamespaces(namespaces); // new informers, listing with the new selector
                }
                LOG.info("Controller {}: {}", name, want.isEmpty() ? "serving no ranges, its primary informers stopped"
                        : "primary informers listed again for ranges " + want + " of " + wanted.key().specName());
            } catch (RuntimeException e) {
                LOG.warn("Controller {}: could not restart its primary informers for ranges {}: {}", name, want, e.toString());
                applied = null;
                try {
                    restarts.schedule(this::sync, RETRY_MILLIS, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException closing) {
                    // closed
                }
            }
        }
    }

    /** Ignores the ranges handed over from now on and stops the restarts. */
    void close() {
        closed = true;
        restarts.shutdownNow();
    }

    @Override
    public String toString() {
        return "controller " + name;
    }
}
