package dev.ringmaster.ring.spi;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingResource;
import org.osgi.annotation.versioning.ConsumerType;

/** Derives the partition key of an object; objects with equal keys share a shard. */
@ConsumerType
public interface ResourceInterpreter {

    /** Service property carrying the interpreter's name. */
    String NAME = "name";

    /**
     * @param object   the object to key
     * @param resource the ring resource the object belongs to, with its role in the ring
     */
    PartitionKey keyFor(ObjectReference object, RingResource resource);
}
