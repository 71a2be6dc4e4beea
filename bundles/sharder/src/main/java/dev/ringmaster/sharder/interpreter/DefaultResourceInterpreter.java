package dev.ringmaster.sharder.interpreter;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.OwnerReference;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import java.util.Optional;
import org.osgi.service.component.annotations.Component;

/**
 * The reference sharder's partition keys (docs/design.md section 4): a main object is keyed
 * {@code group/Kind/namespace/name} ({@link RingContract#partitionKey}); a controlled object takes the key of its controlling owner,
 * so owner and children share a shard.
 */
@Component(property = ResourceInterpreter.NAME + "=" + DefaultResourceInterpreter.NAME)
public class DefaultResourceInterpreter implements ResourceInterpreter {

    public static final String NAME = "default";

    @Override
    public PartitionKey keyFor(ObjectReference object, RingResource resource) {
        return switch (resource.role()) {
            case MAIN -> mainKey(object);
            case CONTROLLED -> controlledKey(object);
        };
    }

    private static PartitionKey mainKey(ObjectReference object) {
        if (object.name().isEmpty()) {
            return PartitionKey.invalid(object.generateName().isEmpty()
                    ? "the object has no name to derive its shard from"
                    : "objects of a sharded main resource need a name: with generateName alone (\""
                            + object.generateName() + "\") the shard cannot be computed before the API server "
                            + "picks the name; set metadata.name");
        }
        return PartitionKey.key(RingContract.partitionKey(object.group(), object.kind(), object.namespace(), object.name()));
    }

    private static PartitionKey controlledKey(ObjectReference object) {
        Optional<OwnerReference> controller = object.controller();
        return controller
                .map(owner -> PartitionKey.key(RingContract.partitionKey(owner.group(), owner.kind(), object.namespace(), owner.name())))
                .orElseGet(() -> PartitionKey.notAssigned("the object has no controller owner reference"));
    }
}
