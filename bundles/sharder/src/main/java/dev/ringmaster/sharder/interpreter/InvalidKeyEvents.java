package dev.ringmaster.sharder.interpreter;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.sharder.kube.ObjectEvents;
import dev.ringmaster.sharder.ring.RingView;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;

/**
 * Reports objects the ring's interpreter cannot key as a Warning event on the object (once per
 * object and reason), so users see why an object stays unassigned instead of finding it only in
 * the sharder's log.
 */
public final class InvalidKeyEvents implements RingView.InvalidKeys {

    static final String REASON = "ShardingSkipped";

    private final ObjectEvents events;

    public InvalidKeyEvents(ObjectEvents events) {
        this.events = events;
    }

    @Override
    public void skipped(ObjectReference object, PartitionKey.Invalid invalid) {
        events.warnOnce(new ObjectReferenceBuilder()
                .withApiVersion(object.group().isEmpty() ? object.version() : object.group() + "/" + object.version())
                .withKind(object.kind()).withNamespace(object.namespace()).withName(object.name()).build(),
                REASON, "Assign", "not assigned to a shard: " + invalid.message());
    }
}
