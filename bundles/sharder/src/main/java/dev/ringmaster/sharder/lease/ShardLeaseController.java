package dev.ringmaster.sharder.lease;

import dev.ringmaster.kubernetes.client.EventHandlers;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.runtime.Backoff;
import dev.ringmaster.sharder.runtime.Controller;
import dev.ringmaster.sharder.runtime.Reconciler;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard lease controller: watches the Leases of every ring's shards, runs a
 * {@link ShardLeaseReconciler} over them and publishes the resulting {@link Membership}.
 *
 * <p>One informer per ring kind selects Leases by that kind's ring label (exists), so the sharder
 * caches only shard leases, never every Lease of the cluster (node heartbeats, leader elections,
 * ...). A label selector cannot say "this label or that one", hence one informer per kind; both feed
 * one work queue, and a pass reads the Lease from whichever cache holds it.
 *
 * <p>With shard lease namespaces ({@code shardLeaseNamespaces}, docs/sharder.md), the informers are one per
 * namespace and kind instead, each listing and watching only its namespace, so the sharder needs Lease
 * permissions in those namespaces only (a RoleBinding each, manifests/namespaced-leases) and never asks for
 * Leases cluster-wide; a Lease elsewhere is no shard. Membership and publishing are the same either way.
 *
 * <p>The membership is immutable and swapped atomically; listeners hear of it only when it differs
 * from the previous one, in order, on a worker thread, so they must be quick (typically: mark the
 * rings to rebuild and return).
 */
public final class ShardLeaseController implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ShardLeaseController.class);

    /** Passes are a cache read and at most one write; two workers keep one slow write from stalling the rest. */
    public static final int DEFAULT_WORKERS = 2;

    private final List<SharedIndexInformer<Lease>> informers;
    /** The namespaces watched; empty: every namespace. */
    private final List<String> namespaces;
    private final ShardLeaseReconciler reconciler;
    private final Controller<LeaseKey> controller;
    private final AtomicReference<Membership> membership = new AtomicReference<>(Membership.EMPTY);
    private final List<Consumer<Membership>> listeners = new CopyOnWriteArrayList<>();
    private final Object publishLock = new Object();
    /** Guarded by publishLock. */
    private boolean initiallyClassified;
    private final CompletableFuture<Membership> initialMembership = new CompletableFuture<>();

    /** A controller with {@value #DEFAULT_WORKERS} workers and the default backoff. */
    public ShardLeaseController(KubernetesClient client, Supplier<LeaseDetector> detector, Clock clock,
            BooleanSupplier writing) {
        this(client, detector, clock, writing, DEFAULT_WORKERS, Backoff.DEFAULT);
    }

    /** A controller with {@value #DEFAULT_WORKERS} workers, the default backoff and these rings' restart graces. */
    public ShardLeaseController(KubernetesClient client, Supplier<LeaseDetector> detector, Clock clock,
            BooleanSupplier writing, Function<RingKey, Optional<Duration>> restartGraces) {
        this(client, detector, clock, writing, DEFAULT_WORKERS, Backoff.DEFAULT, restartGraces);
    }

    /** A controller for which every ring has the default restart grace. */
    public ShardLeaseController(KubernetesClient client, Supplier<LeaseDetector> detector, Clock clock,
            BooleanSupplier writing, int workers, Backoff backoff) {
        this(client, detector, clock, writing, workers, backoff, ring -> Optional.empty());
    }

    /**
     * Prepares the informers and the work queue; nothing talks to the API server before
     * {@link #start()}.
     *
     * @param detector the lease detector in force, read on every pass; may return {@code null} while
     *                 none is bound. Call {@link #reevaluateAll()} when it changes.
     * @param writing  whether passes may write labels, acquire and delete leases (while leading); call
     *                 {@link #reevaluateAll()} when it becomes true
     * @param restartGraces the restart grace of each ring the sharder knows (docs/design.md section 3), read on
     *                 every pass; call {@link #reevaluateAll()} when one changes
     */
    public ShardLeaseController(KubernetesClient client, Supplier<LeaseDetector> detector, Clock clock,
            BooleanSupplier writing, int workers, Backoff backoff, Function<RingKey, Optional<Duration>> restartGraces) {
        this(client, detector, clock, writing, workers, backoff, restartGraces, List.of());
    }

    /**
     * As above, watching shard Leases only in {@code namespaces}.
     *
     * @param namespaces the namespaces whose Leases can be shards ({@code shardLeaseNamespaces}); empty: every
     *                   namespace, with one cluster-wide informer per ring kind
     */
    public ShardLeaseController(KubernetesClient client, Supplier<LeaseDetector> detector, Clock clock,
            BooleanSupplier writing, int workers, Backoff backoff, Function<RingKey, Optional<Duration>> restartGraces,
            List<String> namespaces) {
        Objects.requireNonNull(client, "client");
        this.namespaces = List.copyOf(new LinkedHashSet<>(namespaces));
        List<Optional<String>> scopes = this.namespaces.isEmpty() ? List.of(Optional.empty())
                : this.namespaces.stream().map(Optional::of).toList();
        this.informers = scopes.stream().flatMap(scope -> Arrays.stream(RingKind.values())
                .map(kind -> informer(client, scope, kind))).toList();
        this.reconciler = new ShardLeaseReconciler(client, this::cached, detector, clock, writing, restartGraces);
        Reconciler<LeaseKey> publishing = key -> {
            try {
                return reconciler.reconcile(key);
            } finally {
                // Also after a failed pass: whatever it did observe before failing is true.
                publish();
            }
        };
        this.controller = new Controller<>("shardlease", publishing, workers, backoff);
        ResourceEventHandler<Lease> enqueue = EventHandlers.onEveryEvent(lease -> controller.enqueue(LeaseKey.of(lease)));
        informers.forEach(informer -> informer.addEventHandler(enqueue));
    }

    private static SharedIndexInformer<Lease> informer(KubernetesClient client, Optional<String> namespace, RingKind kind) {
        var leases = namespace.isPresent() ? client.leases().inNamespace(namespace.get())
                : client.leases().inAnyNamespace();
        String where = namespace.map(name -> " in " + name).orElse("");
        return leases.withLabel(kind.leaseLabel())
                .runnableInformer(0)
                // fabric8 gives up when the first list fails; an API server that is briefly down at
                // start must not leave the sharder without membership, so always retry (with its backoff).
                .exceptionHandler((started, failure) -> {
                    LOG.warn("Watching {} shard leases{} failed, retrying: {}", kind.kind(), where, failure.toString());
                    return true;
                });
    }

    /** The namespaces whose Leases are watched; empty: every namespace. */
    public List<String> namespaces() {
        return namespaces;
    }

    /** The lease from the first cache that holds it; a Lease of rings of both kinds is in both. */
    private Lease cached(LeaseKey key) {
        String cacheKey = Cache.namespaceKeyFunc(key.namespace(), key.name());
        return informers.stream().map(informer -> informer.getStore().getByKey(cacheKey))
                .filter(Objects::nonNull).findFirst().orElse(null);
    }

    /** Starts the workers and the informers; returns at once, the initial list arrives as events. */
    public void start() {
        if (namespaces.isEmpty()) {
            LOG.info("Watching shard leases in every namespace");
        } else {
            LOG.info("Watching shard leases only in the namespaces {} (shardLeaseNamespaces); Leases elsewhere are no shards",
                    namespaces);
        }
        controller.start();
        informers.forEach(informer -> informer.start().whenComplete((ignored, failure) -> {
            if (failure != null) {
                LOG.warn("Shard lease informer failed to start: {}", failure.toString());
            } else {
                publish(); // with no leases at all, no pass would ever open the gate
            }
        }));
    }

    /**
     * Completes with the first complete membership: once every lease of the initial list has been
     * classified (at once if there are none). Until then {@link #membership()} is not to be acted on.
     */
    public CompletableFuture<Membership> initialMembership() {
        return initialMembership;
    }

    /** Whether the informers have listed the shard leases once; before that the membership is incomplete. */
    public boolean hasSynced() {
        return informers.stream().allMatch(SharedIndexInformer::hasSynced);
    }

    /** The membership after the latest pass that changed it. */
    public Membership membership() {
        return membership.get();
    }

    /** Registers a listener called with each new membership (not with the current one). */
    public void addListener(Consumer<Membership> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(Consumer<Membership> listener) {
        listeners.remove(listener);
    }

    /**
     * Queues every cached lease for a new pass, e.g. because another lease detector came into force
     * and every verdict may have changed.
     */
    public void reevaluateAll() {
        cachedLeases().forEach(controller::enqueue);
    }

    /**
     * This replica leads from {@code start} on: every lease counts as renewed then at the earliest
     * (one lease duration of grace, see {@link ShardLeaseReconciler#startTerm}), and every lease is
     * judged again.
     */
    public void startTerm(Instant start) {
        reconciler.startTerm(start);
        reevaluateAll();
    }

    /** The term ended. */
    public void endTerm() {
        reconciler.endTerm();
    }

    /** Leases waiting or being reconciled, for readiness and tests. */
    public int pending() {
        return controller.pending();
    }

    /**
     * Tells {@code listener} of every event of a shard Lease (renewals too), on the informers' threads,
     * e.g. to export the Leases; it must be quick. Call before {@link #start()}.
     */
    public void addLeaseListener(Runnable listener) {
        addLeaseListener(lease -> listener.run());
    }

    /** {@link #addLeaseListener(Runnable)}, told which Lease (as it is now, or as it was last seen if deleted). */
    public void addLeaseListener(Consumer<Lease> listener) {
        ResourceEventHandler<Lease> any = EventHandlers.onEveryEvent(listener);
        informers.forEach(informer -> informer.addEventHandler(any));
    }

    /** Every cached shard Lease, once (a Lease of rings of both kinds is in both caches). */
    public Collection<Lease> leases() {
        Map<LeaseKey, Lease> leases = new LinkedHashMap<>();
        informers.forEach(informer -> informer.getStore().list().forEach(lease -> leases.putIfAbsent(LeaseKey.of(lease), lease)));
        return leases.values();
    }

    /** The keys of the cached leases; for tests. */
    List<LeaseKey> cachedLeases() {
        return informers.stream().flatMap(informer -> informer.getStore().list().stream()).map(LeaseKey::of)
                .distinct().toList();
    }

    /** Stops the informers, then the workers; passes in flight finish. */
    @Override
    public void close() {
        informers.forEach(SharedIndexInformer::close);
        controller.close();
    }

    /**
     * Rebuilds the membership from the reconciler's verdicts and publishes it if it changed. Under a
     * lock, so concurrent passes publish one after the other and listeners see changes in order.
     * Nothing is published until every lease of the initial list has been classified: a ring built
     * from the first few leases would move objects only to move them back a moment later.
     */
    private void publish() {
        synchronized (publishLock) {
            boolean first = false;
            if (!initiallyClassified) {
                if (!hasSynced() || !reconciler.hasClassified(cachedLeases())) {
                    return;
                }
                initiallyClassified = true;
                first = true;
            }
            Membership next = reconciler.membership();
            if (!next.equals(membership.get())) {
                membership.set(next);
                for (Consumer<Membership> listener : listeners) {
                    try {
                        listener.accept(next);
                    } catch (RuntimeException e) {
                        LOG.warn("Membership listener {} failed", listener, e);
                    }
                }
            }
            if (first) {
                // after the listeners: whoever waits for it (a new term) finds the ring views built with it
                initialMembership.complete(next);
            }
        }
    }
}
