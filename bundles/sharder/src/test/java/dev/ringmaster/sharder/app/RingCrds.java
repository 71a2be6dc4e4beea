package dev.ringmaster.sharder.app;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.InputStream;
import java.time.Duration;

/** The ClusterRing CRD on a real API server, as the build generates it, for the sharder's real-server tests. */
final class RingCrds {

    static final String CLUSTER_RING_CRD = "clusterrings.sharding.timebertt.dev";
    static final ResourceDefinitionContext CLUSTER_RINGS = new ResourceDefinitionContext.Builder()
            .withGroup("sharding.timebertt.dev").withVersion("v1alpha1").withPlural("clusterrings").withKind("ClusterRing")
            .withNamespaced(false).build();

    private RingCrds() {
    }

    /** Applies the ClusterRing CRD and waits until the API server serves ClusterRings. */
    static void installClusterRings(KubernetesClient admin) throws Exception {
        try (InputStream yaml = RingCrds.class.getClassLoader()
                .getResourceAsStream("META-INF/fabric8/" + CLUSTER_RING_CRD + "-v1.yml")) {
            CustomResourceDefinition crd = admin.getKubernetesSerialization().unmarshal(yaml, CustomResourceDefinition.class);
            admin.apiextensions().v1().customResourceDefinitions().resource(crd).forceConflicts().serverSideApply();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            try {
                admin.genericKubernetesResources(CLUSTER_RINGS).list();
                return true;
            } catch (KubernetesClientException e) {
                return false;
            }
        });
    }
}
