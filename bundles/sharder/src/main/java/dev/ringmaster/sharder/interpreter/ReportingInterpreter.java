package dev.ringmaster.sharder.interpreter;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.kube.ObjectEvents;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;

/**
 * Passes keys through from the interpreter in force, and reports objects it cannot key as a
 * Warning event on the object (once per object and reason), so users see why an object stays
 * unassigned instead of finding it only in the sharder's log.
 */
public final class ReportingInterpreter implements ResourceInterpreter {

    static final String REASON = "ShardingSkipped";

    private final ResourceInterpreter delegate;
    private final ObjectEvents events;

    public ReportingInterpreter(ResourceInterpreter delegate, ObjectEvents events) {
        this.delegate = delegate;
        this.events = events;
    }

    @Override
    public PartitionKey keyFor(ObjectReference object, RingResource resource) {
        PartitionKey key = delegate.keyFor(object, resource);
        if (key instanceof PartitionKey.Invalid invalid) {
            events.warnOnce(new ObjectReferenceBuilder()
                    .withApiVersion(object.group().isEmpty() ? object.version() : object.group() + "/" + object.version())
                    .withKind(object.kind()).withNamespace(object.namespace()).withName(object.name()).build(),
                    REASON, "Assign", "not assigned to a shard: " + invalid.message());
        }
        return key;
    }
}
