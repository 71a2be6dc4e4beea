package dev.ringmaster.sharder.testing;

import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

/** Serves API discovery, which the mock server's CRUD mode does not. */
public final class TestDiscovery {

    /** A core (v1) resource as discovery lists it. */
    public record Resource(String plural, String kind, boolean namespaced) {
    }

    public static final Resource CONFIG_MAPS = new Resource("configmaps", "ConfigMap", true);
    public static final Resource SECRETS = new Resource("secrets", "Secret", true);
    public static final Resource PERSISTENT_VOLUMES = new Resource("persistentvolumes", "PersistentVolume", false);

    private TestDiscovery() {
    }

    /** Answers {@code GET /api/v1} with these resources, for as long as the server runs. */
    public static void serveCoreV1(KubernetesMockServer server, Resource... resources) {
        APIResourceListBuilder list = new APIResourceListBuilder().withGroupVersion("v1");
        for (Resource resource : resources) {
            list.addNewResource().withName(resource.plural()).withKind(resource.kind())
                    .withNamespaced(resource.namespaced()).endResource();
        }
        server.expect().get().withPath("/api/v1").andReturn(200, list.build()).always();
    }
}
