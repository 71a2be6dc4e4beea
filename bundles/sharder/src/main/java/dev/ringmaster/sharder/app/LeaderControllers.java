package dev.ringmaster.sharder.app;

import dev.ringmaster.kubernetes.client.EventHandlers;
import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.sharder.autoscale.AutoscalingReports;
import dev.ringmaster.sharder.autoscale.RingAutoscaler;
import dev.ringmaster.sharder.interpreter.InvalidKeyEvents;
import dev.ringmaster.sharder.kube.LabelWriter;
import dev.ringmaster.sharder.kube.ObjectEvents;
import dev.ringmaster.sharder.kube.ObjectPages;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.lease.RingLeases;
import dev.ringmaster.sharder.lease.ShardLeaseController;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ranges.LabelHolds;
import dev.ringmaster.sharder.ranges.RangeAssigner;
import dev.ringmaster.sharder.ranges.RangeReturns;
import dev.ringmaster.sharder.rebalance.NamespaceScope;
import dev.ringmaster.sharder.rebalance.RebalanceLimits;
import dev.ringmaster.sharder.rebalance.Rebalancer;
import dev.ringmaster.sharder.ring.RingChange;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.ringcontrol.RingStatusReconciler;
import dev.ringmaster.sharder.ringcontrol.ValidatingWebhookCa;
import dev.ringmaster.sharder.ringcontrol.WebhookClientSettings;
import dev.ringmaster.sharder.runtime.Backoff;
import dev.ringmaster.sharder.runtime.Controller;
import dev.ringmaster.sharder.runtime.Reconciler.Result;
import dev.ringmaster.sharder.unassigned.DrainWatches;
import dev.ringmaster.sharder.unassigned.UnassignedAssigner;
import dev.ringmaster.sharder.unassigned.UnassignedObject;
import dev.ringmaster.sharder.unassigned.UnassignedWatches;
import dev.ringmaster.sharder.weights.WeightBalancer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Everything the leading sharder replica runs for one term of leadership: the ring status
 * controller, the rebalancer and the unassigned-object watch, with the informers that feed them, and
 * the CA of the ValidatingWebhookConfigurations that call the sharder's webhook server (the label guard's).
 * They follow the ring registry, whose views every replica keeps current (from the ClusterRing
 * watch, the shard lease controller and the plug-ins). Built when leadership starts and closed the
 * moment it ends, so a former leader writes nothing.
 */
final class LeaderControllers implements AutoCloseable {

    private static final String WATCHED_RINGS = "all";
    private static final String REPORTING_CONTROLLER = "ringmaster.dev/sharder";

    /** What a term needs from the component that outlives it. */
    record Settings(RebalanceLimits limits, Optional<WebhookClientSettings> webhook,
            ValidatingWebhookCa.Settings validatingWebhooks, Clock clock) {

        Settings(RebalanceLimits limits, Optional<WebhookClientSettings> webhook, Clock clock) {
            this(limits, webhook, ValidatingWebhookCa.Settings.NONE, clock);
        }
    }

    private final RingRegistry registry;
    private final ShardLeaseController leases;
    private final SharedIndexInformer<Namespace> namespaces;
    private final Controller<RingKey> ringStatus;
    private final Rebalancer rebalancer;
    private final Controller<RingKey> rebalancing;
    private final Controller<UnassignedObject> assigning;
    /** Publishes the ranges of range-mode rings on their shard Leases. */
    private final Controller<RingKey> rangeAssigning;
    /** What the range-mode shards of rings that left range mode still claim. */
    private final RangeReturns returns;
    /** Sizes the shards' workload of autoscaled rings. */
    private final Controller<RingKey> autoscaling;
    /** Weighs the shards of label-mode rings balanced by load. */
    private final Controller<RingKey> weighing;
    private final UnassignedWatches watches;
    private final DrainWatches drains;
    private final NamespaceScope scope;
    private final LeaderMetrics metrics;
    /** Starts and stops the unassigned watches; off the informer threads, as it makes API requests. */
    private final Controller<String> watchSync;
    /** The CA of ValidatingWebhookConfigurations, by name; absent when there are none to look after. */
    private final Optional<Controller<String>> validatingCa;
    private final List<SharedIndexInformer<ValidatingWebhookConfiguration>> validatingWatches = new ArrayList<>();
    private final List<String> validatingNames;
    private final Consumer<List<RingChange>> ringsChanged = this::ringsChanged;
    /** Volatile: the registry's thread reads it without the lock, so as not to wait for a closing term. */
    private volatile boolean closed;
    /** Whether the rings are acted on (after the initial membership and namespaces). */
    private volatile boolean acting;

    LeaderControllers(KubernetesClient client, RingRegistry registry, ShardLeaseController leases,
            LeaderMetrics metrics, Settings settings) {
        this.registry = registry;
        this.leases = leases;
        this.metrics = metrics;
        this.namespaces = client.namespaces().runnableInformer(0)
                // a failing list (API server briefly away) is retried, never left unlisted for the term
                .exceptionHandler((started, failure) -> true);
        this.scope = new NamespaceScope(() -> namespaces.getStore().list());
        RingView.InvalidKeys invalidKeys = new InvalidKeyEvents(
                new ObjectEvents(client, settings.clock(), REPORTING_CONTROLLER));
        ResourceCatalog catalog = new ResourceCatalog(client);
        LabelWriter writer = new LabelWriter(client);
        AutoscalingReports autoscalingReports = new AutoscalingReports();
        this.ringStatus = new Controller<>("ringstatus", new RingStatusReconciler(client, registry::compile,
                settings.webhook(), settings.clock(), autoscalingReports), 2, Backoff.DEFAULT);
        autoscalingReports.onChange(ringStatus::enqueue);
        this.autoscaling = new Controller<>("autoscaler", new RingAutoscaler(registry, leases::leases, client,
                settings.clock(), autoscalingReports, metrics), 1, Backoff.DEFAULT);
        this.weighing = new Controller<>("weights", new WeightBalancer(registry, leases::leases, client, catalog,
                new ObjectPages(client, settings.limits().pageSize()), scope, settings.clock(), metrics,
                REPORTING_CONTROLLER), 1, Backoff.DEFAULT);
        LabelHolds holds = new LabelHolds(settings.clock());
        this.returns = new RangeReturns();
        this.rebalancer = new Rebalancer(registry, invalidKeys, catalog,
                new ObjectPages(client, settings.limits().pageSize()), writer, scope, settings.limits(), metrics, holds,
                returns);
        this.rebalancing = new Controller<>("rebalancer", rebalancer, 2, Backoff.DEFAULT);
        this.assigning = new Controller<>("unassigned", new UnassignedAssigner(this::cachedUnassigned,
                registry, invalidKeys, scope, writer, metrics), 4, Backoff.DEFAULT);
        this.rangeAssigning = new Controller<>("ranges", new RangeAssigner(registry, leases::leases, client,
                settings.clock(), metrics, holds, returns), 2, Backoff.DEFAULT);
        holds.onChange(rangeAssigning::enqueue);
        returns.onClaims(rebalancing::enqueue);
        returns.onLabelled(rangeAssigning::enqueue);
        this.watches = new UnassignedWatches(client, catalog, assigning);
        this.drains = new DrainWatches(client, catalog, settings.clock());
        this.watchSync = new Controller<>("unassigned-watches", all -> {
            // a range-mode ring labels no object: neither its unassigned objects nor drains are watched
            List<RingView> valid = registry.views().stream().filter(view -> view.isValid() && !view.rangeModeAsked())
                    .toList();
            watches.sync(valid);
            drains.sync(valid);
            return Result.done();
        }, 1, Backoff.DEFAULT);
        ValidatingWebhookCa.Settings validating = settings.validatingWebhooks();
        this.validatingNames = validating.active() ? validating.names() : List.of();
        this.validatingCa = validatingNames.isEmpty() ? Optional.empty() : Optional.of(new Controller<>("validating-ca",
                new ValidatingWebhookCa(client, validating), 1, Backoff.DEFAULT));
        for (String name : validatingNames) {
            // by name (a field selector), so RBAC can grant it by resourceNames; a configuration created
            // after the term began (the label guard installed later) is given its CA at once
            SharedIndexInformer<ValidatingWebhookConfiguration> watch = client.admissionRegistration().v1()
                    .validatingWebhookConfigurations().withName(name).runnableInformer(0)
                    .exceptionHandler((started, failure) -> true);
            Controller<String> controller = validatingCa.get();
            watch.addEventHandler(EventHandlers.onAddOrUpdate(configuration -> controller.enqueue(name)));
            validatingWatches.add(watch);
        }
    }

    /**
     * Starts the term. Rings are acted on only once the shard leases have all been judged (a ring built
     * from part of the membership would move objects back and forth) and the namespaces are listed
     * (before that, no object is in any ring's scope).
     */
    synchronized void start() {
        ringStatus.start();
        rebalancing.start();
        assigning.start();
        rangeAssigning.start();
        autoscaling.start();
        weighing.start();
        watchSync.start();
        validatingCa.ifPresent(controller -> {
            controller.start();
            validatingNames.forEach(controller::enqueue);
        });
        validatingWatches.forEach(SharedIndexInformer::start);
        CompletableFuture<Void> namespacesListed = namespaces.start().toCompletableFuture();
        CompletableFuture.allOf(leases.initialMembership(), namespacesListed).thenRun(this::actOnRings);
    }

    private synchronized void actOnRings() {
        if (closed) {
            return;
        }
        acting = true;
        registry.addListener(ringsChanged);
        // the registry may have every ring already: look at each once, as if it had just appeared
        ringsChanged(registry.views().stream()
                .map(view -> new RingChange(view.key(), Optional.empty(), Optional.of(view))).toList());
    }

    /**
     * The sharder's CA bundle changed (a new or renewed CA): every ring's webhook configuration and every
     * validating configuration gets it. Only queues work.
     */
    synchronized void caBundleChanged() {
        if (closed) {
            return;
        }
        if (acting) { // else actOnRings looks at every ring soon anyway
            registry.views().forEach(view -> ringStatus.enqueue(view.key()));
        }
        validatingCa.ifPresent(controller -> validatingNames.forEach(controller::enqueue));
    }

    /**
     * A shard Lease changed (renewals too; called on the informers' threads): the range-mode rings it belongs to, and
     * the label-mode ones whose ranges are still claimed, are looked at again, since its served ranges may have
     * shrunk. Only queues work. Autoscaled rings are not: a pass
     * of the autoscaler reads the scale target from the API server, and it runs every
     * {@link RingAutoscaler#PERIOD} anyway, more often than shards report their load.
     */
    void leaseChanged(Lease lease) {
        if (closed || !acting) {
            return; // before acting, actOnRings looks at every ring anyway
        }
        for (RingKey key : RingLeases.rings(lease)) {
            if (registry.view(key).map(RingView::rangeModeAsked).orElse(false) || returns.claims(key).isPresent()) {
                rangeAssigning.enqueue(key);
            }
        }
    }

    private Optional<HasMetadata> cachedUnassigned(UnassignedObject object) {
        return watches.get(object);
    }

    /** What the leader's watches hold of each ring's objects, for its metrics. */
    private final LeaderMetrics.RingObjects objects = new LeaderMetrics.RingObjects() {
        @Override
        public long inDrain(RingKey ring) {
            return drains.inDrain(ring);
        }

        @Override
        public Optional<Duration> oldestDrain(RingKey ring) {
            return drains.oldest(ring);
        }

        @Override
        public long unassigned(RingKey ring) {
            return registry.view(ring).map(view -> {
                Predicate<ObjectReference> inScope = scope.matching(view.namespaceSelector());
                return watches.count(ring, (watched, object) -> {
                    ObjectReference reference = watched.resource().reference(object.getMetadata());
                    return inScope.test(reference) && view.keyFor(reference, new RingResource(watched.resource().group(),
                            watched.resource().resource(), watched.role())) instanceof PartitionKey.Key;
                });
            }).orElse(0L);
        }
    };

    /**
     * Rings whose views changed: report each; resync the watches if resources changed; rebalance and
     * retry the waiting objects of rings whose objects may belong elsewhere now. Called on the thread
     * that updated the registry, so it only queues work.
     */
    private void ringsChanged(List<RingChange> changes) {
        if (closed) {
            return; // a change that raced the end of the term: the next term reports the rings
        }
        metrics.rings(registry.views().stream().map(RingView::key).toList(), objects);
        boolean resync = false;
        for (RingChange change : changes) {
            resync |= change.resourcesChanged();
            if (change.movesObjects()) {
                rebalancing.enqueue(change.ring());
                watches.requeue(change.ring());
            }
            ringStatus.enqueue(change.ring());
            // every change: a ring that stopped autoscaling or balancing by weights is forgotten by its next pass, and
            // a label-mode ring takes ranges back once a shard serves by labels
            rangeAssigning.enqueue(change.ring());
            autoscaling.enqueue(change.ring());
            weighing.enqueue(change.ring());
        }
        if (resync) {
            watchSync.enqueue(WATCHED_RINGS);
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        registry.removeListener(ringsChanged);
        metrics.noRings();
        namespaces.close();
        validatingWatches.forEach(SharedIndexInformer::close);
        List<Controller<?>> controllers = new ArrayList<>(List.of(watchSync, assigning, rangeAssigning, autoscaling,
                weighing, rebalancing, ringStatus));
        validatingCa.ifPresent(controllers::add);
        controllers.forEach(Controller::stop);
        watches.close();
        drains.close();
        // one grace period for all of them, not one each
        long deadline = System.nanoTime() + Controller.CLOSE_GRACE.toNanos();
        controllers.forEach(controller -> controller.awaitStopped(Duration.ofNanos(deadline - System.nanoTime())));
        rebalancer.close();
        metrics.noRings(); // again, after a change that raced the listener's removal
    }
}
