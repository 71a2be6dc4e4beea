package dev.ringmaster.shard.client;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.load.LoadReport;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard's own {@code coordination.k8s.io/v1} Lease (docs/design.md section 1): named after the
 * shard, held with {@code spec.holderIdentity} = shard name, labelled with its ring kind's Lease label
 * ({@code alpha.sharding.timebertt.dev/clusterring=<ring>} or
 * {@code alpha.sharding.timebertt.dev/controllerring=<ring>}, {@link RingKind#leaseLabel}) and
 * optionally annotated with {@code ringmaster.dev/weight}.
 *
 * <p>After {@link #start()} it tries every retry period to acquire the Lease (create it, or take it
 * over when it is free: its holder is empty; or its {@code renewTime + leaseDurationSeconds} has passed,
 * which covers the sharder's {@code shardlease-controller} acquisition with a doubled duration; or its
 * holder is this shard's name and its {@code ringmaster.dev/holder-instance} annotation is absent, is
 * this process's instance, or the Lease is marked {@code ringmaster.dev/restarting}) and, once held,
 * renews it every retry period. A Lease held by this shard's name for another instance that renews it
 * and has not marked it restarting is not free: another process of the same identity is alive (a
 * replacement pod started while the old one still runs), and this one waits. Every write is optimistic
 * (it carries the {@code resourceVersion} last read), carries the instance annotation, removes the
 * restarting mark, and keeps the labels and annotations written by others, such as the sharder's state
 * label.
 *
 * <p><b>Fencing.</b> If the Lease could not be renewed within the renew deadline (measured from the
 * moment the last successful renewal was sent, which is the {@code renewTime} it wrote), or someone
 * else took it, {@link Listener#onLost()} is called at once, before the Lease expires in the
 * sharder's view (the renew deadline is shorter than the lease duration). Stop the shard's
 * controllers there. The lease keeps trying and calls {@link Listener#onAcquired()} when it holds
 * the Lease again.
 *
 * <p>{@link #close()} asks the {@link ShardDeparture} whether this stop is a restart or a leave, stops
 * renewing, tells the listener that the lease is lost, and then either releases the Lease (holder
 * cleared) so that the sharder moves the shard's objects at once, or, for a restart, keeps it, marked
 * {@code ringmaster.dev/restarting}, so that the sharder leaves them where they are until the shard is
 * back (or the ring's restart grace has passed).
 *
 * <p><b>Load report.</b> A renewal (or acquisition) at least {@link Sharding.Builder#loadReportPeriod} after the
 * previous report (after the first write, for the first one) carries the shard's {@link LoadMeter} snapshot as the
 * {@code ringmaster.dev/load} annotation, in the same update; the writes between keep the annotation as it is. A
 * report whose write failed is sent again with the next attempt.
 *
 * <p>Instances come from {@link Sharding.Builder#build()}. Thread-safe.
 */
public final class ShardLease implements AutoCloseable {

    /**
     * Told when this shard gains or loses its lease. Called from the lease's executor, from the
     * thread calling {@link #isHeld()} when that call notices the deadline, or from {@link #close()};
     * keep the callbacks short and non-blocking (e.g. stop the controllers asynchronously).
     */
    @FunctionalInterface
    public interface Listener {

        /** The lease is held (again): the shard may run its controllers. */
        default void onAcquired() {
        }

        /**
         * The lease is no longer held, or may be held no longer: stop the shard's controllers now.
         * Called before the lease expires, when a renewal did not succeed within the renew deadline.
         */
        void onLost();
    }

    private static final Logger LOG = LoggerFactory.getLogger(ShardLease.class);

    private final KubernetesClient client;
    private final RingKind kind;
    private final String ring;
    private final String name;
    private final String namespace;
    private final Integer weight;
    private final String instance;
    private final ShardDeparture departure;
    private final Duration leaseDuration;
    private final Duration renewDeadline;
    private final Duration retryPeriod;
    private final Clock clock;
    private final ScheduledExecutorService executor;
    private final boolean ownsExecutor;
    private final Listener listener;
    /** Listeners added after construction, e.g. by {@link ShardedReconciler#start()}. */
    private final List<Listener> extraListeners = new CopyOnWriteArrayList<>();
    /** Told of the Lease after each successful acquisition or renewal (range mode reads its annotations). */
    private final List<Consumer<Lease>> observers = new CopyOnWriteArrayList<>();

    /** Serializes the Lease writes (ticks and the release). */
    private final ReentrantLock io = new ReentrantLock();

    // state, guarded by "this"
    private boolean held;
    private Instant lastRenewal;
    private boolean started;
    private boolean closed;
    private boolean closing;
    /** The instance this lease last waited for (logged once per wait), or null. */
    private String waitingFor;
    private ScheduledFuture<?> loop;
    private ScheduledFuture<?> watchdog;
    /** The Lease as last read or written; only written while holding {@link #io}. */
    private volatile Lease current;
    /** What the load reports measure, and how often they are written; null or zero: none. */
    private volatile LoadMeter loadMeter;
    private volatile Duration loadPeriod = Duration.ZERO;
    /**
     * Whether this shard serves ranges (its writes announce {@code served-ranges}, empty until {@code ShardRanges}
     * claims some) or labels (its writes remove it); null: neither was said.
     */
    private volatile Boolean servesRanges;
    // the load report, guarded by io: when the next is due, and the one taken for a write that did not succeed yet
    private Instant loadDue;
    private LoadReport loadPending;
    private volatile LoadReport lastLoadReport;

    ShardLease(KubernetesClient client, RingKind kind, String ring, String name, String namespace, Integer weight,
               String instance, ShardDeparture departure, Duration leaseDuration, Duration renewDeadline, Duration retryPeriod, Clock clock,
               ScheduledExecutorService executor, boolean ownsExecutor, Listener listener) {
        this.client = client;
        this.kind = kind;
        this.ring = ring;
        this.name = name;
        this.namespace = namespace;
        this.weight = weight;
        this.instance = Objects.requireNonNull(instance, "instance");
        this.departure = Objects.requireNonNull(departure, "departure");
        this.leaseDuration = leaseDuration;
        this.renewDeadline = renewDeadline;
        this.retryPeriod = retryPeriod;
        this.clock = clock;
        this.executor = executor;
        this.ownsExecutor = ownsExecutor;
        this.listener = listener;
    }

    /** The Lease name, which is also the shard name and the holder identity. */
    public String name() {
        return name;
    }

    /** The namespace of the Lease. */
    public String namespace() {
        return namespace;
    }

    /** This process's instance, written as the {@code ringmaster.dev/holder-instance} annotation. */
    public String instance() {
        return instance;
    }

    /**
     * Starts acquiring and renewing the Lease in the background, every retry period.
     *
     * @throws IllegalStateException if already started or closed
     */
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("shard lease " + namespace + "/" + name + " is closed");
        }
        if (started) {
            throw new IllegalStateException("shard lease " + namespace + "/" + name + " is already started");
        }
        started = true;
        loop = executor.scheduleWithFixedDelay(this::tick, 0, retryPeriod.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Adds a listener besides the one given to the builder; it is told of later changes only (check
     * {@link #isHeld()} after adding it). Called like the builder's listener, after it.
     */
    public void addListener(Listener listener) {
        extraListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Removes a listener added with {@link #addListener(Listener)}; no effect if absent. */
    public void removeListener(Listener listener) {
        extraListeners.remove(listener);
    }

    /**
     * Whether this shard holds its Lease now: the last renewal succeeded less than the renew
     * deadline ago. Turns false at the deadline even if the background check has not run yet.
     */
    public boolean isHeld() {
        checkDeadline();
        synchronized (this) {
            return held;
        }
    }

    /**
     * Stops gracefully, in this order: asks the {@link ShardDeparture} (while still renewing; its reads
     * may take a moment) whether this stop is a restart or a leave; stops renewing; calls
     * {@link Listener#onLost()} if the lease was held; then, if this shard (this instance) is still the
     * Lease's holder:
     * <ul>
     *   <li>leave: releases the Lease, an optimistic update setting {@code holderIdentity} to {@code ""},
     *       {@code leaseDurationSeconds} to 1 and {@code renewTime} to now, as client-go's leader election
     *       does on release; the sharder then sees the shard as dead and moves its objects at once;</li>
     *   <li>restart: keeps it, an optimistic update adding the annotation {@code ringmaster.dev/restarting}
     *       = now (RFC 3339, UTC) and changing nothing else (holder and {@code renewTime} stay); the
     *       sharder keeps the objects where they are for the ring's restart grace, and the next
     *       instance of this shard may take the Lease at once.</li>
     * </ul>
     * Stop everything the shard does before calling this: the Lease is released or marked at its end.
     * Shuts down the executor only if the lease created it. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed || closing) {
                return;
            }
            closing = true;
        }
        // only a Lease this instance holds is kept or released: no reads to decide otherwise
        ShardDeparture.Decision decision = LeaseRules.heldBy(current, name, instance) ? decideDeparture()
                : ShardDeparture.Decision.leave("the Lease is not this instance's");
        synchronized (this) {
            closed = true;
            cancel(loop);
            cancel(watchdog);
        }
        markLost(null);
        io.lock();
        try {
            if (decision.kind() == ShardDeparture.Kind.RESTART) {
                markRestarting(decision.reason());
            } else {
                release(decision.reason());
            }
        } finally {
            io.unlock();
            if (ownsExecutor) {
                executor.shutdownNow();
            }
        }
    }

    private ShardDeparture.Decision decideDeparture() {
        try {
            return Objects.requireNonNull(departure.decide(name, clock.instant()), "the departure's decision");
        } catch (RuntimeException e) {
            LOG.warn("Shard lease {}/{}: the departure could not decide whether this stop is a restart, so the"
                    + " shard leaves: {}", namespace, name, e.toString());
            return ShardDeparture.Decision.leave("the departure failed: " + e);
        }
    }

    /**
     * One attempt to acquire or renew the Lease, as the background loop makes it; failures are
     * logged, and fence once the renew deadline has passed.
     */
    void tick() {
        try {
            attempt();
        } catch (RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) {
                // the executor is shutting down (a killed shard, an application's stop): the request was cut off
                LOG.debug("Shard lease {}/{}: an attempt cut off by an interrupt: {}", namespace, name, e.toString());
                return;
            }
            LOG.warn("Shard lease {}/{}: {}", namespace, name, e.toString());
        }
    }

    private void attempt() {
        io.lock();
        try {
            synchronized (this) {
                if (closed) {
                    return;
                }
            }
            Instant now = clock.instant();
            boolean wasHeld;
            synchronized (this) {
                wasHeld = held;
            }
            if (wasHeld) {
                renew(now);
            } else {
                tryAcquire(now);
            }
        } finally {
            io.unlock();
            checkDeadline();
        }
    }

    private void tryAcquire(Instant now) {
        Lease existing = leases().get();
        if (existing == null) {
            current = null;
            Lease created = writer().resource(ours(new LeaseBuilder().withNewMetadata()
                    .withName(name).withNamespace(namespace).endMetadata().build(), now)).create();
            written(created, now);
            return;
        }
        current = existing;
        LeaseRules.Taken taken = LeaseRules.taken(existing, name, instance, now);
        if (taken == LeaseRules.Taken.OTHER_INSTANCE) {
            String other = LeaseRules.annotation(existing, RingContract.INSTANCE_ANNOTATION);
            if (!other.equals(waitingFor)) {
                waitingFor = other;
                LOG.info("Shard lease {}/{}: waiting for instance {} to stop or its Lease to expire (this is instance {})",
                        namespace, name, other, instance);
            }
            return;
        }
        if (taken != null) {
            LOG.debug("Shard lease {}/{} is held by {}", namespace, name, existing.getSpec().getHolderIdentity());
            return;
        }
        waitingFor = null;
        written(writer().resource(ours(existing, now)).update(), now);
    }

    private void renew(Instant now) {
        try {
            written(writer().resource(ours(current, now)).update(), now);
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                current = null;
                markLost("the lease was deleted");
                return;
            }
            if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                throw e;
            }
            // someone else wrote the Lease (e.g. the sharder's state label): re-read and retry once
            Lease fresh = leases().get();
            current = fresh;
            if (!LeaseRules.heldBy(fresh, name, instance)) {
                markLost("the lease was taken by "
                        + (fresh == null || fresh.getSpec() == null ? "nobody" : fresh.getSpec().getHolderIdentity()
                        + (name.equals(fresh.getSpec().getHolderIdentity())
                                ? " (instance " + LeaseRules.annotation(fresh, RingContract.INSTANCE_ANNOTATION) + ")" : "")));
                return;
            }
            try {
                written(writer().resource(ours(fresh, now)).update(), now);
            } catch (KubernetesClientException again) {
                if (again.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    throw again;
                }
                // written again meanwhile (in range mode the sharder writes assignments into the Lease):
                // the next attempt renews; a Lease that stays unwritable fences at the renew deadline
                LOG.debug("Shard lease {}/{}: written by someone else twice in a row, renewing at the next attempt",
                        namespace, name);
            }
        }
    }

    private void release(String why) {
        writeWhileHeld(why, "leaving", "the Lease is not this instance's, nothing to release", "the Lease is released",
                "release shard lease %s/%s", held -> {
                    ZonedDateTime now = utc(clock.instant());
                    return new LeaseBuilder(held).editSpec()
                            .withHolderIdentity("")
                            .withLeaseDurationSeconds(1)
                            .withAcquireTime(now)
                            .withRenewTime(now)
                            .endSpec().build();
                });
    }

    /**
     * Keeps the Lease for the next instance of this shard: the restarting mark = now, holder and renew
     * time unchanged.
     */
    private void markRestarting(String why) {
        writeWhileHeld(why, "stopping to restart", "the Lease is not this instance's any more, nothing to mark",
                "the Lease is kept", "mark shard lease %s/%s restarting", held -> new LeaseBuilder(held).editMetadata()
                        .addToAnnotations(RingContract.RESTARTING_ANNOTATION,
                                DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS)))
                        .endMetadata().build());
    }

    /**
     * The last write of a departure ({@code doing} in the log lines): {@code change} of the Lease, only while
     * this instance still holds it ({@code notHeld} in the log otherwise). Conflicts re-read and try again,
     * three attempts in all; another failure is logged ("Could not " {@code couldNot}, with the namespace
     * and name) and ends it.
     */
    private void writeWhileHeld(String why, String doing, String notHeld, String written, String couldNot,
                                UnaryOperator<Lease> change) {
        for (int attempt = 0; attempt < 3 && current != null; attempt++) {
            if (!LeaseRules.heldBy(current, name, instance)) {
                LOG.info("Shard lease {}/{}: {}: {}; {}", namespace, name, doing, why, notHeld);
                return;
            }
            try {
                current = writer().resource(change.apply(current)).update();
                LOG.info("Shard lease {}/{}: {}: {}; {}", namespace, name, doing, why, written);
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    LOG.warn("Could not {}: {}", String.format(couldNot, namespace, name), e.toString());
                    return;
                }
                current = leases().get();
            }
        }
    }

    /**
     * Writes the load reports of {@code meter} with the renewals, one at most every {@code period}; zero: none
     * (an annotation already on the Lease is left as it is). Set before {@link #start()}.
     */
    void publishLoad(LoadMeter meter, Duration period) {
        this.loadMeter = Objects.requireNonNull(meter, "meter");
        this.loadPeriod = Objects.requireNonNull(period, "period");
    }

    /**
     * Removes {@code ringmaster.dev/served-ranges} from the Lease with every write: this shard serves by its label
     * only, whatever a range-mode process that held the Lease before said (a ring switched out of range mode waits
     * for no shard to serve ranges before it labels). Set before {@link #start()}.
     */
    void servesNoRanges() {
        this.servesRanges = false;
    }

    /**
     * This shard serves ranges: its first write (the acquiring one) announces {@code served-ranges}, empty, if the
     * Lease has none, so a ring that enters range mode knows it serves no labels from the moment it holds the Lease
     * (docs/design.md section 9). Set before {@link #start()}.
     */
    void servesRanges() {
        this.servesRanges = true;
    }

    /** The load report last written on the Lease, if any. */
    Optional<LoadReport> lastLoadReport() {
        return Optional.ofNullable(lastLoadReport);
    }

    /**
     * The Lease with this shard as holder, renewed at {@code now}; other metadata kept; with the load report if one
     * is due.
     */
    private Lease ours(Lease base, Instant now) {
        Lease held = LeaseRules.held(base, name, instance, kind, ring, weight, leaseDuration, now);
        LoadReport report = dueLoadReport(now);
        boolean announced = held.getMetadata().getAnnotations() != null
                && held.getMetadata().getAnnotations().containsKey(RingContract.SERVED_RANGES_ANNOTATION);
        boolean dropServed = Boolean.FALSE.equals(servesRanges) && announced;
        boolean announce = Boolean.TRUE.equals(servesRanges) && !announced;
        if (report == null && !dropServed && !announce) {
            return held;
        }
        var metadata = new LeaseBuilder(held).editMetadata();
        if (report != null) {
            metadata.addToAnnotations(RingContract.LOAD_ANNOTATION, report.format());
        }
        if (dropServed) {
            metadata.removeFromAnnotations(RingContract.SERVED_RANGES_ANNOTATION);
        }
        if (announce) {
            metadata.addToAnnotations(RingContract.SERVED_RANGES_ANNOTATION, "");
        }
        return metadata.endMetadata().build();
    }

    /** The load report to write with a write at {@code now}, or null. Called holding {@link #io}. */
    private LoadReport dueLoadReport(Instant now) {
        LoadMeter meter = loadMeter;
        if (meter == null || loadPeriod.isZero()) {
            return null;
        }
        if (loadDue == null) {
            loadDue = now.plus(loadPeriod); // the first window starts with the first write
            return null;
        }
        if (loadPending == null && !now.isBefore(loadDue)) {
            try {
                loadPending = meter.snapshot();
            } catch (RuntimeException e) {
                // never in the way of a renewal
                LOG.warn("Shard lease {}/{}: could not take the load report: {}", namespace, name, e.toString());
                loadDue = now.plus(loadPeriod);
            }
        }
        return loadPending;
    }

    /** After a write sent at {@code sentAt} succeeded: the pending load report is published if it carried it. */
    private void loadWritten(Lease lease, Instant sentAt) {
        LoadReport pending = loadPending;
        if (pending != null && pending.format().equals(LeaseRules.annotation(lease, RingContract.LOAD_ANNOTATION))) {
            lastLoadReport = pending;
            loadPending = null;
            loadDue = sentAt.plus(loadPeriod);
        }
    }

    /** A write sent at {@code sentAt} succeeded. */
    private void written(Lease lease, Instant sentAt) {
        current = lease;
        loadWritten(lease, sentAt);
        Instant deadline = sentAt.plus(renewDeadline);
        boolean acquired;
        synchronized (this) {
            if (closed) {
                return;
            }
            lastRenewal = sentAt;
            if (!clock.instant().isBefore(deadline)) {
                return; // too late to count; checkDeadline fences if still marked held
            }
            acquired = !held;
            held = true;
            armWatchdog();
        }
        if (acquired) {
            LOG.info("Acquired shard lease {}/{}", namespace, name);
            listener.onAcquired();
            extraListeners.forEach(Listener::onAcquired);
        }
        for (Consumer<Lease> observer : observers) {
            try {
                observer.accept(lease);
            } catch (RuntimeException e) {
                LOG.warn("Shard lease {}/{}: an observer failed: {}", namespace, name, e.toString());
            }
        }
    }

    /** Tells {@code observer} of the Lease after each successful acquisition or renewal from now on. */
    void addObserver(Consumer<Lease> observer) {
        observers.add(Objects.requireNonNull(observer, "observer"));
    }

    /** The Lease's namespace and name as a read/write access for range mode's handover. */
    ShardRanges.LeaseAccess access() {
        return new ShardRanges.LeaseAccess() {
            @Override
            public Lease read() {
                return leases().get();
            }

            @Override
            public Lease update(Lease lease) {
                return writer().resource(lease).update();
            }
        };
    }

    /**
     * Schedules the deadline check for the moment the renew deadline passes. Guarded by "this".
     * Rounded up to the next millisecond, and a check that still runs early (the timer and the clock
     * are different clocks) schedules itself again: a watchdog that fired a moment too soon and gave up
     * left a shard whose renewals hung believing it held its Lease until the hung request returned.
     */
    private void armWatchdog() {
        cancel(watchdog);
        Duration left = Duration.between(clock.instant(), lastRenewal.plus(renewDeadline));
        long delayMicros = Math.max(0, TimeUnit.NANOSECONDS.toMicros(left.toNanos()));
        watchdog = executor.schedule(this::watchdogFired, (delayMicros + 999) / 1000, TimeUnit.MILLISECONDS);
    }

    private void watchdogFired() {
        checkDeadline();
        synchronized (this) {
            if (held && !closed) {
                armWatchdog(); // not due yet by the clock: look again when it is
            }
        }
    }

    /** Fences: the lease counts as lost once the renew deadline has passed since the last renewal. */
    void checkDeadline() {
        boolean expired;
        synchronized (this) {
            expired = held && !clock.instant().isBefore(lastRenewal.plus(renewDeadline));
        }
        if (expired) {
            markLost("it was not renewed within " + renewDeadline);
        }
    }

    /** @param why why the lease was lost, or null when it is given up by {@link #close()} */
    private void markLost(String why) {
        synchronized (this) {
            if (!held) {
                return;
            }
            held = false;
            cancel(watchdog);
        }
        if (why == null) {
            LOG.info("Giving up shard lease {}/{}: the shard lease is closing", namespace, name);
        } else {
            LOG.warn("Lost shard lease {}/{}: {}", namespace, name, why);
        }
        listener.onLost();
        extraListeners.forEach(Listener::onLost);
    }

    private Resource<Lease> leases() {
        return client.leases().inNamespace(namespace).withName(name);
    }

    private NonNamespaceOperation<Lease, LeaseList, Resource<Lease>> writer() {
        return client.leases().inNamespace(namespace);
    }

    private static void cancel(ScheduledFuture<?> future) {
        if (future != null) {
            future.cancel(false);
        }
    }

    private static ZonedDateTime utc(Instant instant) {
        return ZonedDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
