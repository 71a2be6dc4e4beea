package dev.ringmaster.sharder.lease;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.LeaseRecord;
import dev.ringmaster.ring.spi.ShardStatus;
import dev.ringmaster.sharder.kube.ObjectEvents;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.runtime.Reconciler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles one shard Lease (docs/design.md section 5, "Membership"): classifies it with the lease
 * detector in force (but for a shard held for its restart, {@link RestartHold}, which is expired for its
 * ring's restart grace), shows the verdict in the state label, acquires the lease of an uncertain shard,
 * deletes an orphaned lease, and asks to be called again exactly when the verdict would change.
 *
 * <p>Level-based: every pass re-reads the Lease through the cache lookup and never trusts the event
 * that queued it. Every write is either a patch of the state label alone (which cannot undo a
 * renewal) or carries the resourceVersion that was classified, so a shard renewing at the same
 * moment always wins. An uncertain lease gets no label write of its own: the acquiring update sets
 * the label to the acquired lease's state; an orphaned lease is deleted, not labelled.
 *
 * <p>The verdict of the last pass per lease is kept and offered as a {@link #membership()}. Passes
 * for different leases may run concurrently; passes for one lease must not (the runtime's
 * {@link dev.ringmaster.sharder.runtime.Controller} guarantees that).
 */
public final class ShardLeaseReconciler implements Reconciler<LeaseKey> {

    static final String REPORTING_CONTROLLER = "ringmaster.dev/shardlease-controller";

    private static final Logger LOG = LoggerFactory.getLogger(ShardLeaseReconciler.class);

    /**
     * After losing a race (409 Conflict) the watch brings the newer Lease and queues it anyway; this
     * late second look only covers a watch that is slow or broken.
     */
    static final Duration RECHECK_AFTER_CONFLICT = Duration.ofSeconds(5);
    /** Revisit delay when a detector's revisit time for a state we do not act on is not in the future: no spinning. */
    static final Duration MIN_REVISIT = Duration.ofSeconds(1);
    static final String INVALID_WEIGHT = "InvalidWeight";
    static final String INVALID_RESTARTING = "InvalidRestarting";

    private final KubernetesClient client;
    private final Function<LeaseKey, Lease> cache;
    private final Supplier<LeaseDetector> detector;
    private final Clock clock;
    private final BooleanSupplier writing;
    /** The restart grace of a ring, empty for a ring the sharder does not know. */
    private final Function<RingKey, Optional<Duration>> restartGraces;
    /** When this replica's term of leadership began; null while it does not lead. */
    private final AtomicReference<Instant> termStart = new AtomicReference<>();
    private final ObjectEvents events;

    /** The verdict of the last pass per lease. */
    private final Map<LeaseKey, Observation> observations = new ConcurrentHashMap<>();
    /** The invalid weight annotation value last warned about per lease, so each is reported once. */
    private final Map<LeaseKey, String> warnedWeights = new ConcurrentHashMap<>();
    /** The invalid restarting annotation value last warned about per lease, so each is reported once. */
    private final Map<LeaseKey, String> warnedRestarts = new ConcurrentHashMap<>();
    /** The restart hold last seen per lease that had one, so its start and its end are each logged once. */
    private final Map<LeaseKey, RestartHold> restarts = new ConcurrentHashMap<>();

    /** A lease's verdict and the rings it belongs to (one per kind whose Lease label it carries). */
    private record Observation(List<RingKey> rings, ShardInfo shard) {
    }

    /**
     * @param client   writes the state label, acquires and deletes leases, records events
     * @param cache    current Lease for a key from the informer cache, or {@code null} if there is none
     * @param detector the lease detector in force, read once per pass because it can be replaced at
     *                 runtime; {@code null} while there is none (passes then change nothing)
     * @param clock    the time the detector judges by and acquisitions are stamped with
     * @param writing  whether passes may write (true while this replica leads); when false they only
     *                 classify, so every replica knows the membership but only the leader acts on it
     * @param restartGraces the restart grace of each ring ({@link RestartHold}), empty for a ring not known;
     *                 a Lease has the largest of its rings', the default if none is known
     */
    public ShardLeaseReconciler(KubernetesClient client, Function<LeaseKey, Lease> cache,
            Supplier<LeaseDetector> detector, Clock clock, BooleanSupplier writing,
            Function<RingKey, Optional<Duration>> restartGraces) {
        this.client = Objects.requireNonNull(client, "client");
        this.cache = Objects.requireNonNull(cache, "cache");
        this.detector = Objects.requireNonNull(detector, "detector");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.writing = Objects.requireNonNull(writing, "writing");
        this.restartGraces = Objects.requireNonNull(restartGraces, "restartGraces");
        this.events = new ObjectEvents(client, clock, REPORTING_CONTROLLER);
    }

    /** A reconciler for which every ring has the default restart grace. */
    public ShardLeaseReconciler(KubernetesClient client, Function<LeaseKey, Lease> cache,
            Supplier<LeaseDetector> detector, Clock clock, BooleanSupplier writing) {
        this(client, cache, detector, clock, writing, ring -> Optional.empty());
    }

    @Override
    public Result reconcile(LeaseKey key) {
        Lease lease = cache.apply(key);
        if (lease == null) {
            forget(key);
            return Result.done();
        }
        LeaseDetector current = detector.get();
        if (current == null) {
            // Without a detector there is no verdict; the last one stands until a detector is bound
            // again, and whoever binds it re-evaluates every lease.
            LOG.debug("No lease detector available; lease {} left as it was", key);
            return Result.done();
        }
        Instant now = clock.instant();
        int weight = weight(key, lease);
        LeaseRecord record = toRecord(lease);
        // a shard restarting within its grace is expired whatever the detector says (docs/design.md section 3)
        RestartHold hold = RestartHold.of(record, restartGrace(lease), now);
        noteRestart(key, lease, hold);
        ShardStatus status = hold.apply(current.detect(withTermGrace(record), now));
        boolean renewing = renewing(record, now);
        // a shard the detector gives up while it still renews (e.g. its pod unready) is looked at again
        // when its renewals run out, which no event of the Lease announces
        Instant revisitAt = renewing && status.revisitAt().isAfter(renewedUntil(record)) ? renewedUntil(record)
                : status.revisitAt();
        if (!writing.getAsBoolean()) {
            // A follower only observes; the leader's acquisition or deletion reaches it through the watch.
            observe(key, lease, status.state(), weight, hold.holds(), renewing);
            return revisit(now, revisitAt);
        }
        return switch (status.state()) {
            case UNCERTAIN -> acquire(key, lease, weight, current, now);
            case ORPHANED -> deleteOrphan(key, lease, weight);
            default -> {
                writeStateLabel(key, lease, status.state());
                observe(key, lease, status.state(), weight, hold.holds(), renewing);
                yield revisit(now, revisitAt);
            }
        };
    }

    /** The largest restart grace of the Lease's rings that the sharder knows; the default if it knows none. */
    private Duration restartGrace(Lease lease) {
        return RingLeases.rings(lease).stream().map(restartGraces).flatMap(Optional::stream).max(Comparator.naturalOrder())
                .orElse(RestartHold.DEFAULT_GRACE);
    }

    /**
     * Logs a restart hold's start and its end without the shard being back, each once per stop time, and
     * warns once per value (with a Warning event, by the leader) of a restarting annotation that is no time.
     */
    private void noteRestart(LeaseKey key, Lease lease, RestartHold hold) {
        RestartHold before = hold.phase() == RestartHold.Phase.NONE || hold.phase() == RestartHold.Phase.INVALID
                ? restarts.remove(key) : restarts.put(key, hold);
        if (hold.phase() != RestartHold.Phase.INVALID) {
            warnedRestarts.remove(key);
        }
        boolean sameStop = before != null && Objects.equals(before.stoppedAt(), hold.stoppedAt());
        switch (hold.phase()) {
            case HOLDING -> {
                if (!sameStop) {
                    LOG.info("Shard {} stopped at {} to restart; its objects stay until {}", key, hold.stoppedAt(),
                            hold.until());
                }
            }
            case OVER -> {
                if (sameStop && before.holds()) {
                    LOG.info("Shard {} did not come back from its restart by {} (stopped at {}); judged by its lease again",
                            key, hold.until(), hold.stoppedAt());
                }
            }
            case NONE -> {
                if (before != null && before.holds() && key.name().equals(holder(lease))) {
                    LOG.debug("Shard {} is back from its restart", key);
                }
            }
            case INVALID -> {
                if (writing.getAsBoolean() && !hold.value().equals(warnedRestarts.put(key, hold.value()))) {
                    String note = "Annotation " + RingContract.RESTARTING_ANNOTATION + "=\"" + abbreviate(hold.value())
                            + "\" is not an RFC 3339 time; ignored: the shard is judged by its lease alone";
                    LOG.warn("Lease {}: {}", key, note);
                    events.warn(reference(key, lease), INVALID_RESTARTING, "ReadRestarting", note);
                }
            }
            default -> throw new IllegalStateException(hold.phase().toString());
        }
    }

    private static String holder(Lease lease) {
        return lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    }

    /** Whether every one of these leases has been classified at least once. */
    boolean hasClassified(Collection<LeaseKey> leases) {
        return observations.keySet().containsAll(leases);
    }

    /** Every ring's shards, sorted by name, as the last pass over each of their leases classified them. */
    public Membership membership() {
        Map<RingKey, Map<String, ShardInfo>> byRing = new TreeMap<>();
        observations.entrySet().stream()
                // A shard is its name within a ring. Leases of one name in two namespaces are a
                // misconfiguration; the first namespace's wins, so ring consumers never see duplicates.
                .sorted(Map.Entry.comparingByKey(Comparator.comparing(LeaseKey::namespace)))
                .forEach(entry -> entry.getValue().rings().forEach(ring -> byRing
                        .computeIfAbsent(ring, any -> new TreeMap<>())
                        .putIfAbsent(entry.getKey().name(), entry.getValue().shard())));
        Map<RingKey, List<ShardInfo>> shardsByRing = new TreeMap<>();
        byRing.forEach((ring, shards) -> shardsByRing.put(ring, List.copyOf(shards.values())));
        return new Membership(shardsByRing);
    }

    /**
     * Takes the lease over from a shard that stopped renewing it. Only if this optimistic update
     * succeeds is the shard dead: if the shard renews first, the stale resourceVersion makes the API
     * server refuse the update with 409 Conflict, and the shard stays.
     */
    private Result acquire(LeaseKey key, Lease lease, int weight, LeaseDetector current, Instant now) {
        LeaseSpec spec = lease.getSpec() == null ? new LeaseSpec() : lease.getSpec();
        ZonedDateTime stamp = ZonedDateTime.ofInstant(now, ZoneOffset.UTC);
        Lease acquired = new LeaseBuilder(lease)
                // a restart that did not come back in time is over: its mark goes with the shard's hold
                .editMetadata().removeFromAnnotations(RingContract.RESTARTING_ANNOTATION).endMetadata()
                .withNewSpecLike(spec)
                    .withHolderIdentity(RingContract.LEASE_CONTROLLER_HOLDER)
                    .withLeaseDurationSeconds(doubled(spec.getLeaseDurationSeconds()))
                    .withAcquireTime(stamp)
                    .withRenewTime(stamp)
                    .withLeaseTransitions(Objects.requireNonNullElse(spec.getLeaseTransitions(), 0) + 1)
                .endSpec()
                .build();
        // The same write sets the state label to the verdict on the acquired lease: one write, not two,
        // and no label patch that would bump the resourceVersion this update is conditional on.
        ShardStatus after = current.detect(toRecord(acquired), now);
        acquired = new LeaseBuilder(acquired)
                .editMetadata().addToLabels(RingContract.STATE_LABEL, after.state().label()).endMetadata()
                .build();
        try {
            client.leases().inNamespace(key.namespace()).resource(acquired).update();
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                LOG.debug("Lease {} changed before it could be acquired (shard renewed in time)", key);
                observe(key, lease, ShardState.UNCERTAIN, weight);
                return Result.requeueAfter(RECHECK_AFTER_CONFLICT);
            }
            if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                forget(key);
                return Result.done();
            }
            throw e;
        }
        LOG.info("Shard {} did not renew its lease in time; acquired the lease, shard is {}", key, after.state().label());
        observe(key, lease, after.state(), weight);
        return revisit(now, after.revisitAt());
    }

    /**
     * Deletes the lease of a shard that is gone for good. The delete is conditional on the
     * resourceVersion classified, so a lease the shard has just taken back is not deleted (409).
     */
    private Result deleteOrphan(LeaseKey key, Lease lease, int weight) {
        try {
            client.leases().inNamespace(key.namespace()).withName(key.name())
                    .lockResourceVersion(lease.getMetadata().getResourceVersion())
                    .delete();
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                LOG.debug("Lease {} changed before it could be deleted", key);
                observe(key, lease, ShardState.ORPHANED, weight);
                return Result.requeueAfter(RECHECK_AFTER_CONFLICT);
            }
            throw e;
        }
        LOG.info("Deleted lease {} of an orphaned shard", key);
        forget(key);
        return Result.done();
    }

    /**
     * Patches only the state label, without resourceVersion: it must not fail when the shard renews
     * concurrently, and it cannot undo a renewal. Skipped when the label already shows the state.
     */
    private void writeStateLabel(LeaseKey key, Lease lease, ShardState state) {
        Map<String, String> labels = lease.getMetadata().getLabels();
        if (labels != null && state.label().equals(labels.get(RingContract.STATE_LABEL))) {
            return;
        }
        String patch = client.getKubernetesSerialization()
                .asJson(Map.of("metadata", Map.of("labels", Map.of(RingContract.STATE_LABEL, state.label()))));
        try {
            client.leases().inNamespace(key.namespace()).withName(key.name())
                    .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
            LOG.debug("Lease {} is {}", key, state.label());
        } catch (KubernetesClientException e) {
            // Deleted meanwhile: its delete event queues the key again and that pass forgets it.
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                throw e;
            }
        }
    }

    /** The shard's weight; an invalid annotation counts as 1 and is reported once per lease and value. */
    private int weight(LeaseKey key, Lease lease) {
        Map<String, String> annotations = lease.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(RingContract.WEIGHT_ANNOTATION);
        if (value == null) {
            warnedWeights.remove(key);
            return ShardWeight.DEFAULT;
        }
        OptionalInt parsed = ShardWeight.parse(value);
        if (parsed.isPresent()) {
            warnedWeights.remove(key);
            return parsed.getAsInt();
        }
        if (writing.getAsBoolean() && !value.equals(warnedWeights.put(key, value))) {
            String note = "Annotation " + RingContract.WEIGHT_ANNOTATION + "=\"" + abbreviate(value)
                    + "\" is not an integer from 1 to " + Shard.MAX_WEIGHT + "; the shard gets weight "
                    + ShardWeight.DEFAULT;
            LOG.warn("Lease {}: {}", key, note);
            events.warn(reference(key, lease), INVALID_WEIGHT, "ReadWeight", note);
        }
        return ShardWeight.DEFAULT;
    }

    private static ObjectReference reference(LeaseKey key, Lease lease) {
        return new ObjectReferenceBuilder().withApiVersion(HasMetadata.getApiVersion(Lease.class))
                .withKind(HasMetadata.getKind(Lease.class)).withNamespace(key.namespace()).withName(key.name())
                .withUid(lease.getMetadata().getUid()).withResourceVersion(lease.getMetadata().getResourceVersion())
                .build();
    }

    private void observe(LeaseKey key, Lease lease, ShardState state, int weight) {
        observe(key, lease, state, weight, false, renewing(toRecord(lease), clock.instant()));
    }

    private void observe(LeaseKey key, Lease lease, ShardState state, int weight, boolean restarting, boolean renewing) {
        observations.put(key, new Observation(RingLeases.rings(lease), new ShardInfo(key.name(), state, weight, restarting, renewing,
                ShardInfo.RangeClaim.of(lease))));
    }

    /**
     * Whether the shard still renews its own Lease at {@code now}: held by its own name, a restart stamp
     * absent, and {@code renewTime + leaseDurationSeconds} not passed.
     */
    static boolean renewing(LeaseRecord lease, Instant now) {
        Instant until = renewedUntil(lease);
        return until != null && now.isBefore(until)
                && (lease.annotations() == null || !lease.annotations().containsKey(RingContract.RESTARTING_ANNOTATION));
    }

    /** {@code renewTime + leaseDurationSeconds} of a Lease held by its own name; null for any other. */
    private static Instant renewedUntil(LeaseRecord lease) {
        if (!lease.name().equals(lease.holderIdentity()) || lease.renewTime() == null || lease.leaseDurationSeconds() == null) {
            return null;
        }
        return lease.renewTime().plusSeconds(Math.max(0, lease.leaseDurationSeconds()));
    }

    private void forget(LeaseKey key) {
        observations.remove(key);
        warnedWeights.remove(key);
        warnedRestarts.remove(key);
        restarts.remove(key);
    }

    private static Result revisit(Instant now, Instant revisitAt) {
        Duration delay = Duration.between(now, revisitAt);
        return Result.requeueAfter(delay.isNegative() || delay.isZero() ? MIN_REVISIT : delay);
    }

    /** Doubles the duration (the reference sharder's rule); a missing one stays missing, as 0 is invalid. */
    private static Integer doubled(Integer seconds) {
        return seconds == null || seconds <= 0 ? null : (int) Math.min(2L * seconds, Integer.MAX_VALUE);
    }

    private static String abbreviate(String value) {
        return value.length() <= 64 ? value : value.substring(0, 64) + "…";
    }

    /**
     * A term of leadership begins: from now on every lease counts as renewed at {@code start} at the
     * earliest, which gives each shard one lease duration to show it is alive. The new leader did not
     * act on leases before, and the usual reason for a new term is an API server that was away, when
     * no shard could renew either: a renewal missed then is no sign of a dead shard.
     */
    void startTerm(Instant start) {
        termStart.set(start);
    }

    /** The term ended: leases are judged by their renewals alone again. */
    void endTerm() {
        termStart.set(null);
    }

    private LeaseRecord withTermGrace(LeaseRecord lease) {
        Instant start = termStart.get();
        if (start == null || lease.renewTime() == null || !lease.renewTime().isBefore(start)
                || !lease.name().equals(lease.holderIdentity())) {
            return lease;
        }
        return new LeaseRecord(lease.name(), lease.namespace(), lease.holderIdentity(), lease.acquireTime(), start,
                lease.leaseDurationSeconds(), lease.labels(), lease.annotations());
    }

    static LeaseRecord toRecord(Lease lease) {
        LeaseSpec spec = lease.getSpec() == null ? new LeaseSpec() : lease.getSpec();
        return new LeaseRecord(
                lease.getMetadata().getName(),
                lease.getMetadata().getNamespace(),
                spec.getHolderIdentity(),
                spec.getAcquireTime() == null ? null : spec.getAcquireTime().toInstant(),
                spec.getRenewTime() == null ? null : spec.getRenewTime().toInstant(),
                spec.getLeaseDurationSeconds(),
                lease.getMetadata().getLabels(),
                lease.getMetadata().getAnnotations());
    }
}
