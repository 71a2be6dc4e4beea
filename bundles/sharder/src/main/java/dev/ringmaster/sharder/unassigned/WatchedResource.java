package dev.ringmaster.sharder.unassigned;

import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.model.RingKey;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One resource of one ring, watched for objects without the ring's shard label. */
public record WatchedResource(RingKey ring, ResolvedResource resource, Role role) {

    private static final Logger LOG = LoggerFactory.getLogger(WatchedResource.class);

    /**
     * An informer of the resource's objects in every namespace that match {@code selector}, not started. A failed
     * list or watch is retried with fabric8's backoff: fabric8 gives up when the first list fails (a 403 before
     * the RBAC is applied, an API server busy or briefly away), which would leave the ring unwatched for the term.
     */
    SharedIndexInformer<GenericKubernetesResource> informer(KubernetesClient client, String selector) {
        return client.genericKubernetesResources(resource.context()).inAnyNamespace().withLabelSelector(selector)
                .runnableInformer(0)
                .exceptionHandler((started, failure) -> {
                    LOG.warn("{}: watching {} ({}) failed, retrying: {}", ring, resource.collectionPath(), selector,
                            failure.toString());
                    return true;
                });
    }

    /** Keeps exactly the {@code wanted} resources' watches: closes those of the others, starts the new ones. */
    static <W> void sync(Map<WatchedResource, W> watches, Set<WatchedResource> wanted,
                         Function<WatchedResource, W> start, Consumer<W> close) {
        watches.entrySet().removeIf(entry -> {
            if (wanted.contains(entry.getKey())) {
                return false;
            }
            close.accept(entry.getValue());
            return true;
        });
        for (WatchedResource watched : wanted) {
            watches.computeIfAbsent(watched, start);
        }
    }
}
