package dev.ringmaster.shard.josdk;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.ResourceAction;
import io.javaoperatorsdk.operator.processing.event.source.controller.ResourceEvent;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tells each range-mode controller's {@link RangeScope} which of its primaries JOSDK received an event for and has
 * not submitted since. JOSDK drops an event it takes while the informers of a change of ranges list again (the object
 * is in no cache then): an update that came during a reconcile, a retry's timer, a reschedule's. The list's add of
 * such an object is its only way back, whatever its version. A {@link Metrics}: the one hook JOSDK calls for every
 * event it receives and every execution it submits.
 */
final class PendingEvents implements Metrics {

    private final Map<String, RangeScope<?>> scopes = new ConcurrentHashMap<>();

    void register(String controller, RangeScope<?> scope) {
        scopes.put(controller, scope);
    }

    @Override
    public void eventReceived(Event event, Map<String, Object> metadata) {
        RangeScope<?> scope = scope(metadata);
        if (scope == null) {
            return;
        }
        if (event instanceof ResourceEvent resourceEvent && resourceEvent.getAction() == ResourceAction.DELETED) {
            scope.settled(event.getRelatedCustomResourceID()); // JOSDK forgets the object; so does the scope
        } else {
            scope.pending(event.getRelatedCustomResourceID());
        }
    }

    @Override
    public void reconciliationSubmitted(HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
        RangeScope<?> scope = scope(metadata);
        if (scope != null) {
            scope.settled(ResourceID.fromResource(resource));
        }
    }

    private RangeScope<?> scope(Map<String, Object> metadata) {
        Object controller = metadata == null ? null : metadata.get(Constants.CONTROLLER_NAME);
        return controller == null ? null : scopes.get(controller.toString());
    }
}
