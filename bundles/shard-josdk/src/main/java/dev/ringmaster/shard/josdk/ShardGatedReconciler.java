package dev.ringmaster.shard.josdk;

import dev.ringmaster.shard.client.ShardLease;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What JOSDK calls in place of the user's reconciler: the user's code runs only while the shard
 * holds its Lease (fencing) and only for objects of this shard: in label mode those labelled for it
 * and not being drained (those go to {@link HandBacks}), in range mode those whose hash lies in the
 * ranges served now ({@link RangeScope}). A fenced call is rescheduled, so nothing that arrived
 * meanwhile is lost; a refused object is not (it is another shard's).
 *
 * <p>The user's reconciles and clean-ups are timed into the shard's load meter ({@link LoadTimer}: their duration
 * against the object, and the wait since JOSDK submitted the execution; JOSDK gives no hook for when an event
 * queued the object, so the wait before the submission is not measured).
 */
class ShardGatedReconciler<P extends HasMetadata> implements Reconciler<P> {

    final Reconciler<P> user;
    final ShardLease lease;
    /** Whether the user's code may run for an object, the Lease held (label mode: queues a drained one's hand-back). */
    final Predicate<P> admits;
    /** Told each object the user's reconciler completed (range mode: {@link RangeScope#reconciled}). */
    final Consumer<P> completed;
    /** Told JOSDK's cache of the primaries when JOSDK prepares the event sources. */
    final Consumer<IndexerResourceCache<P>> primaries;
    final Duration fencedRetry;
    final LoadTimer timer;

    ShardGatedReconciler(Reconciler<P> user, ShardLease lease, Predicate<P> admits, Consumer<P> completed,
                         Consumer<IndexerResourceCache<P>> primaries, Duration fencedRetry, LoadTimer timer) {
        this.timer = timer;
        this.user = user;
        this.lease = lease;
        this.admits = admits;
        this.completed = completed;
        this.primaries = primaries;
        this.fencedRetry = fencedRetry;
    }

    /** The wrapper for {@code user}: one that is also a {@link Cleaner} if the user's is (JOSDK then uses a finalizer). */
    static <P extends HasMetadata> ShardGatedReconciler<P> wrap(Reconciler<P> user, ShardLease lease,
            Predicate<P> admits, Consumer<P> completed, Consumer<IndexerResourceCache<P>> primaries, Duration fencedRetry,
            LoadTimer timer) {
        return user instanceof Cleaner<?>
                ? new WithCleaner<>(user, lease, admits, completed, primaries, fencedRetry, timer)
                : new ShardGatedReconciler<>(user, lease, admits, completed, primaries, fencedRetry, timer);
    }

    boolean mayRun(P resource) {
        return admits.test(resource);
    }

    @Override
    public UpdateControl<P> reconcile(P resource, Context<P> context) throws Exception {
        if (!lease.isHeld()) {
            return UpdateControl.<P>noUpdate().rescheduleAfter(fencedRetry);
        }
        if (!mayRun(resource)) {
            return UpdateControl.noUpdate();
        }
        UpdateControl<P> control = timer.time(resource, () -> user.reconcile(resource, context));
        completed.accept(resource);
        return control;
    }

    @Override
    public List<EventSource<?, P>> prepareEventSources(EventSourceContext<P> context) {
        primaries.accept(context.getPrimaryCache());
        return user.prepareEventSources(context);
    }

    @Override
    public ErrorStatusUpdateControl<P> updateErrorStatus(P resource, Context<P> context, Exception e) {
        return user.updateErrorStatus(resource, context, e);
    }

    /** For a user's reconciler that is a {@link Cleaner}: its clean-up is gated the same way. */
    static final class WithCleaner<P extends HasMetadata> extends ShardGatedReconciler<P> implements Cleaner<P> {

        WithCleaner(Reconciler<P> user, ShardLease lease, Predicate<P> admits, Consumer<P> completed,
                    Consumer<IndexerResourceCache<P>> primaries, Duration fencedRetry, LoadTimer timer) {
            super(user, lease, admits, completed, primaries, fencedRetry, timer);
        }

        @Override
        @SuppressWarnings("unchecked")
        public DeleteControl cleanup(P resource, Context<P> context) throws Exception {
            if (!lease.isHeld()) {
                return DeleteControl.noFinalizerRemoval().rescheduleAfter(fencedRetry);
            }
            // a drained object, or one outside the ranges, keeps its finalizer: the shard it moves to cleans up
            return mayRun(resource) ? timer.time(resource, () -> ((Cleaner<P>) user).cleanup(resource, context))
                    : DeleteControl.noFinalizerRemoval();
        }
    }
}
