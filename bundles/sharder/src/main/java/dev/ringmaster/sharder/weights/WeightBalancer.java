package dev.ringmaster.sharder.weights;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.sharder.kube.ObjectEvents;
import dev.ringmaster.sharder.kube.ObjectPages;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.lease.LoadReports;
import dev.ringmaster.sharder.model.RingBalancing;
import dev.ringmaster.sharder.model.RingBalancingStatus;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingObject;
import dev.ringmaster.sharder.rebalance.NamespaceScope;
import dev.ringmaster.sharder.ring.BalanceRecorder;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.ringcontrol.LockedJsonPatch;
import dev.ringmaster.sharder.runtime.Reconciler;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's weight balancer (docs/design.md section 10.2): for a label-mode ring with {@code spec.balancing}, sets
 * each shard's weight ({@code status.balancing}) from the load the shards report, when the busiest shard has been
 * more than the tolerance above the mean for the stabilization time, the interval since the last step passed and
 * every object is where the weights in force put it (no drain in flight). Every replica places with the weights of
 * the ring's status, so the objects the new weights move go through the drain handover like any other move.
 * Level-based: each pass reads the view, the cached Leases and, for a step, the ring's objects; what it remembers
 * (since when the ring is off balance) only paces it.
 */
public final class WeightBalancer implements Reconciler<RingKey> {

    static final String BALANCED = "Balanced";
    static final String INVALID_LOAD_REPORT = "InvalidLoadReport";
    /** How often a pass runs without a ring event: the shards' load changes without one. */
    public static final Duration PERIOD = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(WeightBalancer.class);

    private final RingRegistry registry;
    private final Supplier<? extends Collection<Lease>> leases;
    private final KubernetesClient client;
    private final ResourceCatalog catalog;
    private final ObjectPages pages;
    private final NamespaceScope namespaces;
    private final Clock clock;
    private final BalanceRecorder recorder;
    private final ObjectEvents events;
    /** Since when each ring has been off balance beyond its tolerance. */
    private final Map<RingKey, Instant> imbalancedSince = new ConcurrentHashMap<>();
    /** The rings whose load this balancer recorded: only those it forgets (the range assigner records the others). */
    private final Set<RingKey> recorded = ConcurrentHashMap.newKeySet();

    /**
     * @param leases every cached shard Lease (of every ring)
     * @param client writes the ring's status and Events; the leader's fenced client
     */
    public WeightBalancer(RingRegistry registry, Supplier<? extends Collection<Lease>> leases, KubernetesClient client,
            ResourceCatalog catalog, ObjectPages pages, NamespaceScope namespaces, Clock clock,
            BalanceRecorder recorder, String reportingController) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.leases = Objects.requireNonNull(leases, "leases");
        this.client = Objects.requireNonNull(client, "client");
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        this.pages = Objects.requireNonNull(pages, "pages");
        this.namespaces = Objects.requireNonNull(namespaces, "namespaces");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.events = new ObjectEvents(client, clock, reportingController);
    }

    @Override
    public Result reconcile(RingKey ring) {
        Optional<RingView> found = registry.view(ring).filter(RingView::canAct);
        Optional<RingBalancing.Settings> balancing = found.flatMap(RingView::weightBalancing);
        if (balancing.isEmpty()) {
            // gone, not weighed by load, or unable to place: the weights in its status stay as they are
            forget(ring);
            return Result.done();
        }
        RingView view = found.get();
        RingBalancing.Settings settings = balancing.get();
        List<String> available = view.availableShards().stream().map(Shard::name).sorted().toList();
        Map<String, Optional<LoadReport>> reports = LoadReports.byShard(ring, leases.get(), available, this::unreadable);
        Optional<Map<String, Double>> reported = LoadReports.withMean(LoadReports.busy(reports));
        if (reported.isEmpty()) {
            forget(ring);
            return Result.requeueAfter(PERIOD);
        }
        Map<String, Double> busy = reported.get();
        double imbalance = WeightStep.imbalance(busy);
        recorded.add(ring);
        recorder.balanced(ring, busy, imbalance, OptionalDouble.empty());
        Instant now = clock.instant();
        if (imbalance <= settings.maxImbalance() || available.size() < 2) {
            imbalancedSince.remove(ring);
            return Result.requeueAfter(PERIOD);
        }
        Instant since = imbalancedSince.computeIfAbsent(ring, any -> now);
        Optional<Instant> lastStep = lastStep(view.ring());
        if (now.isBefore(since.plus(settings.stabilization()))
                || lastStep.filter(last -> now.isBefore(last.plus(settings.interval()))).isPresent()) {
            return Result.requeueAfter(PERIOD);
        }
        Optional<List<ObjectCosts.Listed>> objects = settledObjects(view);
        if (objects.isEmpty()) {
            LOG.debug("{}: objects are still moving; no balancing step until they are where the weights put them", ring);
            return Result.requeueAfter(PERIOD);
        }
        Optional<WeightStep.Outcome> step;
        try {
            List<WeightStep.Item> costed = ObjectCosts.of(objects.get(), reports, busy);
            step = new WeightStep(costed, available, percents -> view.ringWithWeights(percents).orElseThrow())
                    .next(view.weightPercents(), busy, settings.maxImbalance(), settings.maxMoved());
        } catch (RuntimeException e) {
            // a failing strategy plug-in must not take the sharder down: the weights stay as they are
            LOG.error("{}: trying shard weights failed: {}", ring, e.toString());
            return Result.requeueAfter(PERIOD);
        }
        if (step.isPresent()) {
            set(view.ring(), step.get().percents(), now);
            imbalancedSince.remove(ring);
            LOG.info("{}: balancing step: {}", ring, step.get().reason());
            events.normal(ObjectEvents.about(view.ring()), BALANCED, "Balance", step.get().reason());
            recorder.balanced(ring, busy, imbalance, OptionalDouble.of(step.get().movedShare()));
        }
        return Result.requeueAfter(PERIOD);
    }

    private void forget(RingKey ring) {
        imbalancedSince.remove(ring);
        if (recorded.remove(ring)) {
            recorder.notBalanced(ring);
        }
    }

    /** When the ring's weights last changed, by its status (so a new leader keeps the interval too). */
    private static Optional<Instant> lastStep(RingObject ring) {
        String time = ring.getStatus() == null || ring.getStatus().getBalancing() == null ? null
                : ring.getStatus().getBalancing().getLastStepTime();
        try {
            return Optional.ofNullable(time).map(Instant::parse);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** Said once per report: the shard is counted at the mean. */
    private void unreadable(Lease lease, IllegalArgumentException problem) {
        events.warnOnce(ObjectEvents.about(lease), INVALID_LOAD_REPORT, "ReadLoad", "Annotation "
                + RingContract.LOAD_ANNOTATION + " cannot be read (" + problem.getMessage() + "); the shard is counted"
                + " at the mean busy time of the others");
    }

    /**
     * The ring's main objects in scope with their keys, shards and cells, if every one of them is where the view puts
     * it and none is in drain; empty while objects move. Controlled objects follow their owners and cost nothing apart.
     */
    private Optional<List<ObjectCosts.Listed>> settledObjects(RingView view) {
        Predicate<ObjectReference> inScope = namespaces.matching(view.namespaceSelector());
        List<ObjectCosts.Listed> listed = new ArrayList<>();
        boolean[] settled = {true};
        view.resources().forEach((resource, ringResource) -> {
            if (ringResource.role() != Role.MAIN) {
                return;
            }
            catalog.resolve(resource.getGroup(), resource.getResource()).ifPresent(served -> pages.forEachPage(served,
                    null, page -> {
                        for (ObjectMeta metadata : page) {
                            ObjectReference object = served.reference(metadata);
                            if (inScope.test(object)
                                    && view.keyFor(object, ringResource) instanceof PartitionKey.Key key) {
                                String owner = object.labels().get(view.shardLabel());
                                settled[0] &= !object.labels().containsKey(view.drainLabel())
                                        && view.shardFor(key).map(shard -> shard.equals(owner)).orElse(false);
                                listed.add(new ObjectCosts.Listed(key.value(), owner, cell(metadata)));
                            }
                        }
                    }));
        });
        return settled[0] ? Optional.of(listed) : Optional.empty();
    }

    /** The cell of the object's uid hash, as label-mode shards report their load by; -1 without a uid. */
    private static int cell(ObjectMeta metadata) {
        return metadata.getUid() == null ? -1
                : LoadReport.cell(RangeKey.UID.hash(metadata.getUid(), metadata.getNamespace()));
    }

    /** Writes the weights into the ring's status, locked to the version read: a conflict retries the pass. */
    private void set(RingObject ring, Map<String, Integer> percents, Instant now) {
        RingBalancingStatus status = new RingBalancingStatus(new TreeMap<>(percents),
                DateTimeFormatter.ISO_INSTANT.format(now.truncatedTo(ChronoUnit.SECONDS)));
        new LockedJsonPatch(ring.getMetadata().getResourceVersion()).set("/status/balancing", status)
                .applyToStatus(client, ring);
    }
}
