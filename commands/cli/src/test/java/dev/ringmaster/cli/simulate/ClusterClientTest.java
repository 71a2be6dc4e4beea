package dev.ringmaster.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.flags.UsageException;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterClientTest {

    private static final URL SERVER = server();

    @Test
    void aKubeconfigThatCannotBeReadIsAUsageError(@TempDir Path folder) throws IOException {
        assertThatThrownBy(() -> ClusterClient.open(Optional.of(folder.resolve("missing")))).isInstanceOf(UsageException.class)
                .hasMessage("--kubeconfig " + folder.resolve("missing") + " is not a readable file");
        assertThatThrownBy(() -> ClusterClient.open(Optional.of(folder))).isInstanceOf(UsageException.class)
                .hasMessage("--kubeconfig " + folder + " is not a readable file");
        Path empty = Files.createFile(folder.resolve("empty"));
        assertThatThrownBy(() -> ClusterClient.open(Optional.of(empty))).isInstanceOf(UsageException.class)
                .hasMessage("--kubeconfig " + empty + " is empty");
        Path garbage = Files.writeString(folder.resolve("garbage"), "{not: [yaml");
        assertThatThrownBy(() -> ClusterClient.open(Optional.of(garbage))).isInstanceOf(UsageException.class)
                .hasMessageStartingWith("--kubeconfig " + garbage + " is not a usable kubeconfig: ");
    }

    @Test
    void anAnswerOfTheServerIsItsCodeAndMessage() {
        KubernetesClientException forbidden = new KubernetesClientException(new StatusBuilder().withCode(403)
                .withMessage("clusterrings.sharding.timebertt.dev \"x\" is forbidden").build());
        assertThat(ClusterClient.describe(forbidden, SERVER)).isEqualTo("the API server at https://127.0.0.1:6443/ answered"
                + " HTTP 403 (forbidden: these credentials may not read what the preview needs):"
                + " clusterrings.sharding.timebertt.dev \"x\" is forbidden");
        KubernetesClientException unauthorized = new KubernetesClientException(new StatusBuilder().withCode(401)
                .withMessage("Unauthorized").build());
        assertThat(ClusterClient.describe(unauthorized, SERVER)).contains("HTTP 401 (unauthorized: check the kubeconfig's"
                + " credentials): Unauthorized");
    }

    @Test
    void noAnswerIsNamedByItsCause() {
        assertThat(ClusterClient.describe(new KubernetesClientException("failed",
                new IOException("wrapped", new ConnectException())), SERVER))
                .isEqualTo("cannot reach the API server at https://127.0.0.1:6443/: connection refused");
        assertThat(ClusterClient.describe(new KubernetesClientException("failed",
                new UnknownHostException("api.example")), SERVER))
                .isEqualTo("cannot reach the API server at https://127.0.0.1:6443/: unknown host (api.example)");
        assertThat(ClusterClient.describe(new KubernetesClientException("failed",
                new IllegalStateException("something\n  odd")), SERVER))
                .isEqualTo("cannot reach the API server at https://127.0.0.1:6443/: something odd");
    }

    private static URL server() {
        try {
            return URI.create("https://127.0.0.1:6443/").toURL();
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }
}
