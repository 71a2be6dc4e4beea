package dev.ringmaster.shard.josdk;

import dev.ringmaster.shard.client.ShardLabels;
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
import java.time.Duration;
import java.util.List;

/**
 * What JOSDK calls in place of the user's reconciler: the user's code runs only while the shard
 * holds its Lease (fencing) and only for objects of this shard that are not being drained (those go
 * to {@link HandBacks}). A fenced call is rescheduled, so nothing that arrived meanwhile is lost.
 */
class ShardGatedReconciler<P extends HasMetadata> implements Reconciler<P> {

    final Reconciler<P> user;
    final ShardLease lease;
    final ShardLabels labels;
    final HandBacks<P> handBacks;
    final Duration fencedRetry;

    ShardGatedReconciler(Reconciler<P> user, ShardLease lease, ShardLabels labels, HandBacks<P> handBacks,
                         Duration fencedRetry) {
        this.user = user;
        this.lease = lease;
        this.labels = labels;
        this.handBacks = handBacks;
        this.fencedRetry = fencedRetry;
    }

    /** The wrapper for {@code user}: one that is also a {@link Cleaner} if the user's is (JOSDK then uses a finalizer). */
    static <P extends HasMetadata> ShardGatedReconciler<P> wrap(Reconciler<P> user, ShardLease lease,
            ShardLabels labels, HandBacks<P> handBacks, Duration fencedRetry) {
        return user instanceof Cleaner<?>
                ? new WithCleaner<>(user, lease, labels, handBacks, fencedRetry)
                : new ShardGatedReconciler<>(user, lease, labels, handBacks, fencedRetry);
    }

    /** Whether the user's code may run for {@code resource}, the Lease held; if it is drained, its hand-back is queued. */
    boolean mayRun(P resource) {
        return labels.owns(resource.getMetadata().getLabels()) && !handBacks.submit(resource);
    }

    @Override
    public UpdateControl<P> reconcile(P resource, Context<P> context) throws Exception {
        if (!lease.isHeld()) {
            return UpdateControl.<P>noUpdate().rescheduleAfter(fencedRetry);
        }
        return mayRun(resource) ? user.reconcile(resource, context) : UpdateControl.noUpdate();
    }

    @Override
    public List<EventSource<?, P>> prepareEventSources(EventSourceContext<P> context) {
        handBacks.primaries(context.getPrimaryCache());
        return user.prepareEventSources(context);
    }

    @Override
    public ErrorStatusUpdateControl<P> updateErrorStatus(P resource, Context<P> context, Exception e) {
        return user.updateErrorStatus(resource, context, e);
    }

    /** For a user's reconciler that is a {@link Cleaner}: its clean-up is gated the same way. */
    static final class WithCleaner<P extends HasMetadata> extends ShardGatedReconciler<P> implements Cleaner<P> {

        WithCleaner(Reconciler<P> user, ShardLease lease, ShardLabels labels, HandBacks<P> handBacks,
                    Duration fencedRetry) {
            super(user, lease, labels, handBacks, fencedRetry);
        }

        @Override
        @SuppressWarnings("unchecked")
        public DeleteControl cleanup(P resource, Context<P> context) throws Exception {
            if (!lease.isHeld()) {
                return DeleteControl.noFinalizerRemoval().rescheduleAfter(fencedRetry);
            }
            // a drained object keeps its finalizer: the shard it moves to cleans up
            return mayRun(resource) ? ((Cleaner<P>) user).cleanup(resource, context) : DeleteControl.noFinalizerRemoval();
        }
    }
}
