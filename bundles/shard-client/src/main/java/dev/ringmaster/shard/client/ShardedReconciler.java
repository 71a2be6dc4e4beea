package dev.ringmaster.shard.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.Store;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
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
 * <p><b>Hand-backs in parallel.</b> Objects the sharder drains are handed back on a small pool of
 * their own ({@link Builder#handBackThreads(int)}), not behind the user's reconciles: a scale-out
 * drains thousands of objects at once, and one write after the other would hold every move up.
 * An object is never handed back while the worker reconciles it: each key is claimed by one task at
 * a time, and a task that finds its key claimed leaves it to the claimer, which dispatches it again.
 *
 * <p><b>Fencing.</b> The wrapper listens to the lease: on {@link ShardLease.Listener#onLost()} it
 * drops the queued keys and stops calling user code; each call is also preceded by
 * {@link ShardLease#isHeld()}. On {@link ShardLease.Listener#onAcquired()} it queues every object in
 * the informer's store again, so nothing that happened meanwhile is missed. A call already running
 * when the lease is lost is not interrupted.
 *
 * <p>Failures of the user's function are logged; the object is tried again at its next event (use
 * an informer resync period for periodic retries).
 *
 * <p><b>Load.</b> Each call of the user's function is timed into the shard's {@link LoadMeter}
 * ({@link Sharding#loadMeter()}) against its object, and so is the time its key waited in the queue (from when it
 * was queued, a key queued again while it waits keeping its first time, to the start of the call); the meter counts
 * the objects of the informer's store this shard owns. The Lease publishes them ({@code ringmaster.dev/load}).
 *
 * <p><b>Drain sweep.</b> A drain must not depend on one watch event reaching this shard: after an
 * API server outage a fabric8 watch can stay silent (it reports itself watching, yet delivers
 * nothing; {@code ApiServerOutageRealIT}), and a hand-back that failed is not retried by any event.
 * So, given {@link Builder#drainSweep(FilterWatchListDeletable, Duration)}, the wrapper lists this
 * shard's drained objects from the API server every period while it holds the lease and hands each
 * back, reading the listed state, not the informer's cache.
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
    /** Hand-backs in flight at once unless the builder says otherwise. */
    public static final int DEFAULT_HAND_BACK_THREADS = 8;

    private final ShardLabels labels;
    private final ShardLease lease;
    private final DrainAcknowledger drainAcknowledger;
    private final LoadMeter meter;
    /** Where objects and events come from, and what this shard owns: a label-mode informer or a {@link RangeInformer}. */
    private final Source<T> source;
    /** Objects being reconciled now, by key: a range shrink waits for those outside the new ranges. */
    private final Map<String, T> running = new ConcurrentHashMap<>();
    private final Predicate<? super T> filter;
    private final Reconciler<? super T> reconciler;
    private final ExecutorService worker;
    private final boolean ownsWorker;
    private final ExecutorService handBack;
    /** Keys queued and not yet taken by the worker, with when they were queued ({@link LoadMeter#now()}). */
    private final Map<String, Long> queued = new ConcurrentHashMap<>();
    /** Keys queued for a hand-back and not yet taken, the same way. */
    private final Map<String, Long> queuedForHandBack = new ConcurrentHashMap<>();
    /** Keys a task works on now; guarded by itself, with {@link #dispatchAgain}. */
    private final Set<String> claimed = new HashSet<>();
    /** Claimed keys another task wanted meanwhile: dispatched again when released. */
    private final Set<String> dispatchAgain = new HashSet<>();
    /** Lists this shard's drained objects from the API server; null: no drain sweep. */
    private final Supplier<List<T>> sweepList;
    private final Duration sweepPeriod;
    private final ScheduledExecutorService sweeper;
    /** Bumped on onLost and close: queued tasks of an older generation do nothing. */
    private volatile long generation;
    private volatile boolean started;
    private volatile boolean closed;

    private ShardedReconciler(Builder<T> builder) {
        this.labels = builder.sharding.labels();
        this.lease = builder.sharding.lease();
        this.drainAcknowledger = builder.sharding.drainAcknowledger();
        this.meter = builder.sharding.loadMeter();
        this.source = builder.source;
        this.filter = builder.filter;
        this.reconciler = builder.reconciler;
        this.ownsWorker = builder.worker == null;
        this.worker = ownsWorker
                ? Executors.newSingleThreadExecutor(daemonThreads("sharded-reconciler-" + labels.shard()))
                : builder.worker;
        this.handBack = Executors.newFixedThreadPool(builder.handBackThreads,
                daemonThreads("hand-back-" + labels.shard()));
        this.sweepList = builder.sweepList;
        this.sweepPeriod = builder.sweepPeriod;
        this.sweeper = sweepList == null ? null
                : Executors.newSingleThreadScheduledExecutor(daemonThreads("drain-sweep-" + labels.shard()));
    }

    /** Daemon threads named {@code prefix}, then {@code -2}, {@code -3}, ... for the second and later. */
    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            int number = count.incrementAndGet();
            Thread thread = new Thread(task, number == 1 ? prefix : prefix + "-" + number);
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Starts a builder for a wrapper fed by {@code informer}. The informer should be restricted to
     * this shard's objects ({@link Sharding#informers()}) and must not filter out events otherwise;
     * give the user's own filter to {@link Builder#filter(Predicate)} instead.
     */
    public static <T extends HasMetadata> Builder<T> builder(Sharding sharding, SharedIndexInformer<T> informer) {
        Objects.requireNonNull(sharding, "sharding");
        return new Builder<>(sharding, Source.labels(sharding.labels(), Objects.requireNonNull(informer, "informer")));
    }

    /**
     * Starts a builder for a wrapper fed by a range mode informer ({@link Sharding.Builder#rangeMode()}):
     * it owns the objects the informer serves now, nothing is ever drained, and a shrink of the
     * informer's ranges is acknowledged only after the reconciles of objects outside them ended. Do
     * not use {@link Builder#drainSweep} with it.
     */
    public static <T extends HasMetadata> Builder<T> builder(Sharding sharding, RangeInformer<T> informer) {
        Objects.requireNonNull(sharding, "sharding");
        return new Builder<>(sharding, Source.ranges(Objects.requireNonNull(informer, "informer")));
    }

    /** The objects being reconciled now. */
    Collection<T> running() {
        return running.values();
    }

    /**
     * Where the wrapper's objects and events come from ({@code informer}; {@code start} and {@code stop} add and
     * remove the wrapper as an event handler, {@code store} holds the cached objects of this shard's watch), and
     * what this shard owns and must drain.
     */
    private record Source<T extends HasMetadata>(Object informer,
                                                 Consumer<ShardedReconciler<T>> start,
                                                 Consumer<ShardedReconciler<T>> stop,
                                                 Supplier<Store<T>> store,
                                                 Predicate<T> owns,
                                                 Predicate<T> mustDrain) {

        T get(String key) {
            return store.get().getByKey(key);
        }

        List<T> list() {
            return store.get().list();
        }

        static <T extends HasMetadata> Source<T> labels(ShardLabels labels, SharedIndexInformer<T> informer) {
            return new Source<>(informer, informer::addEventHandler, informer::removeEventHandler, informer::getStore,
                    object -> labels.owns(object.getMetadata().getLabels()),
                    object -> labels.mustDrain(object.getMetadata().getLabels()));
        }

        static <T extends HasMetadata> Source<T> ranges(RangeInformer<T> informer) {
            Consumer<ShardedReconciler<T>> start = reconciler -> {
                informer.addRunning(reconciler::running);
                informer.addEventHandler(reconciler);
            };
            // stop: the informer stays a running source until its last reconcile ends, closing must not hide one
            return new Source<>(informer, start, informer::removeEventHandler, informer::getStore, informer::serves,
                    object -> false);
        }

        /** The objects of the store this shard owns. */
        List<T> owned() {
            return list().stream().filter(owns).toList();
        }
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
        meter.count(source.informer(), source::owned);
        source.start().accept(this);
        if (sweeper != null) {
            sweeper.scheduleWithFixedDelay(this::sweepDrains, sweepPeriod.toMillis(), sweepPeriod.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
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
        queuedForHandBack.clear();
        source.stop().accept(this);
        meter.uncount(source.informer());
        lease.removeListener(this);
        handBack.shutdown();
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
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
        source.list().forEach(this::enqueue);
    }

    /** Drops the queued keys: no user code runs until the lease is acquired again. */
    @Override
    public void onLost() {
        generation++;
        queued.clear();
        queuedForHandBack.clear();
    }

    private void enqueue(T object) {
        if (object != null && !closed) {
            dispatch(Cache.metaNamespaceKeyFunc(object));
        }
    }

    /** Queues the key for a hand-back if its object is to be drained from this shard, else for the worker. */
    private void dispatch(String key) {
        T object = source.get(key);
        if (object != null && source.mustDrain().test(object)) {
            submit(handBack, queuedForHandBack, key, (handedBackKey, queuedAt) -> handBack(handedBackKey));
        } else {
            submit(worker, queued, key, this::process);
        }
    }

    /** What a task does with its key, queued at {@code queuedAt}; returns whether to dispatch the key again. */
    @FunctionalInterface
    private interface Task {
        boolean run(String key, long queuedAt);
    }

    private void submit(ExecutorService executor, Map<String, Long> queue, String key, Task task) {
        if (queue.putIfAbsent(key, meter.now()) != null) {
            return; // already waiting: the task reads the newest state anyway, and the wait began then
        }
        long enqueuedIn = generation;
        try {
            executor.execute(() -> {
                if (enqueuedIn != generation) {
                    return; // dropped by onLost or close; onAcquired queues it again
                }
                Long queuedAt = queue.remove(key);
                if (claim(key)) {
                    boolean again = false;
                    try {
                        again = task.run(key, queuedAt == null ? meter.now() : queuedAt);
                    } finally {
                        release(key, again);
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            queue.remove(key); // closing
        }
    }

    /** Whether the key is now this task's; if another task has it, that one dispatches it again. */
    private boolean claim(String key) {
        synchronized (claimed) {
            if (claimed.add(key)) {
                return true;
            }
            dispatchAgain.add(key);
            return false;
        }
    }

    private void release(String key, boolean again) {
        boolean wanted;
        synchronized (claimed) {
            claimed.remove(key);
            wanted = dispatchAgain.remove(key) || again;
        }
        if (wanted && !closed) {
            dispatch(key);
        }
    }

    /**
     * Hands the object back.
     *
     * @return whether to dispatch the key again: the drain was withdrawn, so the worker reconciles it
     */
    private boolean handBack(String key) {
        T object = ownedObject(key);
        return object != null && !handedBack(key, object);
    }

    /**
     * Lists this shard's drained objects from the API server and hands back each one not handed back
     * yet, with the listed state: the informer's cache may not show the drain (a watch that went
     * silent, an event lost) and a failed hand-back gets no further event.
     */
    void sweepDrains() {
        if (closed || !lease.isHeld()) {
            return; // onAcquired queues every cached object; the next sweep after it lists again
        }
        List<T> drained;
        try {
            drained = sweepList.get();
        } catch (RuntimeException e) {
            if (!closed) { // close() interrupts a list in flight: that one was meant to end
                LOG.warn("Shard {} could not list its drained objects: {}", labels.shard(), e.toString());
            }
            return;
        }
        for (T object : drained) {
            if (!labels.mustDrain(object.getMetadata().getLabels())) {
                continue;
            }
            String key = Cache.metaNamespaceKeyFunc(object);
            LOG.info("Shard {}: drain sweep found {} still drained; handing it back", labels.shard(), key);
            submit(handBack, queuedForHandBack, key, (ignored, queuedAt) -> {
                if (!closed && lease.isHeld()) {
                    handedBack(key, object);
                }
                return false;
            });
        }
    }

    /** @return never asks to dispatch again: the worker reads the newest state itself */
    private boolean process(String key, long queuedAt) {
        T object = ownedObject(key);
        if (object == null || source.mustDrain().test(object) && handedBack(key, object)) {
            return false;
        }
        // the lease again: the hand-back check may have taken a while
        if (filter != null && !filter.test(object) || !lease.isHeld()) {
            return false;
        }
        // marked running before ownership is looked at again: a range shrink swaps first and then
        // waits for the running objects outside, so either this sees the new ranges or the shrink sees this
        running.put(key, object);
        try {
            if (source.owns().test(object)) {
                long started = meter.now();
                meter.waited(started - queuedAt);
                try {
                    reconciler.reconcile(object);
                } finally {
                    meter.reconciled(object, meter.now() - started);
                }
            }
        } catch (Exception e) {
            LOG.error("Shard {} failed to reconcile {}", labels.shard(), key, e);
        } finally {
            running.remove(key);
        }
        return false;
    }

    /** The object of the key while this shard holds its lease and owns the object, else null. */
    private T ownedObject(String key) {
        if (closed || !lease.isHeld()) {
            return null; // fenced: onAcquired queues it again
        }
        T object = source.get(key);
        return object != null && source.owns().test(object) ? object : null;
    }

    /**
     * Hands the object back if it is drained from this shard.
     *
     * @return whether it was drained: handed back now or before, or a failure logged (its next event
     *     or the drain sweep tries again); either way not to be reconciled
     */
    private boolean handedBack(String key, T object) {
        try {
            return drainAcknowledger.acknowledgeIfDraining(object);
        } catch (RuntimeException e) {
            LOG.warn("Shard {} could not hand back {}: {}", labels.shard(), key, e.toString());
            return true;
        }
    }

    /** Collects and validates the wrapper's settings. Not thread-safe. */
    public static final class Builder<T extends HasMetadata> {

        private final Sharding sharding;
        private final Source<T> source;
        private Predicate<? super T> filter;
        private Reconciler<? super T> reconciler;
        private ExecutorService worker;
        private int handBackThreads = DEFAULT_HAND_BACK_THREADS;
        private Supplier<List<T>> sweepList;
        private Duration sweepPeriod;

        private Builder(Sharding sharding, Source<T> source) {
            this.sharding = sharding;
            this.source = source;
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
         * How many objects may be handed back to the sharder at once (default
         * {@value ShardedReconciler#DEFAULT_HAND_BACK_THREADS}); each hand-back is one write.
         */
        public Builder<T> handBackThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("hand-back threads must be at least 1, got " + threads);
            }
            this.handBackThreads = threads;
            return this;
        }

        /**
         * Every {@code period} while the lease is held, lists this shard's drained objects with
         * {@code operation} (restricted here to this shard's shard label and the drain label) and
         * hands each back, whatever the informer's cache shows. Give the operation the informer
         * lists and watches with, e.g. {@code client.configMaps().inNamespace(ns)}. Default: no
         * sweep, so a drain whose watch event never arrives waits for the object's next event.
         */
        public <L extends KubernetesResourceList<T>> Builder<T> drainSweep(FilterWatchListDeletable<T, L, ?> operation,
                                                                          Duration period) {
            Objects.requireNonNull(operation, "operation");
            Objects.requireNonNull(period, "period");
            if (period.isNegative() || period.isZero()) {
                throw new IllegalArgumentException("drain sweep period must be positive, got " + period);
            }
            ShardLabels shardLabels = sharding.labels();
            FilterWatchListDeletable<T, L, ?> drained = operation
                    .withLabel(shardLabels.shardLabel(), shardLabels.shard())
                    .withLabel(shardLabels.drainLabel());
            this.sweepList = () -> drained.list().getItems();
            this.sweepPeriod = period;
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
