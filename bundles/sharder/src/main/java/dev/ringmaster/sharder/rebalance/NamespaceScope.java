package dev.ringmaster.sharder.rebalance;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingContract;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Which objects a ring's namespace selector covers, matching the webhook's namespaceSelector: objects
 * in matching namespaces, Namespace objects that match themselves, and every other cluster-scoped
 * object. Without a selector, every namespace but kube-system and sharding-system.
 */
public final class NamespaceScope {

    static final Set<String> EXCLUDED_BY_DEFAULT = Set.of("kube-system", RingContract.SYSTEM_NAMESPACE);

    private final KubernetesClient client;

    public NamespaceScope(KubernetesClient client) {
        this.client = client;
    }

    /** The objects in scope now; namespaces are listed once per call. */
    public Predicate<ObjectReference> matching(LabelSelector selector) {
        Set<String> names = (selector == null
                ? client.namespaces().list()
                : client.namespaces().withLabelSelector(selector).list())
                .getItems().stream().map(namespace -> namespace.getMetadata().getName())
                .filter(name -> selector != null || !EXCLUDED_BY_DEFAULT.contains(name))
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
