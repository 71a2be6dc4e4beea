package dev.ringmaster.sharder.app;

import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.clusterring.ClusterRingCache;
import dev.ringmaster.sharder.clusterring.ClusterRingReconciler;
import dev.ringmaster.sharder.clusterring.ClusterRingValidation;
import dev.ringmaster.sharder.clusterring.WebhookSettings;
import dev.ringmaster.sharder.interpreter.ReportingInterpreter;
import dev.ringmaster.sharder.interpreter.RingInterpreters;
import dev.ringmaster.sharder.kube.LabelWriter;
import dev.ringmaster.sharder.kube.ObjectEvents;
import dev.ringmaster.sharder.kube.ObjectPages;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.lease.ShardLeaseController;
import dev.ringmaster.sharder.membership.Membership;
import dev.ringmaster.sharder.metrics.SharderMetrics;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.rebalance.NamespaceScope;
import dev.ringmaster.sharder.rebalance.RebalanceLimits;
import dev.ringmaster.sharder.rebalance.Rebalancer;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.runtime.Backoff;
import dev.ringmaster.sharder.runtime.Controller;
import dev.ringmaster.sharder.runtime.Reconciler.Result;
import dev.ringmaster.sharder.unassigned.UnassignedAssigner;
import dev.ringmaster.sharder.unassigned.UnassignedObject;
import dev.ringmaster.sharder.unassigned.UnassignedWatches;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Everything the leading sharder replica runs for one term of leadership: the ClusterRing and
 * sharder controllers and the unassigned-object watch, with the informers that feed them, fed by the
 * ring cache and the shard lease controller that run on every replica. Built when leadership starts
 * and closed the moment it ends, so a former leader writes nothing.
 */
final class LeaderControllers implements AutoCloseable {

    private static final String WATCHED_RINGS = "all";
    private static final String REPORTING_CONTROLLER = "ringmaster.dev/sharder";

    /** What a term needs from the component that outlives it. */
    record Settings(RingInterpreters interpreters, RebalanceLimits limits,
            Optional<WebhookSettings> webhook, Clock clock) {
    }

    private final RingRegistry registry;
    private final ClusterRingCache rings;
    private final ShardLeaseController leases;
    private final SharedIndexInformer<Namespace> namespaces;
    private final Controller<String> clusterRings;
    private final Rebalancer rebalancer;
    private final Controller<String> rebalancing;
    private final Controller<UnassignedObject> assigning;
    private final UnassignedWatches watches;
    /** Starts and stops the unassigned watches; off the informer threads, as it makes API requests. */
    private final Controller<String> watchSync;
    private final Consumer<Set<String>> ringsChanged = this::ringsChanged;
    private final Consumer<Membership> membershipChanged = this::membershipChanged;
    private final ClusterRingCache.Listener ringChanged = this::ringChanged;
    private boolean closed;

    LeaderControllers(KubernetesClient client, RingRegistry registry, ClusterRingCache rings,
            ShardLeaseController leases, SharderMetrics metrics, Settings settings) {
        this.registry = registry;
        this.rings = rings;
        this.leases = leases;
        this.namespaces = client.namespaces().runnableInformer(0)
                // a failing list (API server briefly away) is retried, never left unlisted for the term
                .exceptionHandler((started, failure) -> true);
        NamespaceScope scope = new NamespaceScope(() -> namespaces.getStore().list());
        ObjectEvents events = new ObjectEvents(client, settings.clock(), REPORTING_CONTROLLER);
        Function<ClusterRing, Optional<ResourceInterpreter>> interpreter = ring -> settings.interpreters()
                .forRing(ring.getSpec()).map(keys -> new ReportingInterpreter(keys, events));
        ResourceCatalog catalog = new ResourceCatalog(client);
        LabelWriter writer = new LabelWriter(client);
        this.clusterRings = new Controller<>("clusterring", new ClusterRingReconciler(client, leases::membership,
                name -> registry.inputs().strategies().containsKey(name), () -> registry.inputs().defaultStrategy(),
                ring -> settings.interpreters().missing(ring.getSpec()), settings.webhook(), settings.clock()),
                2, Backoff.DEFAULT);
        this.rebalancer = new Rebalancer(rings::get, ring -> ClusterRingValidation.validate(ring).isEmpty(), registry,
                interpreter, catalog, new ObjectPages(client, settings.limits().pageSize()), writer, scope,
                settings.limits(), metrics);
        this.rebalancing = new Controller<>("sharder", rebalancer, 2, Backoff.DEFAULT);
        this.assigning = new Controller<>("unassigned", new UnassignedAssigner(this::cachedUnassigned,
                rings::get, registry, interpreter, scope, writer, metrics), 4, Backoff.DEFAULT);
        this.watches = new UnassignedWatches(client, catalog, assigning);
        this.watchSync = new Controller<>("unassigned-watches", all -> {
            watches.sync(rings.list().stream()
                    .filter(ring -> ClusterRingValidation.validate(ring).isEmpty()).toList());
            return Result.done();
        }, 1, Backoff.DEFAULT);
    }

    /**
     * Starts the term. Rings are acted on only once the shard leases have all been judged (a ring built
     * from part of the membership would move objects back and forth) and the namespaces are listed
     * (before that, no object is in any ring's scope).
     */
    synchronized void start() {
        clusterRings.start();
        rebalancing.start();
        assigning.start();
        watchSync.start();
        CompletableFuture<Void> namespacesListed = namespaces.start().toCompletableFuture();
        leases.initialMembership().thenCombine(namespacesListed, (membership, listed) -> membership)
                .thenAccept(this::actOnRings);
    }

    private synchronized void actOnRings(Membership first) {
        if (closed) {
            return;
        }
        registry.addListener(ringsChanged);
        leases.addListener(membershipChanged);
        rings.addListener(ringChanged);
        // the cache may have every ring already: look at each once, as if it had just appeared
        rings.list().forEach(ring -> ringChanged(ring, true));
        membershipChanged(leases.membership());
    }

    private Optional<HasMetadata> cachedUnassigned(UnassignedObject object) {
        return watches.get(object);
    }

    /**
     * A ring appeared, changed or went: resync the watches, look at it again. Runs on the informer's
     * thread, so it only queues work.
     */
    private void ringChanged(ClusterRing ring, boolean specChanged) {
        watchSync.enqueue(WATCHED_RINGS);
        String name = ring.getMetadata().getName();
        clusterRings.enqueue(name);
        if (specChanged) {
            rebalancing.enqueue(name);
        }
    }

    /** Shard counts are part of every ring's status. */
    private void membershipChanged(Membership membership) {
        rings.names().forEach(clusterRings::enqueue);
    }

    /** A ring's snapshot or availability changed: rebalance it, retry its waiting objects, report it. */
    private void ringsChanged(Set<String> changed) {
        for (String ring : changed) {
            rebalancing.enqueue(ring);
            watches.requeue(ring);
            clusterRings.enqueue(ring);
        }
    }

    /** The resource interpreter in force changed: every object is keyed again. */
    void rekeyObjects() {
        ringsChanged(Set.copyOf(rings.names()));
    }

    @Override
    public synchronized void close() {
        closed = true;
        registry.removeListener(ringsChanged);
        leases.removeListener(membershipChanged);
        rings.removeListener(ringChanged);
        namespaces.close();
        List<Controller<?>> controllers = List.of(watchSync, assigning, rebalancing, clusterRings);
        controllers.forEach(Controller::stop);
        watches.close();
        // one grace period for all of them, not one each
        long deadline = System.nanoTime() + Controller.CLOSE_GRACE.toNanos();
        controllers.forEach(controller -> controller.awaitStopped(Duration.ofNanos(deadline - System.nanoTime())));
        rebalancer.close();
    }
}
