package dev.ringmaster.shard.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wraps the user's reconcile function so that it sees only what this shard may reconcile
 * (docs/design.md section 1). For every object the informer reports:
 * <ol>
 *   <li>nothing happens unless this shard holds its Lease ({@link ShardLease#isHeld()});</li>
 *   <li>objects not assigned to this shard are ignored;</li>
 *   <li>an object this shard must drain is handed back with {@link DrainAcknowledger} and not
 *       reconciled;</li>
 *   <li>the user's filter, if any, is applied (so it can never hide a drain);</li>
 *   <li>everything else is passed to the user's {@link Reconciler}.</li>
 * </ol>
 *
 * <p><b>Level based, one at a time.</b> Events only put the object's key ({@code namespace/name})
 * on a de-duplicating queue; a single worker thread takes the key, reads the object's current state
 * from the informer's store and decides. Several events for one object before the worker gets to
 * it cost one call, and the user's function is never called concurrently. Deleted objects are not
 * passed on (use owner references for clean-up).
 *
 * <p><b>Fencing.</b> The wrapper listens to the lease: on {@link ShardLease.Listener#onLost()} it
 * drops the queued keys and stops calling user code; each call is also preceded by
 * {@link ShardLease#isHeld()}. On {@link ShardLease.Listener#onAcquired()} it queues every object in
 * the informer's store again, so nothing that happened meanwhile is missed. A call already running
 * when the lease is lost is not interrupted.
 *
 * <p>Failures of the user's function and of the drain acknowledgement are logged; the object is
 * tried again at its next event (use an informer resync period for periodic retries).
 *
 * <pre>{@code
 * SharedIndexInformer<ConfigMap> informer = sharding.informers().runnableInformer(client.configMaps().inAnyNamespace());
 * ShardedReconciler<ConfigMap> reconciler = ShardedReconciler.builder(sharding, informer)
 *         .filter(cm -> cm.getData() != null)   // optional; applied after the drain check
 *         .reconciler(cm -> ...)
 *         .build();
 * reconciler.start();   // registers with the informer and the lease
 * informer.start();
 * }</pre>
 *
 * @param <T> the resource type
 */
public final class ShardedReconciler<T extends HasMetadata> implements ResourceEventHandler<T>, ShardLease.Listener, AutoCloseable {

    /** The user's reconcile function. */
    @FunctionalInterface
    public interface Reconciler<T> {

        /**
         * Brings the world in line with {@code object}, an object of this shard that is not being
         * drained and passed the user's filter. Called from the wrapper's single worker thread.
         *
         * @param object the object's current state in the informer's cache; do not modify it
         * @throws Exception logged; the object is tried again at its next event
         */
        void reconcile(T object) throws Exception;
    }

    private static final Logger LOG = LoggerFactory.getLogger(ShardedReconciler.class);

    private final ShardLabels labels;
    private final ShardLease lease;
    private final DrainAcknowledger drainAcknowledger;
    private final SharedIndexInformer<T> informer;
    private final Predicate<? super T> filter;
    private final Reconciler<? super T> reconciler;
    private final ExecutorService worker;
    private final boolean ownsWorker;
    /** Keys queued and not yet taken by the worker. */
    private final Set<String> queued = ConcurrentHashMap.newKeySet();
    /** Bumped on onLost and close: queued tasks of an older generation do nothing. */
    private volatile long generation;
    private volatile boolean started;
    private volatile boolean closed;

    private ShardedReconciler(Builder<T> builder) {
        this.labels = builder.sharding.labels();
        this.lease = builder.sharding.lease();
        this.drainAcknowledger = builder.sharding.drainAcknowledger();
        this.informer = builder.informer;
        this.filter = builder.filter;
        this.reconciler = builder.reconciler;
        this.ownsWorker = builder.worker == null;
        this.worker = ownsWorker ? Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "sharded-reconciler-" + labels.shard());
            thread.setDaemon(true);
            return thread;
        }) : builder.worker;
    }

    /**
     * Starts a builder for a wrapper fed by {@code informer}. The informer should be restricted to
     * this shard's objects ({@link Sharding#informers()}) and must not filter out events otherwise;
     * give the user's own filter to {@link Builder#filter(Predicate)} instead.
     */
    public static <T extends HasMetadata> Builder<T> builder(Sharding sharding, SharedIndexInformer<T> informer) {
        return new Builder<>(Objects.requireNonNull(sharding, "sharding"), Objects.requireNonNull(informer, "informer"));
    }

    /**
     * Registers with the lease and adds this wrapper as the informer's event handler (an informer
     * already running then reports its cached objects again). Start the informer before or after.
     *
     * @throws IllegalStateException if already started or closed
     */
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("sharded reconciler is closed");
        }
        if (started) {
            throw new IllegalStateException("sharded reconciler is already started");
        }
        started = true;
        lease.addListener(this);
        informer.addEventHandler(this);
    }

    /**
     * Stops: unregisters from the informer and the lease, drops queued keys and, if the wrapper
     * created its worker thread, stops it (a running call finishes). Does not stop the informer.
     * Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        generation++;
        queued.clear();
        informer.removeEventHandler(this);
        lease.removeListener(this);
        if (ownsWorker) {
            worker.shutdown();
        }
    }

    @Override
    public void onAdd(T object) {
        enqueue(object);
    }

    @Override
    public void onUpdate(T oldObject, T newObject) {
        enqueue(newObject);
    }

    @Override
    public void onDelete(T object, boolean deletedFinalStateUnknown) {
        // not passed on: nothing to reconcile or hand back once it left the cache
    }

    /** Queues every cached object again: the shard may reconcile from now on. */
    @Override
    public void onAcquired() {
        informer.getStore().list().forEach(this::enqueue);
    }

    /** Drops the queued keys: no user code runs until the lease is acquired again. */
    @Override
    public void onLost() {
        generation++;
        queued.clear();
    }

    private void enqueue(T object) {
        if (object == null || closed) {
            return;
        }
        String key = Cache.metaNamespaceKeyFunc(object);
        if (!queued.add(key)) {
            return; // already waiting: the worker reads the newest state anyway
        }
        long enqueuedIn = generation;
        try {
            worker.execute(() -> {
                if (enqueuedIn != generation) {
                    return; // dropped by onLost or close; onAcquired queues it again
                }
                queued.remove(key);
                process(key);
            });
        } catch (RejectedExecutionException e) {
            queued.remove(key); // closing
        }
    }

    private void process(String key) {
        if (closed || !lease.isHeld()) {
            return; // fenced: onAcquired queues it again
        }
        T object = informer.getStore().getByKey(key);
        if (object == null || !labels.owns(object.getMetadata().getLabels())) {
            return;
        }
        try {
            if (drainAcknowledger.acknowledgeIfDraining(object)) {
                return;
            }
        } catch (RuntimeException e) {
            LOG.warn("Shard {} could not hand back {}: {}", labels.shard(), key, e.toString());
            return;
        }
        if (filter != null && !filter.test(object)) {
            return;
        }
        if (!lease.isHeld()) {
            return; // the acknowledgement may have taken a while
        }
        try {
            reconciler.reconcile(object);
        } catch (Exception e) {
            LOG.error("Shard {} failed to reconcile {}", labels.shard(), key, e);
        }
    }

    /** Collects and validates the wrapper's settings. Not thread-safe. */
    public static final class Builder<T extends HasMetadata> {

        private final Sharding sharding;
        private final SharedIndexInformer<T> informer;
        private Predicate<? super T> filter;
        private Reconciler<? super T> reconciler;
        private ExecutorService worker;

        private Builder(Sharding sharding, SharedIndexInformer<T> informer) {
            this.sharding = sharding;
            this.informer = informer;
        }

        /** The user's reconcile function (required). */
        public Builder<T> reconciler(Reconciler<? super T> reconciler) {
            this.reconciler = Objects.requireNonNull(reconciler, "reconciler");
            return this;
        }

        /**
         * The user's own event filter: objects it rejects are not reconciled. It is applied after
         * the ownership and drain checks, so it cannot keep the shard from handing an object back.
         * Default: accept all.
         */
        public Builder<T> filter(Predicate<? super T> filter) {
            this.filter = Objects.requireNonNull(filter, "filter");
            return this;
        }

        /**
         * Executor the wrapper's tasks run on; it must run them one at a time in order (a single
         * thread), and is not shut down by the wrapper. Default: the wrapper's own daemon thread,
         * stopped on close.
         */
        public Builder<T> worker(ExecutorService worker) {
            this.worker = Objects.requireNonNull(worker, "worker");
            return this;
        }

        /**
         * Validates the settings and builds the wrapper; call {@link ShardedReconciler#start()} next.
         *
         * @throws IllegalStateException if the reconcile function is not set
         */
        public ShardedReconciler<T> build() {
            if (reconciler == null) {
                throw new IllegalStateException("reconciler must be set: the function that reconciles this shard's objects");
            }
            return new ShardedReconciler<>(this);
        }
    }
}
