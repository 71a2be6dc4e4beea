package dev.ringmaster.sharder.app;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The ring CRDs on a real API server, as the build generates them, and rings of them, for the sharder's
 * real-server tests. The contract's names are written out rather than taken from the code.
 */
final class RingCrds {

    static final String CLUSTER_RING_CRD = "clusterrings.sharding.timebertt.dev";
    static final String CONTROLLER_RING_CRD = "controllerrings.sharding.timebertt.dev";
    static final ResourceDefinitionContext CLUSTER_RINGS = rings(CLUSTER_RING_CRD);

    private RingCrds() {
    }

    /** The rings of a CRD, for generic API calls. */
    static ResourceDefinitionContext rings(String crd) {
        boolean cluster = crd.equals(CLUSTER_RING_CRD);
        return new ResourceDefinitionContext.Builder().withGroup("sharding.timebertt.dev").withVersion("v1alpha1")
                .withPlural(crd.substring(0, crd.indexOf('.'))).withKind(cluster ? "ClusterRing" : "ControllerRing")
                .withNamespaced(false).build();
    }

    /** Applies the CRD as the build generates it and waits until the API server serves its kind. */
    static void install(KubernetesClient admin, String crd) throws IOException {
        try (InputStream yaml = RingCrds.class.getClassLoader().getResourceAsStream("META-INF/fabric8/" + crd + "-v1.yml")) {
            CustomResourceDefinition definition = admin.getKubernetesSerialization()
                    .unmarshal(yaml, CustomResourceDefinition.class);
            admin.apiextensions().v1().customResourceDefinitions().resource(definition).forceConflicts().serverSideApply();
        }
        // a CRD just applied may answer otherwise than 404 before it is established
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> served(admin, crd));
    }

    /** Removes the CRD, if installed, and waits until its kind is no longer served. */
    static void remove(KubernetesClient admin, String crd) {
        admin.apiextensions().v1().customResourceDefinitions().withName(crd).delete();
        await().atMost(Duration.ofSeconds(60)).until(() -> !served(admin, crd));
    }

    /** Whether the API server serves the CRD's kind: false on 404, any other failure thrown. */
    static boolean served(KubernetesClient admin, String crd) {
        try {
            admin.genericKubernetesResources(rings(crd)).list();
            return true;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Applies the ring {@code kind/name} over the ConfigMaps of {@code namespace}, with {@code moreSpec}: further
     * fields of its spec, one YAML line each (e.g. {@code shardRestartGraceSeconds: 0}).
     */
    static void applyRing(KubernetesClient admin, String kind, String name, String namespace, String... moreSpec) {
        String more = Stream.of(moreSpec).map(line -> "  " + line + "\n").collect(Collectors.joining());
        admin.resource(admin.getKubernetesSerialization().unmarshal("""
                apiVersion: sharding.timebertt.dev/v1alpha1
                kind: %s
                metadata:
                  name: %s
                spec:
                  resources:
                  - group: ""
                    resource: configmaps
                  namespaceSelector:
                    matchLabels: {kubernetes.io/metadata.name: %s}
                """.formatted(kind, name, namespace) + more, GenericKubernetesResource.class))
                .forceConflicts().serverSideApply();
    }

    /** Deletes the ring of the CRD, if its kind is served: after a class, whether or not it got as far as installing it. */
    static void deleteRing(KubernetesClient admin, String crd, String name) {
        try {
            admin.genericKubernetesResources(rings(crd)).withName(name).delete();
        } catch (KubernetesClientException notServed) {
            // its CRD is not installed
        }
    }
}
