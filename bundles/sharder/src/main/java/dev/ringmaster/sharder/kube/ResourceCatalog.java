package dev.ringmaster.sharder.kube;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves a ring's {@code group + resource} to version, kind and scope through API discovery, as
 * the reference sharder's REST mapper does. Answers are cached; a resource that is not served (yet)
 * is asked again next time, so installing a CRD later just works.
 */
public final class ResourceCatalog {

    private final KubernetesClient client;
    private final Map<String, ResolvedResource> resolved = new ConcurrentHashMap<>();

    public ResourceCatalog(KubernetesClient client) {
        this.client = client;
    }

    /** The resource in its group's preferred version, or empty if the API server does not serve it. */
    public Optional<ResolvedResource> resolve(String group, String resource) {
        String cacheKey = group + "/" + resource;
        ResolvedResource known = resolved.get(cacheKey);
        if (known != null) {
            return Optional.of(known);
        }
        Optional<ResolvedResource> found = discover(group, resource);
        found.ifPresent(value -> resolved.put(cacheKey, value));
        return found;
    }

    private Optional<ResolvedResource> discover(String group, String resource) {
        String version;
        if (group.isEmpty()) {
            version = "v1";
        } else {
            APIGroup apiGroup = client.getApiGroup(group);
            if (apiGroup == null || apiGroup.getPreferredVersion() == null) {
                return Optional.empty();
            }
            version = apiGroup.getPreferredVersion().getVersion();
        }
        APIResourceList resources = client.getApiResources(group.isEmpty() ? version : group + "/" + version);
        if (resources == null || resources.getResources() == null) {
            return Optional.empty();
        }
        for (APIResource candidate : resources.getResources()) {
            if (resource.equals(candidate.getName())) {
                return Optional.of(new ResolvedResource(group, version, resource, candidate.getKind(),
                        Boolean.TRUE.equals(candidate.getNamespaced())));
            }
        }
        return Optional.empty();
    }
}
