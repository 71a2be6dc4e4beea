package dev.ringmaster.sharder.interpreter;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.model.ClusterRingSpec;
import dev.ringmaster.sharder.model.GroupResource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Which resource interpreter keys which objects of a ring: the one a ring resource names
 * ({@code spec.resources[].interpreter}), else the sharder's default. A ring whose interpreters are
 * not all deployed has none, so nothing of it moves until they are (as with a missing strategy).
 */
public final class RingInterpreters {

    private final Function<String, ResourceInterpreter> bound;
    private final Supplier<String> defaultName;

    /**
     * @param bound       the interpreter service of a name, {@code null} if none is bound now
     * @param defaultName the name of the sharder's default interpreter
     */
    public RingInterpreters(Function<String, ResourceInterpreter> bound, Supplier<String> defaultName) {
        this.bound = bound;
        this.defaultName = defaultName;
    }

    /** The interpreter keying the ring's objects, resource by resource; empty while one is missing. */
    public Optional<ResourceInterpreter> forRing(ClusterRingSpec spec) {
        Map<GroupResource, ResourceInterpreter> byResource = new LinkedHashMap<>();
        for (Map.Entry<GroupResource, String> entry : spec.interpretersByResource().entrySet()) {
            ResourceInterpreter interpreter = bound.apply(nameOf(entry.getValue()));
            if (interpreter == null) {
                return Optional.empty();
            }
            byResource.put(entry.getKey(), interpreter);
        }
        return Optional.of((ObjectReference object, RingResource resource) -> {
            ResourceInterpreter interpreter = byResource.get(new GroupResource(resource.group(), resource.resource()));
            return interpreter == null
                    ? PartitionKey.notAssigned("resource " + resource.resource() + " is not part of the ring")
                    : interpreter.keyFor(object, resource);
        });
    }

    /** The names of the interpreters the ring needs that are not deployed, sorted. */
    public Set<String> missing(ClusterRingSpec spec) {
        Set<String> missing = new TreeSet<>();
        for (String name : spec.interpretersByResource().values()) {
            if (bound.apply(nameOf(name)) == null) {
                missing.add(nameOf(name));
            }
        }
        return missing;
    }

    private String nameOf(String requested) {
        return requested.isEmpty() ? defaultName.get() : requested;
    }
}
