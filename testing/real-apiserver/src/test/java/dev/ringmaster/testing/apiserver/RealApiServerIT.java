package dev.ringmaster.testing.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class RealApiServerIT {

    private final RealApiServer cluster = RealApiServer.shared();

    @Test
    void runsTheMinorReleaseTheTierIsProvenOn() {
        assertThat(cluster.gitVersion()).startsWith("v1.32.");
    }

    @Test
    void aServiceAccountKubeconfigIsThatIdentityUnderRbacAndItsWritesAreAudited() {
        KubernetesClient admin = cluster.admin();
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("fixture").endMetadata().build())
                .serverSideApply();
        Path kubeconfig = cluster.serviceAccountKubeconfig("fixture", "nobody", cluster.workFolder("fixture").resolve("nobody"));
        try (KubernetesClient nobody = cluster.clientFor(kubeconfig)) {
            assertThatThrownBy(() -> nobody.configMaps().inNamespace("fixture").resource(new ConfigMapBuilder()
                    .withNewMetadata().withName("denied").endMetadata().build()).create())
                    .isInstanceOf(KubernetesClientException.class)
                    .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403));
        }
        admin.configMaps().inNamespace("fixture").resource(new ConfigMapBuilder()
                .withNewMetadata().withName("allowed").endMetadata().build()).create();

        List<AuditLog.Event> events = cluster.audit().events();
        assertThat(events).anySatisfy(event -> {
            assertThat(event.user()).isEqualTo("system:serviceaccount:fixture:nobody");
            assertThat(event.verb()).isEqualTo("create");
            assertThat(event.namespace()).isEqualTo("fixture");
            assertThat(event.code()).isEqualTo(403);
            assertThat(event.credentialId()).contains(cluster.credentialId(kubeconfig));
        });
        assertThat(events).anySatisfy(event -> {
            assertThat(event.user()).isEqualTo("kubeapitest");
            assertThat(event.resource()).isEqualTo("configmaps");
            assertThat(event.namespace()).isEqualTo("fixture");
            assertThat(event.name()).isEqualTo("allowed");
            assertThat(event.code()).isEqualTo(201);
        });
    }
}
