package dev.ringmaster.plugins.namespace;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.OwnerReference;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import java.util.Optional;
import org.osgi.service.component.annotations.Component;

/**
 * Resource interpreter {@value #NAME}: the partition key of a namespaced object is its namespace, so
 * every object of a namespace (main or controlled, whatever its kind) lands on the same shard, and a
 * shard owns whole namespaces.
 *
 * <ul>
 *   <li>Namespaced objects, main or controlled: the namespace name. Neither a name nor a controller
 *       is needed, so {@code generateName} alone is fine and a controlled object without controller
 *       is assigned too (it stays with the rest of its namespace).
 *   <li>A {@code Namespace} (core group) object: its own name, so a sharded Namespace lands on the
 *       shard of the objects it contains.
 *   <li>Other cluster-scoped objects have no namespace: they are keyed as the default interpreter keys
 *       them (docs/design.md section 4): {@code group/Kind//name} for a main object (which therefore needs a
 *       name), the controller's key for a controlled object (a {@code Namespace} controller: its name),
 *       and no controller means not assigned.
 * </ul>
 *
 * Keys of the two kinds cannot collide: a namespace name is a DNS label and never contains the
 * {@code '/'} that every {@code group/Kind//name} key has.
 */
@Component(property = ResourceInterpreter.NAME + "=" + NamespaceInterpreter.NAME)
public class NamespaceInterpreter implements ResourceInterpreter {

    /** The service's {@value ResourceInterpreter#NAME}, as rings and the sharder's configuration select it. */
    public static final String NAME = "namespace";

    @Override
    public PartitionKey keyFor(ObjectReference object, RingResource resource) {
        if (!object.namespace().isEmpty()) {
            return PartitionKey.key(object.namespace());
        }
        return switch (resource.role()) {
            case MAIN -> clusterScopedMainKey(object);
            case CONTROLLED -> clusterScopedControlledKey(object);
        };
    }

    private static PartitionKey clusterScopedMainKey(ObjectReference object) {
        if (object.name().isEmpty()) {
            return PartitionKey.invalid(object.generateName().isEmpty()
                    ? "the cluster-scoped object has no name to derive its shard from"
                    : "cluster-scoped objects of a ring keyed by namespace need a name: they have no namespace,"
                            + " and with generateName alone (\"" + object.generateName() + "\") the shard cannot"
                            + " be computed before the API server picks the name; set metadata.name");
        }
        if (isNamespace(object.group(), object.kind())) {
            return PartitionKey.key(object.name());
        }
        return PartitionKey.key(clusterScopedKey(object.group(), object.kind(), object.name()));
    }

    private static PartitionKey clusterScopedControlledKey(ObjectReference object) {
        Optional<OwnerReference> controller = object.controller();
        if (controller.isEmpty()) {
            return PartitionKey.notAssigned("the cluster-scoped object has no namespace and no controller owner"
                    + " reference");
        }
        OwnerReference owner = controller.get();
        return PartitionKey.key(isNamespace(owner.group(), owner.kind())
                ? owner.name()
                : clusterScopedKey(owner.group(), owner.kind(), owner.name()));
    }

    private static boolean isNamespace(String group, String kind) {
        return group.isEmpty() && "Namespace".equals(kind);
    }

    /** The default interpreter's key of a cluster-scoped object: {@code group/Kind//name}. */
    static String clusterScopedKey(String group, String kind, String name) {
        return group + "/" + kind + "//" + name;
    }
}
