package dev.ringmaster.sharder.ranges;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.load.LoadMap;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.sharder.kube.ObjectEvents;
import dev.ringmaster.sharder.kube.WriteFence;
import dev.ringmaster.sharder.lease.LeaseKey;
import dev.ringmaster.sharder.lease.LoadReports;
import dev.ringmaster.sharder.lease.RingLeases;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.runtime.Reconciler;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's range assigner (docs/design.md section 9): for a range-mode ring, publishes each shard's share of
 * the hash space on its Lease ({@code ringmaster.dev/assigned-ranges} with {@code ringmaster.dev/range-key}), by
 * the handover rule of {@link RangeAssignment}. Level-based and idempotent: every pass reads the ring's view and
 * its shard Leases from the caches and writes a Lease only when its assignment changes, with a merge patch of the
 * two annotations alone (it cannot undo a renewal or the shard's {@code served-ranges}). Its client is the
 * leader's fenced one, so a replica whose leadership may have run out writes nothing.
 *
 * <p>What it remembers between passes only makes it more careful: its own writes to each Lease until the cache
 * shows a version that includes them (a shard may have claimed any of them since; a gainer is not granted a range
 * whose loser's shrink the cache does not show yet), the last
 * served ranges of each shard that could be read, and the shards whose served ranges are of another key.
 * Passes of one ring do not run concurrently ({@link dev.ringmaster.sharder.runtime.Controller}).
 */
public final class RangeAssigner implements Reconciler<RingKey> {

    static final String REPORTING_CONTROLLER = "ringmaster.dev/sharder";
    static final String INVALID_SERVED_RANGES = "InvalidServedRanges";
    static final String INVALID_ASSIGNED_RANGES = "InvalidAssignedRanges";
    static final String INVALID_LOAD_REPORT = "InvalidLoadReport";
    static final String BALANCED = "Balanced";
    /** The slices of the hash space a ring that left range mode takes its ranges back by, one at a time. */
    static final int RETURN_SLICES = 16;
    /** Releases not handed over after this long are no longer timed (the ranges went nowhere, e.g. no shard). */
    static final Duration FORGET_RELEASE_AFTER = Duration.ofHours(1);

    private static final Logger LOG = LoggerFactory.getLogger(RangeAssigner.class);

    private final RingRegistry registry;
    private final Supplier<? extends Collection<Lease>> leases;
    private final KubernetesClient client;
    private final Clock clock;
    private final RangeRecorder recorder;
    private final ObjectEvents events;
    private final RangeBalancer balancer;
    private final LabelHolds holds;
    private final RangeReturns returns;

    /**
     * The assignments this sharder wrote to each Lease that its cache may not show yet, oldest first: a shard may
     * have claimed any of them in a version of its Lease newer than the cached one.
     */
    private final Map<LeaseKey, List<Written>> written = new ConcurrentHashMap<>();
    /** The served ranges last read from each Lease that could be read. */
    private final Map<LeaseKey, RangeSet> lastServed = new ConcurrentHashMap<>();
    /** Shards whose served ranges may be of a range key other than the ring's, until they serve nothing. */
    private final Set<LeaseKey> otherKey = ConcurrentHashMap.newKeySet();
    /** Ranges that left a shard's assignment and were not granted to another yet, per ring, for the handover time. */
    private final Map<RingKey, List<Release>> releases = new ConcurrentHashMap<>();
    /** The unreadable annotation values already warned about, per Lease and annotation. */
    private final Map<String, String> warned = new ConcurrentHashMap<>();

    /** An assignment written, and the Lease's resourceVersion that write made. */
    private record Written(String ranges, String key, String resourceVersion) {
    }

    private record Release(String from, RangeSet ranges, Instant at) {
    }

    /**
     * @param registry the rings' views: range mode, available shards and each shard's verdict
     * @param leases   every cached shard Lease (of every ring)
     * @param client   writes the Leases' annotations and Warning events; the leader's fenced client
     * @param holds    where a ring that entered range mode still has objects of label-mode shards
     * @param returns  what the range-mode shards of a ring that left range mode still claim, and how far the
     *                 rebalancer labelled
     */
    public RangeAssigner(RingRegistry registry, Supplier<? extends Collection<Lease>> leases, KubernetesClient client,
            Clock clock, RangeRecorder recorder, LabelHolds holds, RangeReturns returns) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.leases = Objects.requireNonNull(leases, "leases");
        this.client = Objects.requireNonNull(client, "client");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.events = new ObjectEvents(client, clock, REPORTING_CONTROLLER);
        this.balancer = new RangeBalancer(clock);
        this.holds = Objects.requireNonNull(holds, "holds");
        this.returns = Objects.requireNonNull(returns, "returns");
    }

    @Override
    public Result reconcile(RingKey ring) {
        Optional<RingView> found = registry.view(ring);
        Optional<RingView.RangeMode> mode = found.flatMap(RingView::rangeMode);
        if (mode.isEmpty()) {
            // gone, label mode, or invalid (the assignments stay as they are until the spec is fixed)
            releases.remove(ring);
            balancer.forget(ring);
            recorder.forget(ring);
            if (found.isEmpty()) {
                returns.forget(ring);
            }
            found.filter(view -> !view.rangeModeAsked() && view.problems().isEmpty()).ifPresent(this::returnRanges);
            return Result.done();
        }
        returns.forget(ring);
        RingView view = found.get();
        String key = mode.get().key().specName();
        Map<String, ShardInfo> infos = view.shards().stream()
                .collect(Collectors.toMap(ShardInfo::name, Function.identity(), (first, second) -> first));
        forgetGone();
        Map<String, Lease> ringLeases = RingLeases.byName(ring, leases.get());

        Map<String, RangeAssignment.Shard> shards = new TreeMap<>();
        Map<String, RangeSet> servedRanges = new HashMap<>();
        Map<String, String> publishedRanges = new HashMap<>();
        Map<String, String> publishedKeys = new HashMap<>();
        Map<String, Optional<Written>> pendingWrites = new HashMap<>();
        ringLeases.forEach((name, lease) -> {
            LeaseKey leaseKey = LeaseKey.of(lease);
            Map<String, String> annotations = annotations(lease);
            String assignedText = annotations.get(RingContract.ASSIGNED_RANGES_ANNOTATION);
            String keyText = annotations.get(RingContract.RANGE_KEY_ANNOTATION);
            publishedRanges.put(name, assignedText);
            publishedKeys.put(name, keyText);
            List<Written> unseen = unseen(leaseKey, lease.getMetadata().getResourceVersion());
            Written mine = unseen.isEmpty() ? null : unseen.get(unseen.size() - 1);
            pendingWrites.put(name, Optional.ofNullable(mine));
            boolean sameKey = key.equals(keyText);
            Optional<RangeSet> assigned = read(lease, RingContract.ASSIGNED_RANGES_ANNOTATION, assignedText,
                    RangeSet::parse, INVALID_ASSIGNED_RANGES, "ReadRanges",
                    "its assignment is rewritten; it claims the whole space until then");
            Optional<RangeSet> served = readServed(lease);
            served.ifPresent(value -> servedRanges.put(name, value));
            boolean assignedOfOtherKey = assigned.map(value -> !value.isEmpty()).orElse(true) && !sameKey
                    && assignedText != null;
            if (assignedOfOtherKey) {
                otherKey.add(leaseKey);
            }
            RangeSet servedClaim = servedClaim(leaseKey, served);
            if (served.isPresent() && served.get().isEmpty()) {
                otherKey.remove(leaseKey);
            }
            if (otherKey.contains(leaseKey) && !servedClaim.isEmpty()) {
                servedClaim = RangeSet.ALL; // served ranges of another key may be any ranges of this one
            }
            RangeSet current = mine != null ? RangeSet.parse(mine.ranges())
                    : sameKey ? assigned.orElse(RangeSet.EMPTY) : RangeSet.EMPTY;
            RangeSet assignedClaim = assignedOfOtherKey ? RangeSet.ALL : assigned.orElse(RangeSet.ALL);
            RangeSet claims = withUnseen(assignedClaim.union(servedClaim).union(current), unseen);
            ShardInfo info = infos.get(name);
            boolean fenced = info != null && !info.mayReconcile();
            shards.put(name, new RangeAssignment.Shard(current, claims, fenced));
        });

        List<String> available = view.availableShards().stream().map(dev.ringmaster.ring.Shard::name).sorted().toList();
        Map<String, RangeSet> desired = mode.get().balancing().isPresent()
                ? balanced(view, mode.get(), ringLeases, shards, servedRanges, available)
                : RangePlacement.place(available, mode.get().buckets());
        if (mode.get().balancing().isEmpty()) {
            balancer.forget(ring);
        }
        if (!view.labelsStillServed().isEmpty()) {
            // a shard may still reconcile by labels (the ring entered range mode): assignments grow only where the
            // rebalancer's last pass found none of their objects left
            RangeSet free = holds.free(ring, view.labelsStillServed());
            Map<String, RangeSet> held = new TreeMap<>();
            desired.forEach((name, ranges) -> held.put(name, ranges.intersect(free.union(shards.containsKey(name)
                    ? shards.get(name).current() : RangeSet.EMPTY))));
            desired = held;
        }
        Map<String, RangeSet> next = RangeAssignment.assign(desired, shards);
        // shrinks first, so a fenced shard's release is timed before the same pass grants it
        List<String> order = new ArrayList<>(next.keySet());
        order.sort(Comparator.comparing(name -> !shards.get(name).current().minus(next.get(name)).isEmpty() ? 0 : 1));
        Map<String, RangeSet> published = new TreeMap<>();
        for (String name : order) {
            RangeSet before = shards.get(name).current();
            RangeSet after = next.get(name);
            Lease lease = ringLeases.get(name);
            LeaseKey leaseKey = LeaseKey.of(lease);
            boolean classified = infos.containsKey(name);
            Written pending = pendingWrites.get(name).orElse(null);
            String text = after.toString();
            boolean shown = pending == null ? text.equals(Objects.requireNonNullElse(publishedRanges.get(name), ""))
                    && publishedRanges.get(name) != null && key.equals(publishedKeys.get(name))
                    : pending.ranges().equals(text) && pending.key().equals(key);
            if (!classified || shown) {
                // a Lease not judged yet keeps what it has (it claims it all the same)
                published.put(name, before);
                continue;
            }
            if (!write(leaseKey, text, key)) {
                continue; // the Lease went: its delete event brings the next pass
            }
            if (after.equals(before)) {
                LOG.debug("{}: shard {} assigned {} ({}={})", ring, name, describe(after),
                        RingContract.RANGE_KEY_ANNOTATION, key);
            } else {
                LOG.info("{}: shard {} assigned {} (was {})", ring, name, describe(after), describe(before));
            }
            published.put(name, after);
            handover(ring, name, before, after, mode.get().buckets());
        }
        recorder.assigned(ring, published);
        return mode.get().balancing().map(balancing -> Result.requeueAfter(balancing.settings().interval()))
                .orElse(Result.done());
    }

    /**
     * A ring in label mode, having left range mode or not (docs/design.md section 9): publishes what its range-mode
     * shards may still serve, for the rebalancer to label only the objects outside it, and, once a shard that serves by
     * labels is available, takes the ranges back one slice of the space at a time: the next only once every slice taken
     * back is let go and a pass of the rebalancer labelled every object outside these claims. So an object waits without
     * an owner from the release of its slice to the next pass, not for one pass over all. A dead shard's assignment
     * goes at once. A Lease that is also a shard of a range-mode ring of the other kind keeps what that ring assigns it.
     */
    private void returnRanges(RingView view) {
        RingKey ring = view.key();
        Map<String, ShardInfo> infos = view.shards().stream()
                .collect(Collectors.toMap(ShardInfo::name, Function.identity(), (first, second) -> first));
        forgetGone();
        RangeSet claimed = RangeSet.EMPTY;
        Set<String> keys = new TreeSet<>();
        List<Returning> assigned = new ArrayList<>();
        for (Map.Entry<String, Lease> entry : RingLeases.byName(ring, leases.get()).entrySet()) {
            Lease lease = entry.getValue();
            if (ofARangeModeRing(lease, ring)) {
                continue;
            }
            LeaseKey leaseKey = LeaseKey.of(lease);
            Map<String, String> annotations = annotations(lease);
            List<Written> unseen = unseen(leaseKey, lease.getMetadata().getResourceVersion());
            Written mine = unseen.isEmpty() ? null : unseen.get(unseen.size() - 1);
            String key = mine != null ? mine.key()
                    : Objects.requireNonNullElse(annotations.get(RingContract.RANGE_KEY_ANNOTATION), "");
            Optional<RangeSet> current = read(lease, RingContract.ASSIGNED_RANGES_ANNOTATION,
                    mine != null ? mine.ranges() : Objects.requireNonNullElse(
                            annotations.get(RingContract.ASSIGNED_RANGES_ANNOTATION), ""),
                    RangeSet::parse, INVALID_ASSIGNED_RANGES, "ReadRanges", "it is taken back whole");
            ShardInfo info = infos.get(entry.getKey());
            boolean fenced = info != null && !info.mayReconcile();
            if (!fenced) {
                RangeSet claim = withUnseen(servedClaim(leaseKey, readServed(lease)).union(current.orElse(RangeSet.ALL)),
                        unseen);
                if (!claim.isEmpty()) {
                    claimed = claimed.union(claim);
                    keys.add(key);
                }
            }
            if (current.map(ranges -> !ranges.isEmpty()).orElse(true)) {
                // a fenced shard's assignment, or one that cannot be read, goes whole: nobody serves by it
                assigned.add(new Returning(entry.getKey(), leaseKey, key,
                        current.filter(ranges -> !fenced).orElse(RangeSet.EMPTY), fenced || current.isEmpty()));
            }
        }
        RangeReturns.Claims claims = new RangeReturns.Claims(keys.size() == 1 ? rangeKey(keys.iterator().next())
                : Optional.empty(), claimed);
        returns.claimed(ring, claims);
        if (assigned.isEmpty() || !view.hasShardsOfItsMode()) {
            return;
        }
        RangeSet stillAssigned = assigned.stream().map(Returning::current).reduce(RangeSet.EMPTY, RangeSet::union);
        boolean slicesLetGo = claimed.minus(stillAssigned).isEmpty();
        boolean sliceGoes = !stillAssigned.isEmpty() && slicesLetGo && returns.labelledOutside(ring, claims);
        RangeSet slice = stillAssigned.isEmpty() ? RangeSet.EMPTY : RangeSet.of(List.of(RangePlacement.bucketContaining(
                stillAssigned.ranges().get(0).first(), RETURN_SLICES)));
        for (Returning returning : assigned) {
            RangeSet next = returning.whole() ? RangeSet.EMPTY
                    : sliceGoes ? returning.current().minus(slice) : returning.current();
            if ((returning.whole() || !next.equals(returning.current())) && write(returning.lease(), next.toString(),
                    returning.key())) {
                LOG.info("{}: shard {} assigned {} (was {}): the ring is in label mode, its ranges taken back a slice"
                        + " at a time", ring, returning.shard(), describe(next), describe(returning.current()));
            }
        }
    }

    /** The Lease's served ranges, remembered when they can be read. */
    private Optional<RangeSet> readServed(Lease lease) {
        Optional<RangeSet> served = read(lease, RingContract.SERVED_RANGES_ANNOTATION,
                annotations(lease).get(RingContract.SERVED_RANGES_ANNOTATION), RangeSet::parse, INVALID_SERVED_RANGES,
                "ReadRanges", "it is taken to serve everything it served before");
        served.ifPresent(value -> lastServed.put(LeaseKey.of(lease), value));
        return served;
    }

    /** What the shard may serve: an unreadable value means what it last served readably, all if nothing is known. */
    private RangeSet servedClaim(LeaseKey lease, Optional<RangeSet> served) {
        return served.orElseGet(() -> lastServed.getOrDefault(lease, RangeSet.ALL));
    }

    /** {@code claim} and every assignment written that the cache does not show yet: the shard may have claimed it. */
    private static RangeSet withUnseen(RangeSet claim, List<Written> unseen) {
        for (Written write : unseen) {
            claim = claim.union(RangeSet.parse(write.ranges()));
        }
        return claim;
    }

    /** A Lease of a label-mode ring still assigned ranges; {@code whole}: taken back at once (fenced, or unreadable). */
    private record Returning(String shard, LeaseKey lease, String key, RangeSet current, boolean whole) {
    }

    private static Optional<RangeKey> rangeKey(String specName) {
        try {
            return Optional.of(RangeKey.ofSpec(specName));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private boolean ofARangeModeRing(Lease lease, RingKey except) {
        return RingLeases.rings(lease).stream().anyMatch(ring -> !ring.equals(except)
                && registry.view(ring).flatMap(RingView::rangeMode).isPresent());
    }

    /**
     * The placement of a balanced ring (docs/design.md section 10), from the shards' load reports; a load step that
     * moved something is logged, recorded and told in an Event on the ring.
     */
    private Map<String, RangeSet> balanced(RingView view, RingView.RangeMode mode, Map<String, Lease> ringLeases,
            Map<String, RangeAssignment.Shard> shards, Map<String, RangeSet> servedRanges, List<String> available) {
        LoadMap.Builder load = LoadMap.builder();
        boolean reported = false;
        for (String name : available) {
            Lease lease = ringLeases.get(name);
            String text = lease == null ? null : annotations(lease).get(RingContract.LOAD_ANNOTATION);
            if (text == null) {
                continue;
            }
            Optional<LoadReport> report = read(lease, RingContract.LOAD_ANNOTATION, text, LoadReports::read,
                    INVALID_LOAD_REPORT, "ReadLoad", "the shard is counted by its share of the space");
            if (report.isPresent()) {
                load.report(servedRanges.getOrDefault(name, shards.get(name).current()), report.get());
                reported = true;
            }
        }
        Map<String, RangeSet> assigned = new TreeMap<>();
        shards.forEach((name, shard) -> assigned.put(name, shard.current()));
        boolean settled = shards.entrySet().stream().allMatch(entry -> entry.getValue().fenced()
                || entry.getValue().current().equals(servedRanges.get(entry.getKey())));
        LoadMap map = load.build();
        RangeBalancer.Decision decision = balancer.decide(view.key(), mode, mode.balancing().orElseThrow(), assigned,
                available, map, reported, settled);
        Map<String, Double> perShard = new TreeMap<>();
        available.forEach(name -> perShard.put(name, map.busy(assigned.getOrDefault(name, RangeSet.EMPTY))));
        recorder.balanced(view.key(), perShard, decision.imbalance(), decision.step()
                .map(step -> OptionalDouble.of(step.moved())).orElse(OptionalDouble.empty()));
        decision.step().ifPresent(step -> {
            LOG.info("{}: balancing step: {}", view.key(), step.reason());
            events.normal(ObjectEvents.about(view.ring()), BALANCED, "Balance", step.reason());
        });
        return decision.desired();
    }

    private static Map<String, String> annotations(Lease lease) {
        return Objects.requireNonNullElse(lease.getMetadata().getAnnotations(), Map.of());
    }

    /**
     * The writes to a Lease its cached version at {@code cachedVersion} does not include; those it includes are
     * forgotten. A version includes a write when it is the version the write made, or a later one: resourceVersions
     * are compared as numbers where both are (etcd revisions, as every kube-apiserver writes them), else only by
     * equality.
     */
    private List<Written> unseen(LeaseKey lease, String cachedVersion) {
        List<Written> writes = written.get(lease);
        if (writes == null) {
            return List.of();
        }
        synchronized (writes) {
            for (int i = writes.size() - 1; i >= 0; i--) {
                if (includes(cachedVersion, writes.get(i).resourceVersion())) {
                    writes.subList(0, i + 1).clear();
                    break;
                }
            }
            return List.copyOf(writes);
        }
    }

    private static boolean includes(String cachedVersion, String writtenVersion) {
        if (Objects.equals(cachedVersion, writtenVersion)) {
            return true;
        }
        try {
            return Long.parseLong(cachedVersion) >= Long.parseLong(writtenVersion);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Forgets what was remembered of Leases that are gone from the cache. */
    private void forgetGone() {
        Set<LeaseKey> present = leases.get().stream().map(LeaseKey::of).collect(Collectors.toSet());
        written.keySet().retainAll(present);
        lastServed.keySet().retainAll(present);
        otherKey.retainAll(present);
    }

    private <T> Optional<T> read(Lease lease, String annotation, String text, Function<String, T> parser,
            String reason, String action, String consequence) {
        String warnedKey = LeaseKey.of(lease) + "/" + annotation;
        try {
            T value = parser.apply(text);
            warned.remove(warnedKey);
            return Optional.of(value);
        } catch (IllegalArgumentException e) {
            if (!text.equals(warned.put(warnedKey, text))) {
                String note = "Annotation " + annotation + "=\"" + abbreviate(text) + "\" cannot be read ("
                        + e.getMessage() + "); " + consequence;
                LOG.warn("Lease {}: {}", LeaseKey.of(lease), note);
                events.warn(ObjectEvents.about(lease), reason, action, note);
            }
            return Optional.empty();
        }
    }

    /** Writes the two annotations; false if the Lease is gone. A refusal of the write fence is thrown. */
    private boolean write(LeaseKey leaseKey, String ranges, String key) {
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put(RingContract.ASSIGNED_RANGES_ANNOTATION, ranges);
        annotations.put(RingContract.RANGE_KEY_ANNOTATION, key);
        String patch = client.getKubernetesSerialization().asJson(Map.of("metadata", Map.of("annotations", annotations)));
        Lease patched;
        try {
            patched = client.leases().inNamespace(leaseKey.namespace()).withName(leaseKey.name())
                    .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND && !WriteFence.refused(e)) {
                written.remove(leaseKey);
                return false;
            }
            throw e;
        }
        List<Written> writes = written.computeIfAbsent(leaseKey, any -> new ArrayList<>());
        synchronized (writes) {
            writes.add(new Written(ranges, key, patched == null ? null : patched.getMetadata().getResourceVersion()));
        }
        return true;
    }

    /** Times and counts the buckets {@code shard} gained that another shard released. */
    private void handover(RingKey ring, String shard, RangeSet before, RangeSet after, int buckets) {
        Instant now = clock.instant();
        List<Release> pending = releases.computeIfAbsent(ring, any -> new ArrayList<>());
        synchronized (pending) {
            pending.removeIf(release -> release.at().plus(FORGET_RELEASE_AFTER).isBefore(now));
            RangeSet lost = before.minus(after);
            RangeSet gained = after.minus(before);
            if (!gained.isEmpty()) {
                List<Release> left = new ArrayList<>();
                for (Iterator<Release> it = pending.iterator(); it.hasNext(); ) {
                    Release release = it.next();
                    RangeSet handed = release.from().equals(shard) ? RangeSet.EMPTY : release.ranges().intersect(gained);
                    if (handed.isEmpty()) {
                        continue;
                    }
                    it.remove();
                    recorder.handedOver(ring, Math.max(1, Math.round(handed.fraction() * buckets)),
                            Duration.between(release.at(), now));
                    RangeSet rest = release.ranges().minus(handed);
                    if (!rest.isEmpty()) {
                        left.add(new Release(release.from(), rest, release.at()));
                    }
                }
                pending.addAll(left);
            }
            if (!lost.isEmpty()) {
                // a range taken back by the shard that released it is no longer waiting for another
                pending.add(new Release(shard, lost, now));
            }
        }
    }

    private static String describe(RangeSet ranges) {
        return ranges.isEmpty() ? "nothing" : ranges.ranges().size() + " ranges, " + String.format("%.1f%%",
                100 * ranges.fraction());
    }

    private static String abbreviate(String value) {
        return value.length() <= 64 ? value : value.substring(0, 64) + "…";
    }
}
