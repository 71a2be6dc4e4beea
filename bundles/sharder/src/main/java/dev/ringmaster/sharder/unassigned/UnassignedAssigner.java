package dev.ringmaster.sharder.unassigned;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.RingSnapshot;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.kube.LabelWriter;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.rebalance.Move;
import dev.ringmaster.sharder.rebalance.MoveRecorder;
import dev.ringmaster.sharder.rebalance.NamespaceScope;
import dev.ringmaster.sharder.rebalance.Placement;
import dev.ringmaster.sharder.ring.RingRegistry;
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
    private final Function<String, Optional<ClusterRing>> rings;
    private final RingRegistry registry;
    private final Function<ClusterRing, Optional<ResourceInterpreter>> interpreter;
    private final NamespaceScope namespaces;
    private final LabelWriter writer;
    private final MoveRecorder recorder;

    public UnassignedAssigner(Function<UnassignedObject, Optional<HasMetadata>> cache,
            Function<String, Optional<ClusterRing>> rings, RingRegistry registry,
            Function<ClusterRing, Optional<ResourceInterpreter>> interpreter, NamespaceScope namespaces, LabelWriter writer,
            MoveRecorder recorder) {
        this.cache = cache;
        this.rings = rings;
        this.registry = registry;
        this.interpreter = interpreter;
        this.namespaces = namespaces;
        this.writer = writer;
        this.recorder = recorder;
    }

    @Override
    public Result reconcile(UnassignedObject key) {
        WatchedResource watched = key.watched();
        Optional<HasMetadata> object = cache.apply(key);
        Optional<ClusterRing> ring = rings.apply(watched.ring());
        Optional<RingSnapshot> snapshot = registry.snapshot(watched.ring());
        Optional<ResourceInterpreter> keys = ring.flatMap(interpreter);
        if (object.isEmpty() || ring.isEmpty() || snapshot.isEmpty() || keys.isEmpty()) {
            // assigned or deleted meanwhile, ring gone, no strategy or interpreter: a later event
            // (or the ring's requeue when they return) brings it back
            return Result.done();
        }
        ObjectReference reference = watched.resource().reference(object.get().getMetadata());
        if (!namespaces.matching(ring.get().getSpec()).test(reference)) {
            return Result.done();
        }
        Placement placement = new Placement(snapshot.get(), keys.get());
        Move move = placement.moveOf(reference, new RingResource(watched.resource().group(),
                watched.resource().resource(), watched.role()));
        if (!(move instanceof Move.Assign)) {
            return Result.done();
        }
        LabelWriter.Outcome outcome = writer.write(watched.resource(), reference.namespace(), reference.name(),
                object.get().getMetadata().getResourceVersion(), placement.labelChanges(move, reference));
        if (outcome == LabelWriter.Outcome.WRITTEN) {
            recorder.written(watched.ring(), watched.resource(), move);
        }
        return outcome == LabelWriter.Outcome.CONFLICT ? Result.requeueAfter(AFTER_CONFLICT) : Result.done();
    }
}
