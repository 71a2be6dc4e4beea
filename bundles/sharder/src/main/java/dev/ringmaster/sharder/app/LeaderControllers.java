package dev.ringmaster.sharder.app;

import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.clusterring.ClusterRingReconciler;
import dev.ringmaster.sharder.clusterring.ClusterRingValidation;
import dev.ringmaster.sharder.clusterring.WebhookSettings;
import dev.ringmaster.sharder.interpreter.ReportingInterpreter;
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
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Everything the leading sharder replica runs for one term of leadership: the shard lease, ClusterRing
 * and sharder controllers and the unassigned-object watch, with the informers that feed them. Built
 * when leadership starts and closed the moment it ends, so a former leader writes nothing.
 */
final class LeaderControllers implements AutoCloseable {

    private static final String WATCHED_RINGS = "all";
    private static final String REPORTING_CONTROLLER = "ringmaster.dev/sharder";

    /** What a term needs from the component that outlives it. */
    record Settings(Supplier<LeaseDetector> detector, Supplier<ResourceInterpreter> interpreter,
            RebalanceLimits limits, Optional<WebhookSettings> webhook, Clock clock) {
    }

    private final RingRegistry registry;
    private final SharderMetrics metrics;
    private final SharedIndexInformer<Namespace> namespaces;
    private final SharedIndexInformer<ClusterRing> rings;
    private final ShardLeaseController leases;
    private final Controller<String> clusterRings;
    private final Rebalancer rebalancer;
    private final Controller<String> rebalancing;
    private final Controller<UnassignedObject> assigning;
    private final UnassignedWatches watches;
    /** Starts and stops the unassigned watches; off the informer threads, as it makes API requests. */
    private final Controller<String> watchSync;
    private final Consumer<Set<String>> ringsChanged = this::ringsChanged;
    private boolean closed;

    LeaderControllers(KubernetesClient client, RingRegistry registry, SharderMetrics metrics, Settings settings) {
        this.registry = registry;
        this.metrics = metrics;
        this.namespaces = client.namespaces().runnableInformer(0);
        this.rings = client.resources(ClusterRing.class).runnableInformer(0);
        NamespaceScope scope = new NamespaceScope(() -> namespaces.getStore().list());
        ObjectEvents events = new ObjectEvents(client, settings.clock(), REPORTING_CONTROLLER);
        Supplier<ResourceInterpreter> interpreter = () -> {
            ResourceInterpreter current = settings.interpreter().get();
            return current == null ? null : new ReportingInterpreter(current, events);
        };
        ResourceCatalog catalog = new ResourceCatalog(client);
        LabelWriter writer = new LabelWriter(client);
        this.leases = new ShardLeaseController(client, settings.detector(), settings.clock());
        this.clusterRings = new Controller<>("clusterring", new ClusterRingReconciler(client, leases::membership,
                name -> registry.inputs().strategies().containsKey(name), () -> registry.inputs().defaultStrategy(),
                settings.webhook(), settings.clock()), 2, Backoff.DEFAULT);
        this.rebalancer = new Rebalancer(this::ring, ring -> ClusterRingValidation.validate(ring).isEmpty(), registry,
                interpreter, catalog, new ObjectPages(client, settings.limits().pageSize()), writer, scope,
                settings.limits(), metrics);
        this.rebalancing = new Controller<>("sharder", rebalancer, 2, Backoff.DEFAULT);
        this.assigning = new Controller<>("unassigned", new UnassignedAssigner(this::cachedUnassigned,
                this::ring, registry, interpreter, scope, writer, metrics), 4, Backoff.DEFAULT);
        this.watches = new UnassignedWatches(client, catalog, assigning);
        this.watchSync = new Controller<>("unassigned-watches", rings -> {
            watches.sync(this.rings.getStore().list().stream()
                    .filter(ring -> ClusterRingValidation.validate(ring).isEmpty()).toList());
            return Result.done();
        }, 1, Backoff.DEFAULT);
    }

    /**
     * Starts the term. Rings are watched only once the shard leases have all been judged: until then
     * nothing may act on membership, and the registry holds none (the last term's is stale).
     */
    synchronized void start() {
        registry.update(inputs -> inputs.withMembership(Membership.EMPTY));
        registry.addListener(ringsChanged);
        leases.addListener(this::membershipChanged);
        clusterRings.start();
        rebalancing.start();
        assigning.start();
        watchSync.start();
        namespaces.start();
        leases.initialMembership().thenAccept(this::watchRings);
        leases.start();
    }

    private synchronized void watchRings(Membership first) {
        if (closed) {
            return;
        }
        membershipChanged(first);
        rings.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ClusterRing ring) {
                ringChanged(ring, true);
            }

            @Override
            public void onUpdate(ClusterRing before, ClusterRing after) {
                ringChanged(after, !Objects.equals(before.getMetadata().getGeneration(), after.getMetadata().getGeneration()));
            }

            @Override
            public void onDelete(ClusterRing ring, boolean finalStateUnknown) {
                ringChanged(ring, true);
            }
        });
        rings.start();
    }

    private Optional<HasMetadata> cachedUnassigned(UnassignedObject object) {
        return watches.get(object);
    }

    private Optional<ClusterRing> ring(String name) {
        return Optional.ofNullable(rings.getStore().getByKey(name));
    }

    /**
     * A ring appeared, changed or went: refresh the registry, resync the watches, look at it again.
     * Runs on the informer's thread, so it only updates memory and queues work.
     */
    private void ringChanged(ClusterRing ring, boolean specChanged) {
        registry.update(inputs -> inputs.withRings(rings.getStore().list().stream().collect(Collectors.toMap(
                candidate -> candidate.getMetadata().getName(),
                candidate -> Objects.requireNonNullElse(candidate.getSpec().getStrategy(), "")))));
        watchSync.enqueue(WATCHED_RINGS);
        String name = ring.getMetadata().getName();
        clusterRings.enqueue(name);
        if (specChanged) {
            rebalancing.enqueue(name);
        }
    }

    private void membershipChanged(Membership membership) {
        registry.update(inputs -> inputs.withMembership(membership));
        metrics.membership(membership);
        // shard counts are part of every ring's status
        rings.getStore().listKeys().forEach(clusterRings::enqueue);
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
        ringsChanged(Set.copyOf(rings.getStore().listKeys()));
    }

    /** The lease detector in force changed: every shard is judged again. */
    void reevaluateShards() {
        leases.reevaluateAll();
    }



    @Override
    public synchronized void close() {
        closed = true;
        registry.removeListener(ringsChanged);
        rings.close();
        namespaces.close();
        watchSync.close();
        watches.close();
        leases.close();
        assigning.close();
        rebalancing.close();
        clusterRings.close();
        rebalancer.close();
    }
}
