package dev.ringmaster.sharder.kube;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/** Creates namespaces as a real API server presents them, which the mock server does not do alone. */
public final class TestNamespaces {

    private TestNamespaces() {
    }

    /** A namespace with its labels and the {@code kubernetes.io/metadata.name} label every server sets. */
    public static void create(KubernetesClient client, String name, Map<String, String> labels) {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
                .addToLabels(labels).addToLabels("kubernetes.io/metadata.name", name).endMetadata().build()).create();
    }
}
