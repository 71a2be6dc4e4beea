package dev.ringmaster.shard.client;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Range mode's handover, shard side (docs/design.md section 9). It reads
 * {@code ringmaster.dev/assigned-ranges} and {@code ringmaster.dev/range-key} from the shard's own
 * Lease when the sharder changes them (a watch on the Lease, {@link AssignmentWatch}) and each time
 * the lease renews it, and serves exactly the assigned ranges:
 * <ul>
 *   <li>shrink: every target registered ({@link #register}, e.g. a {@link RangeInformer}) stops serving what is no
 *       longer assigned at once; queued keys outside the assignment are not reconciled (the reconciler
 *       reads the informer's filtered store); once no reconcile of an object outside it runs any more,
 *       and only then, {@code ringmaster.dev/served-ranges} is written smaller;</li>
 *   <li>growth: claimed before it is served. {@code served-ranges} is first written to cover the new
 *       ranges, and the informers start on them only once that write went through. The sharder grants
 *       a range to another shard only while this Lease neither assigns it nor shows it served, so a
 *       range the shard serves is in every version of its Lease from the claim on, until it let go;</li>
 *   <li>every write is an optimistic update pinned to the resourceVersion read: a conflict (the
 *       sharder changed the assignment meanwhile) reads the Lease again and decides again;</li>
 *   <li>a change of the range key is a shrink to nothing under the old key, then growth under the new.</li>
 * </ul>
 * When the lease is lost it serves nothing until it holds the Lease again. Its work runs on one
 * executor, one step at a time. Instances come from {@link Sharding#ranges()}.
 */
public final class ShardRanges implements ShardLease.Listener {

    /** Reads and writes the shard's Lease. */
    interface LeaseAccess {
        Lease read();

        /** An optimistic update; a {@link KubernetesClientException} with code 409 on conflict. */
        Lease update(Lease lease);
    }

    private static final Logger LOG = LoggerFactory.getLogger(ShardRanges.class);
    private static final int ATTEMPTS = 5;

    private final String shard;
    private final LeaseAccess access;
    private final Predicate<Lease> ours;
    private final Executor executor;
    private final BiConsumer<Runnable, Duration> scheduler;
    private final Duration recheck;
    private final List<RangeTarget> targets = new CopyOnWriteArrayList<>();
    /** Written by the executor only (one step at a time); read anywhere. */
    private volatile RangeSet serving = RangeSet.EMPTY;
    private volatile RangeKey currentKey = RangeKey.UID;
    private volatile Lease latest;
    private volatile boolean held;
    private boolean recheckPending;

    /**
     * @param ours      whether a Lease read is held by this shard's instance
     * @param executor  runs the steps one at a time, in order
     * @param scheduler runs a step again after a delay (a shrink waiting for reconciles to end)
     * @param recheck   how long a shrink waits before looking at the running reconciles again
     */
    ShardRanges(String shard, LeaseAccess access, Predicate<Lease> ours, Executor executor,
                BiConsumer<Runnable, Duration> scheduler, Duration recheck) {
        this.shard = shard;
        this.access = access;
        this.ours = ours;
        this.executor = executor;
        this.scheduler = scheduler;
        this.recheck = recheck;
    }

    /** Hands the shard's ranges to {@code target} from now on (at once, if it serves some already). */
    public void register(RangeTarget target) {
        Objects.requireNonNull(target, "target");
        executor.execute(() -> {
            targets.add(target);
            if (held && !serving.isEmpty()) {
                target.serve(serving, currentKey);
            }
        });
    }

    /** Stops handing ranges to {@code target}; it keeps what it serves. */
    public void unregister(RangeTarget target) {
        targets.remove(target);
    }

    /** The ranges the shard serves now (its informers watch them). */
    public RangeSet serving() {
        return serving;
    }

    /** The key the ranges served now hash. */
    RangeKey key() {
        return currentKey;
    }

    /** The Lease as the shard's lease just wrote it: decide again. */
    void observe(Lease lease) {
        latest = lease;
        held = true;
        executor.execute(this::step);
    }

    /**
     * A version of the Lease its watch delivered: decided on at once, rather than at the next renewal,
     * if it is later than the latest version known and changes what the decision rests on (the
     * assignment, the key, whose Lease it is). The shard's renewals and its own writes change none of them.
     */
    void watched(Lease lease) {
        try {
            executor.execute(() -> {
                Lease known = latest;
                if (held && known != null && later(lease, known) && !decidedAlike(lease, known)) {
                    latest = lease;
                    step();
                }
            });
        } catch (RejectedExecutionException closed) {
            // the shard closed meanwhile: nothing to serve
        }
    }

    private boolean decidedAlike(Lease one, Lease other) {
        return ours.test(one) == ours.test(other)
                && Objects.equals(LeaseRules.annotation(one, RingContract.ASSIGNED_RANGES_ANNOTATION),
                        LeaseRules.annotation(other, RingContract.ASSIGNED_RANGES_ANNOTATION))
                && Objects.equals(LeaseRules.annotation(one, RingContract.RANGE_KEY_ANNOTATION),
                        LeaseRules.annotation(other, RingContract.RANGE_KEY_ANNOTATION));
    }

    /**
     * Whether {@code lease} is a later version than {@code known}, their resourceVersions compared as
     * numbers (etcd's revisions); one that is no number counts as later: at worst, its write conflicts
     * and the Lease is read again.
     */
    private static boolean later(Lease lease, Lease known) {
        try {
            return Long.parseLong(lease.getMetadata().getResourceVersion())
                    > Long.parseLong(known.getMetadata().getResourceVersion());
        } catch (NumberFormatException notANumber) {
            return true;
        }
    }

    @Override
    public void onAcquired() {
        held = true;
    }

    /** Fenced: serve nothing until the Lease is held again. */
    @Override
    public void onLost() {
        held = false;
        executor.execute(() -> {
            if (!held) {
                swap(RangeSet.EMPTY);
            }
        });
    }

    private void swap(RangeSet ranges) {
        if (!ranges.equals(serving)) {
            LOG.info("Shard {}: serving ranges {} of {} (were {})", shard, ranges.isEmpty() ? "none" : ranges,
                    currentKey.specName(), serving.isEmpty() ? "none" : serving);
            serving = ranges;
            targets.forEach(target -> target.serve(ranges, currentKey));
        }
    }

    /** One decision on the latest Lease; runs on the executor. */
    void step() {
        Lease lease = latest;
        for (int attempt = 0; attempt < ATTEMPTS && held && lease != null; attempt++) {
            if (!ours.test(lease)) {
                swap(RangeSet.EMPTY);
                return;
            }
            RangeSet assigned;
            RangeKey key;
            try {
                assigned = RangeSet.parse(LeaseRules.annotation(lease, RingContract.ASSIGNED_RANGES_ANNOTATION));
                String keyText = LeaseRules.annotation(lease, RingContract.RANGE_KEY_ANNOTATION);
                key = keyText == null || keyText.isBlank() ? RangeKey.UID : RangeKey.ofSpec(keyText.strip());
            } catch (IllegalArgumentException e) {
                LOG.warn("Shard {}: the Lease's range assignment is unreadable, serving nothing: {}", shard, e.getMessage());
                assigned = RangeSet.EMPTY;
                key = currentKey;
            }
            String servedText = LeaseRules.annotation(lease, RingContract.SERVED_RANGES_ANNOTATION);
            RangeSet served;
            try {
                served = RangeSet.parse(servedText);
            } catch (IllegalArgumentException e) {
                served = RangeSet.ALL; // unreadable: treat as a shrink, so it is rewritten only when nothing runs outside
            }
            boolean keyChanges = key != currentKey;
            if (keyChanges && serving.isEmpty() && served.isEmpty()) {
                currentKey = key; // nothing served under the old key, and the Lease says so: start on the new one
                keyChanges = false;
            }
            RangeSet target = keyChanges ? RangeSet.EMPTY : assigned;
            swap(serving.intersect(target));
            RangeSet nextServed;
            if (!target.minus(served).isEmpty()) {
                nextServed = served.union(target); // claim first; what still runs outside stays claimed too
            } else {
                swap(target); // this version of the Lease shows it all claimed
                if (served.equals(target) && servedText != null) {
                    if (!keyChanges) {
                        return;
                    }
                    currentKey = key; // served nothing under the old key: grow under the new one
                    continue;
                }
                if (!served.minus(target).isEmpty() && busyOutside(target)) {
                    scheduleRecheck();
                    return;
                }
                nextServed = target;
            }
            Lease written = new LeaseBuilder(lease).editMetadata()
                    .addToAnnotations(RingContract.SERVED_RANGES_ANNOTATION, nextServed.toString()).endMetadata().build();
            try {
                lease = access.update(written);
                latest = lease;
                LOG.info("Shard {}: served ranges are now {}", shard, nextServed.isEmpty() ? "none" : nextServed);
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    LOG.warn("Shard {}: could not write its served ranges: {}", shard, e.toString());
                    scheduleRecheck();
                    return;
                }
                lease = access.read(); // someone wrote the Lease meanwhile: decide again on what it holds now
                latest = lease;
            }
        }
    }

    private boolean busyOutside(RangeSet ranges) {
        for (RangeTarget target : targets) {
            if (target.busyOutside(ranges, currentKey)) {
                return true;
            }
        }
        return false;
    }

    private void scheduleRecheck() {
        if (!recheckPending) {
            recheckPending = true;
            scheduler.accept(() -> executor.execute(() -> {
                recheckPending = false;
                step();
            }), recheck);
        }
    }
}
