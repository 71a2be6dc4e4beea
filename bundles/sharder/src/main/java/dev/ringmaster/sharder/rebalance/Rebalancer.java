package dev.ringmaster.sharder.rebalance;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.sharder.kube.LabelWriter;
import dev.ringmaster.sharder.kube.ObjectPages;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.kube.WriteFence;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ranges.LabelHolds;
import dev.ringmaster.sharder.ranges.RangeReturns;
import dev.ringmaster.sharder.ring.Move;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.runtime.Reconciler;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sharder controller: one pass over every object of a ring moves each to its desired shard
 * (docs/design.md section 5). Level-based — every pass lists the current state and keeps no cache of
 * sharded objects, only the page at hand (and, while a ring enters range mode, the drains of the objects label-mode
 * shards still hold, until the listing ends) — and each moved object costs exactly one optimistic write.
 */
public final class Rebalancer implements Reconciler<RingKey>, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Rebalancer.class);
    /** The longest wait between passes of a ring that waits for drains nobody acknowledges. */
    static final Duration MAX_STALLED_RETRY = Duration.ofSeconds(30);

    private final RingRegistry registry;
    private final RingView.InvalidKeys invalidKeys;
    private final ResourceCatalog catalog;
    private final ObjectPages pages;
    private final LabelWriter writer;
    private final NamespaceScope namespaces;
    private final RebalanceLimits limits;
    private final MoveRecorder recorder;
    private final LabelHolds holds;
    private final RangeReturns returns;
    private final ExecutorService writers;

    /**
     * @param registry    every ring's current view, which decides each move
     * @param invalidKeys told of objects the ring's interpreter cannot key
     * @param holds       told where a ring entering range mode still has objects of label-mode shards
     * @param returns     what range-mode shards of a ring that left range mode still claim: objects there stay
     */
    public Rebalancer(RingRegistry registry, RingView.InvalidKeys invalidKeys, ResourceCatalog catalog,
            ObjectPages pages, LabelWriter writer, NamespaceScope namespaces, RebalanceLimits limits,
            MoveRecorder recorder, LabelHolds holds, RangeReturns returns) {
        this.registry = registry;
        this.invalidKeys = invalidKeys;
        this.catalog = catalog;
        this.pages = pages;
        this.writer = writer;
        this.namespaces = namespaces;
        this.limits = limits;
        this.recorder = recorder;
        this.holds = holds;
        this.returns = returns;
        this.writers = Executors.newFixedThreadPool(limits.concurrentMoves(), runnable -> {
            Thread thread = new Thread(runnable, "rebalancer-write");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Passes in a row, per ring, that left work and made no progress. */
    private final Map<RingKey, Integer> stalledPasses = new ConcurrentHashMap<>();
    /** Per range-mode ring, the objects in drain after its last pass, while label-mode shards hand them back. */
    private final Map<RingKey, Long> inDrainBefore = new ConcurrentHashMap<>();

    @Override
    public Result reconcile(RingKey ringName) {
        Optional<RingView> ring = registry.view(ringName);
        if (ring.flatMap(RingView::rangeMode).isEmpty()) {
            holds.forget(ringName);
            inDrainBefore.remove(ringName);
        }
        if (ring.isEmpty() || !ring.get().canAct() && !ring.get().clearsLabels() && !ring.get().labelsBesideRanges()) {
            // gone, invalid, strategy or interpreter missing: nothing moves; a change of any of these requeues the ring
            stalledPasses.remove(ringName);
            return Result.done();
        }
        long start = System.nanoTime();
        PassSummary summary;
        try {
            summary = pass(ring.get());
        } catch (RuntimeException e) {
            recorder.passFailed(ringName, Duration.ofNanos(System.nanoTime() - start));
            throw e;
        }
        recorder.passed(ringName, summary, Duration.ofNanos(System.nanoTime() - start));
        LOG.info("rebalanced {}: {}", ringName, summary);
        return nextPass(ring.get(), summary);
    }

    /**
     * When to pass over the ring again: soon while passes make progress and leave work (the drains of
     * one are mostly acknowledged before the next lists), backing off while they only wait for drains
     * nobody acknowledges (a stuck shard would otherwise cost a full listing every second), and at
     * the resync period once nothing is left. A range-mode ring is passed over again only while a pass
     * found labels: soon while label-mode shards hand objects back (their ranges wait for it), at the resync
     * period after one that removed labels (the next one catches a label the webhook wrote as its configuration
     * went).
     */
    private Result nextPass(RingView view, PassSummary summary) {
        RingKey ring = view.key();
        boolean rangeMode = view.rangeMode().isPresent();
        if (rangeMode && summary.examined() == 0) {
            // no label left: a range-mode ring is not listed again until its view changes
            stalledPasses.remove(ring);
            inDrainBefore.remove(ring);
            return Result.done();
        }
        // in range mode, drains are acknowledged by the shards removing both labels: no watch sees them, passes do
        long inDrain = view.drainsInRangeMode() ? summary.inDrain() + summary.drained() : 0;
        Long before = inDrain > 0 ? inDrainBefore.put(ring, inDrain) : inDrainBefore.remove(ring);
        // leaving range mode, the next slice comes back once a pass labelled the objects outside the claims
        boolean waiting = summary.pending() || inDrain > 0
                || !rangeMode && (view.labelsBesideRanges() || returns.claims(ring).isPresent());
        boolean progressed = summary.progressed() || before != null && inDrain < before;
        if (!waiting || progressed) {
            stalledPasses.remove(ring);
            return Result.requeueAfter(waiting ? limits.pendingRetry() : limits.resync());
        }
        int stalled = stalledPasses.merge(ring, 1, Integer::sum);
        Duration backedOff = limits.pendingRetry().multipliedBy(1L << Math.min(stalled, 16));
        return Result.requeueAfter(backedOff.compareTo(MAX_STALLED_RETRY) > 0 ? MAX_STALLED_RETRY : backedOff);
    }

    /**
     * One pass over every resource of the ring. In range mode only over the objects that still carry the ring's
     * shard or drain label, which it removes: a range-mode ring lists all its objects nowhere else.
     */
    PassSummary pass(RingView ring) {
        Pass pass = new Pass(ring, namespaces.matching(ring.namespaceSelector()));
        Map<ResolvedResource, RingResource> resources = resolve(ring, pass);
        boolean rangeMode = ring.rangeMode().isPresent();
        Instant listedAt = rangeMode ? holds.listingStarts(ring.key()) : null;
        // leaving range mode: what the range-mode shards still claim, everything while the assigner has not said
        Optional<RangeReturns.Claims> claims = rangeMode ? Optional.empty() : returns.claims(ring.key())
                .or(() -> Optional.of(new RangeReturns.Claims(Optional.empty(), RangeSet.ALL))
                        .filter(all -> ring.labelsBesideRanges()));
        pass.claims = claims.orElse(null);
        if (!rangeMode || ring.drainsInRangeMode()) {
            // no listing for the move budget where nothing is drained
            pass.inDrain = resources.entrySet().stream().filter(entry -> entry.getValue().role() == Role.MAIN)
                    .mapToLong(entry -> pass.count(entry.getKey(), ring.drainLabel())).sum();
            pass.budget.set(Math.max(0, limits.moveBudget() - pass.inDrain));
        }
        try {
            resources.forEach((resource, ringResource) -> {
                if (rangeMode) {
                    pages.forEachPage(resource, ring.shardLabel(), page -> pass.move(resource, ringResource, page));
                    // those with a drain label and no shard label; the others were on the pages above
                    pages.forEachPage(resource, ring.drainLabel() + ",!" + ring.shardLabel(),
                            page -> pass.move(resource, ringResource, page));
                } else {
                    pages.forEachPage(resource, null, page -> pass.move(resource, ringResource, page));
                }
            });
            pass.drainHeldBuckets();
        } catch (RuntimeException e) {
            pass.settleWrites(); // a listing failed: let the writes started finish before the next pass
            pass.reportFailures();
            throw e;
        }
        pass.settleWrites();
        pass.reportFailures();
        pass.throwIfFatal();
        if (!rangeMode) {
            recorder.objectsPerShard(pass.ring, pass.perShard);
            if (claims.isPresent() && !pass.summary().pending()) {
                returns.labelled(ring.key(), claims.get());
            }
        } else if (ring.drainsInRangeMode() && pass.unresolved == 0) {
            holds.found(ring.key(), ring.labelsStillServed(), RangeSet.of(pass.held), listedAt);
        }
        return pass.summary();
    }

    private Map<ResolvedResource, RingResource> resolve(RingView ring, Pass pass) {
        Map<ResolvedResource, RingResource> resolved = new LinkedHashMap<>();
        ring.resources().forEach((resource, ringResource) -> catalog.resolve(resource.getGroup(), resource.getResource())
                .ifPresentOrElse(found -> resolved.put(found, ringResource), () -> {
                    LOG.warn("{}: resource {} is not served by the API server", ring.key(), resource);
                    pass.unresolved++;
                }));
        return resolved;
    }

    @Override
    public void close() {
        writers.shutdownNow();
    }

    /** The state of one pass: targets, the move budget left, and the tally. */
    private final class Pass {
        final RingKey ring;
        final RingView view;
        final Predicate<ObjectReference> inScope;
        final AtomicLong budget = new AtomicLong();
        final AtomicLong examined = new AtomicLong();
        /** Objects examined by resource and the shard they were listed on (empty: none); counted on the listing thread. */
        final Map<ResolvedResource, Map<String, Long>> perShard = new HashMap<>();
        final Map<Class<? extends Move>, AtomicLong> written = new HashMap<>();
        final AtomicLong deferred = new AtomicLong();
        final AtomicLong conflicts = new AtomicLong();
        final WriteFailures failed = new WriteFailures();
        int unresolved;
        long inDrain;
        /** Label mode, leaving range mode: what range-mode shards may still serve; null when nothing. */
        RangeReturns.Claims claims;
        /** Range mode: the buckets of main objects labelled for shards that may still reconcile them by label. */
        final List<HashRange> held = new ArrayList<>();
        /** Range mode: the drains of those objects not in drain yet, by bucket, in the order of the space. */
        final Map<HashRange, List<Runnable>> heldDrains = new TreeMap<>(
                Comparator.comparing(HashRange::first, Long::compareUnsigned));
        /** Writes in flight: listing goes on while they run, up to the configured number. */
        final Semaphore inFlight = new Semaphore(limits.concurrentMoves());
        /** A failure that ends the pass (the fence refused a write); no write is started after it. */
        final AtomicReference<RuntimeException> fatal = new AtomicReference<>();

        Pass(RingView view, Predicate<ObjectReference> inScope) {
            this.ring = view.key();
            this.view = view;
            this.inScope = inScope;
            for (Class<? extends Move> kind : List.of(Move.Assign.class, Move.Drain.class, Move.Reassign.class,
                    Move.Unlabel.class)) {
                written.put(kind, new AtomicLong());
            }
        }

        long count(ResolvedResource resource, String labelSelector) {
            AtomicLong count = new AtomicLong();
            pages.forEachPage(resource, labelSelector, page -> count.addAndGet(page.size()));
            return count.get();
        }

        /**
         * Decides every object of a page and starts writing the moves, at most the configured number
         * at once; the next page is listed while they run (waiting for a page's slowest write before
         * listing the next one made a pass as slow as the sum of those).
         */
        void move(ResolvedResource resource, RingResource ringResource, List<ObjectMeta> page) {
            for (ObjectMeta metadata : page) {
                ObjectReference object = resource.reference(metadata);
                if (!inScope.test(object)) {
                    continue;
                }
                examined.incrementAndGet();
                perShard.computeIfAbsent(resource, any -> new HashMap<>())
                        .merge(object.labels().getOrDefault(view.shardLabel(), ""), 1L, Long::sum);
                HashRange bucket = null;
                if (view.heldByLabel(object, ringResource)) {
                    RingView.RangeMode mode = view.rangeMode().orElseThrow();
                    bucket = RangePlacement.bucketContaining(mode.key().hash(metadata.getUid(), metadata.getNamespace()),
                            mode.buckets());
                    held.add(bucket);
                }
                Move move = view.moveOf(object, ringResource, invalidKeys);
                if (move instanceof Move.Keep || claims != null && claims.hold(metadata.getUid(), metadata.getNamespace())) {
                    continue; // in place, or a range-mode shard may still serve it
                }
                if (bucket != null) {
                    heldDrains.computeIfAbsent(bucket, any -> new ArrayList<>())
                            .add(() -> write(resource, metadata, object, move));
                    continue;
                }
                if (move instanceof Move.Drain && budget.getAndUpdate(left -> Math.max(0, left - 1)) == 0) {
                    deferred.incrementAndGet();
                    continue;
                }
                start(() -> write(resource, metadata, object, move));
            }
        }

        /**
         * Range mode: starts the drains of held objects whole buckets at a time, the next bucket while fewer objects
         * than {@link RebalanceLimits#concurrentMoves()} are in drain (so one starts as the last ones of the previous
         * are handed back) and the move budget lasts; the others wait for a later pass. A bucket's range is granted
         * only once its last object was handed back, so an object handed back early waits for the slowest of its
         * bucket: draining everything at once would make it wait for the slowest of all.
         */
        void drainHeldBuckets() {
            long inFlight = inDrain;
            for (List<Runnable> drains : heldDrains.values()) {
                long left = budget.get();
                boolean fits = inFlight < limits.concurrentMoves() && (inFlight == 0 ? left > 0 : drains.size() <= left);
                if (!fits) {
                    deferred.addAndGet(drains.size());
                    continue;
                }
                budget.set(Math.max(0, left - drains.size()));
                inFlight += drains.size();
                drains.forEach(this::start);
            }
        }

        private void start(Runnable write) {
            throwIfFatal();
            acquire(1);
            try {
                CompletableFuture.runAsync(write, writers).whenComplete((ignored, failure) -> {
                    if (failure != null) {
                        fatal.compareAndSet(null, failure instanceof RuntimeException runtime ? runtime
                                : new IllegalStateException(failure));
                    }
                    inFlight.release();
                });
            } catch (RejectedExecutionException e) {
                inFlight.release(); // closing
                throw e;
            }
        }

        /** Interruptible: closing the controller interrupts a pass, and its dropped writes never give permits back. */
        private void acquire(int permits) {
            try {
                inFlight.acquire(permits);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("rebalance pass of " + ring + " interrupted");
            }
        }

        /** Waits for every write started, however it ends: until every permit is back. */
        void settleWrites() {
            acquire(limits.concurrentMoves());
            inFlight.release(limits.concurrentMoves());
        }

        /** Rethrows what ended the pass, once the writes started have settled. */
        void throwIfFatal() {
            RuntimeException failure = fatal.get();
            if (failure != null) {
                settleWrites();
                throw failure;
            }
        }

        /**
         * One move. A write that fails is counted and tried again by the next pass, so one bad object
         * or a moment of overload does not end the pass; a write the fence refused does end it.
         */
        private void write(ResolvedResource resource, ObjectMeta metadata, ObjectReference object, Move move) {
            if (move instanceof Move.Reassign reassign && cameBack(reassign.from())) {
                // its shard took its Lease back since the pass began and may be reconciling the
                // object: only a drain may take it now, which the next pass decides
                deferred.incrementAndGet();
                return;
            }
            LabelWriter.Outcome outcome;
            try {
                outcome = writer.write(resource, metadata.getNamespace(), metadata.getName(),
                        metadata.getResourceVersion(), view.labelChanges(move, object));
            } catch (RuntimeException e) {
                if (WriteFence.refused(e)) {
                    throw e;
                }
                failed.add(resource.kind() + " " + (metadata.getNamespace() == null ? "" : metadata.getNamespace() + "/")
                        + metadata.getName(), e);
                return;
            }
            switch (outcome) {
                case WRITTEN -> {
                    written.get(move.getClass()).incrementAndGet();
                    recorder.written(ring, resource, move);
                }
                case CONFLICT -> conflicts.incrementAndGet();
                case GONE -> { } // deleted meanwhile: nothing left to move
            }
        }

        /**
         * Whether {@code shard}, not available when the pass began, is available in the ring's view
         * now. A pass over thousands of objects takes seconds, and a shard that released its Lease
         * (a restart that left) can take it back meanwhile.
         */
        private boolean cameBack(String shard) {
            return !view.isAvailable(shard) && registry.view(ring).map(now -> now.isAvailable(shard)).orElse(false);
        }

        /** One warning for the writes of the pass that failed: how many of each cause, the first example of each. */
        void reportFailures() {
            if (failed.total() > 0) {
                LOG.warn("{}: {} writes failed, tried again next pass: {}", ring, failed.total(), failed.describe());
            }
        }

        PassSummary summary() {
            return new PassSummary(examined.get(), written.get(Move.Assign.class).get(),
                    written.get(Move.Drain.class).get(), written.get(Move.Reassign.class).get(),
                    written.get(Move.Unlabel.class).get(), deferred.get(),
                    conflicts.get(), failed.total(), unresolved, inDrain);
        }
    }
}
