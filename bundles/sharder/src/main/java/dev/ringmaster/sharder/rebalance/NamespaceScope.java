package dev.ringmaster.sharder.rebalance;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.sharder.kube.LabelSelectors;
import dev.ringmaster.sharder.model.RingSpec;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Namespace;
import java.util.Collection;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Which objects a ring covers, by the same rule as the ring's webhook namespaceSelector
 * ({@link RingSpec#namespaceSelectorOrDefault()}): objects in matching namespaces, Namespace
 * objects that match themselves, and every other cluster-scoped object.
 */
public final class NamespaceScope {

    private final Supplier<Collection<Namespace>> namespaces;

    /** @param namespaces the cluster's namespaces, typically an informer's cache */
    public NamespaceScope(Supplier<Collection<Namespace>> namespaces) {
        this.namespaces = namespaces;
    }

    /** The objects in scope now of a ring with this namespace selector ({@code RingView#namespaceSelector}). */
    public Predicate<ObjectReference> matching(LabelSelector selector) {
        Set<String> names = namespaces.get().stream()
                .filter(namespace -> LabelSelectors.matches(selector, namespace.getMetadata().getLabels()))
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
