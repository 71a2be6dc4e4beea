package dev.ringmaster.sharder.rebalance;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.sharder.kube.LabelSelectors;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Namespace;
import java.util.Collection;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Which objects a ring's namespace selector covers, matching the webhook's namespaceSelector: objects
 * in matching namespaces, Namespace objects that match themselves, and every other cluster-scoped
 * object. Without a selector, every namespace but kube-system and sharding-system.
 */
public final class NamespaceScope {

    static final Set<String> EXCLUDED_BY_DEFAULT = Set.of("kube-system", RingContract.SYSTEM_NAMESPACE);

    private final Supplier<Collection<Namespace>> namespaces;

    /** @param namespaces the cluster's namespaces, typically an informer's cache */
    public NamespaceScope(Supplier<Collection<Namespace>> namespaces) {
        this.namespaces = namespaces;
    }

    /** The objects in scope now, for a ring's namespace selector (null: the default scope). */
    public Predicate<ObjectReference> matching(LabelSelector selector) {
        Set<String> names = namespaces.get().stream()
                .filter(namespace -> selector == null
                        ? !EXCLUDED_BY_DEFAULT.contains(namespace.getMetadata().getName())
                        : LabelSelectors.matches(selector, namespace.getMetadata().getLabels()))
                .map(namespace -> namespace.getMetadata().getName())
                .collect(Collectors.toUnmodifiableSet());
        return object -> {
            if (!object.namespace().isEmpty()) {
                return names.contains(object.namespace());
            }
            boolean isNamespace = object.group().isEmpty() && Namespace.class.getSimpleName().equals(object.kind());
            return !isNamespace || names.contains(object.name());
        };
    }
}
