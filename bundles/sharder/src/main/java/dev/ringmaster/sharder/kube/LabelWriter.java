package dev.ringmaster.sharder.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes the shard and drain labels of one object with a JSON merge patch that carries the
 * object's resourceVersion: the API server answers 409 Conflict if the object changed since it was
 * read, so a concurrent change (a shard acknowledging a drain, a user edit) always wins.
 */
public final class LabelWriter {

    /** How a write ended. */
    public enum Outcome {
        WRITTEN,
        /** The object changed since it was read; read it again and decide again. */
        CONFLICT,
        /** The object is gone; nothing to do. */
        GONE
    }

    private final KubernetesClient client;

    /** @param client the leader's fenced client ({@link WriteFence#guard}) */
    public LabelWriter(KubernetesClient client) {
        this.client = client;
    }

    /**
     * Sets or removes labels (a null value removes it) in one optimistic write.
     *
     * @throws KubernetesClientException for failures other than conflict and not found
     * @throws WriteFence.Closed           when this replica may no longer write
     */
    public Outcome write(ResolvedResource resource, String namespace, String name, String resourceVersion,
            Map<String, String> labels) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("resourceVersion", resourceVersion);
        metadata.put("labels", labels);
        String patch = client.getKubernetesSerialization().asJson(Map.of("metadata", metadata));
        // Patching through a stub of the object: fabric8's withName(..).patch(..) first GETs the whole
        // object just to learn its name, which doubled the requests of every move.
        GenericKubernetesResource stub = new GenericKubernetesResource();
        stub.setApiVersion(resource.apiVersion());
        stub.setKind(resource.kind());
        stub.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(resource.namespaced() ? namespace : null)
                .build());
        try {
            var objects = client.genericKubernetesResources(resource.context());
            (resource.namespaced() ? objects.inNamespace(namespace).resource(stub) : objects.resource(stub))
                    .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
            return Outcome.WRITTEN;
        } catch (KubernetesClientException e) {
            return switch (e.getCode()) {
                case HttpURLConnection.HTTP_CONFLICT -> Outcome.CONFLICT;
                case HttpURLConnection.HTTP_NOT_FOUND -> Outcome.GONE;
                default -> throw e;
            };
        }
    }
}
