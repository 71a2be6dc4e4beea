package dev.ringmaster.sharder.unassigned;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.sharder.kube.LabelWriter;
import dev.ringmaster.sharder.rebalance.MoveRecorder;
import dev.ringmaster.sharder.rebalance.NamespaceScope;
import dev.ringmaster.sharder.ring.Move;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.runtime.Reconciler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * Assigns an object the webhook did not label — webhook down or switched off, or a drain just
 * acknowledged — with one optimistic write. Level-based: it re-reads the object from the watch's
 * cache, which holds only unassigned objects.
 */
public final class UnassignedAssigner implements Reconciler<UnassignedObject> {

    /** After a conflict the object changed; its new version arrives as an event, this is the backstop. */
    static final Duration AFTER_CONFLICT = Duration.ofMillis(200);

    private final Function<UnassignedObject, Optional<HasMetadata>> cache;
    private final RingRegistry registry;
    private final RingView.InvalidKeys invalidKeys;
    private final NamespaceScope namespaces;
    private final LabelWriter writer;
    private final MoveRecorder recorder;

    public UnassignedAssigner(Function<UnassignedObject, Optional<HasMetadata>> cache, RingRegistry registry,
            RingView.InvalidKeys invalidKeys, NamespaceScope namespaces, LabelWriter writer, MoveRecorder recorder) {
        this.cache = cache;
        this.registry = registry;
        this.invalidKeys = invalidKeys;
        this.namespaces = namespaces;
        this.writer = writer;
        this.recorder = recorder;
    }

    @Override
    public Result reconcile(UnassignedObject key) {
        WatchedResource watched = key.watched();
        Optional<HasMetadata> object = cache.apply(key);
        Optional<RingView> ring = registry.view(watched.ring());
        if (object.isEmpty() || ring.isEmpty() || !ring.get().canAct()) {
            // assigned or deleted meanwhile, ring gone, invalid, no strategy or interpreter: a later
            // event (or the ring's requeue when they return) brings it back
            return Result.done();
        }
        ObjectReference reference = watched.resource().reference(object.get().getMetadata());
        if (!namespaces.matching(ring.get().namespaceSelector()).test(reference)) {
            return Result.done();
        }
        Move move = ring.get().moveOf(reference, new RingResource(watched.resource().group(),
                watched.resource().resource(), watched.role()), invalidKeys);
        if (!(move instanceof Move.Assign)) {
            return Result.done();
        }
        LabelWriter.Outcome outcome = writer.write(watched.resource(), reference.namespace(), reference.name(),
                object.get().getMetadata().getResourceVersion(), ring.get().labelChanges(move, reference));
        if (outcome == LabelWriter.Outcome.WRITTEN) {
            recorder.written(watched.ring(), watched.resource(), move);
        }
        return outcome == LabelWriter.Outcome.CONFLICT ? Result.requeueAfter(AFTER_CONFLICT) : Result.done();
    }
}
