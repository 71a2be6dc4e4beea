package dev.ringmaster.kubernetes.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.testing.apiserver.CuttingApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.lang.annotation.Annotation;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubernetesClientProviderTest {

    private static KubernetesClientProvider.Settings settings(String kubeconfig, String masterUrl) {
        return new KubernetesClientProvider.Settings() {
            @Override
            public String kubeconfig() {
                return kubeconfig;
            }

            @Override
            public String masterUrl() {
                return masterUrl;
            }

            @Override
            public boolean trustCerts() {
                return true;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return KubernetesClientProvider.Settings.class;
            }
        };
    }

    @Test
    void readsTheKubeconfigAndLetsTheUrlBeOverridden(@TempDir Path dir) throws Exception {
        Path kubeconfig = dir.resolve("config");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: test
                  cluster: {server: "https://apiserver.test:6443"}
                users:
                - name: test
                  user: {token: secret}
                contexts:
                - name: test
                  context: {cluster: test, user: test, namespace: team}
                current-context: test
                """);
        try (KubernetesClient client = KubernetesClientProvider.create(settings(kubeconfig.toString(), ""))) {
            assertThat(client.getMasterUrl().toString()).startsWith("https://apiserver.test:6443");
            assertThat(client.getNamespace()).isEqualTo("team");
        }
        try (KubernetesClient client = KubernetesClientProvider.create(
                settings(kubeconfig.toString(), "https://127.0.0.1:1234"))) {
            assertThat(client.getMasterUrl().toString()).startsWith("https://127.0.0.1:1234");
        }
    }

    @Test
    void anUnreadableKubeconfigIsAClearError(@TempDir Path dir) {
        assertThatThrownBy(() -> KubernetesClientProvider.create(settings(dir.resolve("missing").toString(), "")))
                .hasMessageContaining("is not a readable file");
    }

    /**
     * An API server that cuts every connection at once (as one that is restarting): the request fails
     * after fabric8's two retries, three attempts in all, instead of its default ten doubling retries
     * that hold a call up to 100 s. The JDK's HTTP client opens a second connection for each attempt
     * (it retries an idempotent request once when the connection breaks), so six connections.
     */
    @Test
    void aRequestToAnUnreachableApiServerFailsAfterTwoRetries(@TempDir Path dir) throws Exception {
        try (CuttingApiServer cutting = new CuttingApiServer()) {
            try (KubernetesClient client = KubernetesClientProvider.create(settings("", cutting.url()))) {
                assertThatThrownBy(() -> client.configMaps().inNamespace("default").withName("any").get())
                        .isInstanceOf(KubernetesClientException.class);
            }
            assertThat(cutting.connections()).isEqualTo(2 * (1 + KubernetesClientProvider.REQUEST_RETRIES));
        }
    }
}
