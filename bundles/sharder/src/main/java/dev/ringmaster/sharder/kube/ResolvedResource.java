package dev.ringmaster.sharder.kube;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.OwnerReference;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A resource as discovery describes it.
 *
 * @param group      API group, empty for core
 * @param version    the group's preferred version
 * @param resource   plural name, e.g. {@code configmaps}
 * @param kind       e.g. {@code ConfigMap}
 * @param namespaced whether objects live in namespaces
 */
public record ResolvedResource(String group, String version, String resource, String kind, boolean namespaced) {

    public ResolvedResource {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(kind, "kind");
    }

    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    /** The fabric8 context for generic clients, so fabric8 need not guess the plural. */
    public ResourceDefinitionContext context() {
        return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withPlural(resource)
                .withKind(kind).withNamespaced(namespaced).build();
    }

    /** The collection path across all namespaces, e.g. {@code /apis/apps/v1/deployments}. */
    public String collectionPath() {
        return (group.isEmpty() ? "/api/" : "/apis/") + apiVersion() + "/" + resource;
    }


    /** What a resource interpreter sees of an object of this resource. */
    public ObjectReference reference(ObjectMeta metadata) {
        return new ObjectReference(group, version, kind, metadata.getNamespace(), metadata.getName(),
                metadata.getGenerateName(), labelsWithValues(metadata.getLabels()),
                metadata.getOwnerReferences() == null ? null : metadata.getOwnerReferences().stream()
                        .map(owner -> new OwnerReference(owner.getApiVersion(), owner.getKind(), owner.getName(),
                                Boolean.TRUE.equals(owner.getController())))
                        .toList());
    }

    /** A label without a value is no label (the API server never stores one; lenient servers might). */
    private static Map<String, String> labelsWithValues(Map<String, String> labels) {
        if (labels == null || !labels.containsValue(null)) {
            return labels;
        }
        Map<String, String> withValues = new HashMap<>(labels);
        withValues.values().removeIf(Objects::isNull);
        return withValues;
    }
}
