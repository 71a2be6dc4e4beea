package dev.ringmaster.examples.checksum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.http.HttpConnectTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.io.TempDir;

/** The command line: usage errors, an unreachable API server, and a shard run until it is stopped. */
@EnableKubernetesMockClient(crud = true)
class ChecksumControllerTest {

    KubernetesClient client;
    KubernetesMockServer server;

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final CountDownLatch stop = new CountDownLatch(1);

    private int run(String... args) {
        return ChecksumController.run(List.of(args), print(out), print(err), stop);
    }

    private static PrintStream print(ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }

    private static String text(ByteArrayOutputStream bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpPrintsTheUsage() {
        assertThat(run("--help")).isZero();
        assertThat(text(out)).startsWith("Usage: checksum-controller --kubeconfig FILE --ring NAME --shard-name NAME")
                .contains("--watch-namespace").contains("[--ring-kind clusterring|controllerring]");
        assertThat(text(err)).isEmpty();
    }

    @Test
    void aMissingFlagIsNamedAboveTheUsage() throws IOException {
        assertThat(run("--kubeconfig", kubeconfig("https://127.0.0.1:6443").toString(), "--ring", "checksums",
                "--namespace", "default")).isEqualTo(2);
        assertThat(text(err).lines().toList()).first().isEqualTo("checksum-controller: missing required flag --shard-name");
        assertThat(text(err)).contains("Usage: checksum-controller");
        assertThat(text(out)).isEmpty();
    }

    @Test
    void anUnknownFlagIsAUsageError() {
        assertThat(run("--ring", "checksums", "--shards", "3")).isEqualTo(2);
        assertThat(text(err)).startsWith("checksum-controller: unknown flag --shards\n").contains("Usage:");
    }

    @Test
    void anUnknownRingKindIsAUsageError() throws IOException {
        assertThat(run("--kubeconfig", kubeconfig("https://127.0.0.1:6443").toString(), "--ring", "checksums",
                "--ring-kind", "clusterrings", "--shard-name", "shard-0", "--namespace", "default")).isEqualTo(2);
        assertThat(text(err).lines().toList()).first()
                .isEqualTo("checksum-controller: --ring-kind 'clusterrings' is not a ring kind: use clusterring or controllerring");
        assertThat(text(err)).contains("--ring-kind KIND");
        assertThat(text(out)).isEmpty();
    }

    @Test
    void aKubeconfigThatIsNoneIsAUsageError() throws IOException {
        Path broken = Files.writeString(dir.resolve("broken"), "clusters: [unclosed\n");
        assertThat(run("--kubeconfig", broken.toString(), "--ring", "checksums", "--shard-name", "shard-0",
                "--namespace", "default")).isEqualTo(2);
        assertThat(text(err)).startsWith("checksum-controller: cannot use kubeconfig " + broken + ": ");
        assertThat(text(err).lines()).hasSize(1);
    }

    @Test
    void anUnreachableApiServerIsOneLineAndExitCode1() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        long started = System.nanoTime();

        int code = run("--kubeconfig", kubeconfig("https://127.0.0.1:" + closedPort).toString(), "--ring", "checksums",
                "--shard-name", "shard-0", "--namespace", "default");

        assertThat(code).isEqualTo(1);
        assertThat(text(err).lines().toList()).singleElement().asString()
                .startsWith("checksum-controller: cannot reach the API server at https://127.0.0.1:" + closedPort)
                .containsIgnoringCase("connect");
        assertThat(text(out)).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("no retries").isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void runsAShardUntilStoppedAndThenReleasesItsLease() throws Exception {
        String namespace = "cli-test";
        client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName("app")
                .withNamespace(namespace).addToLabels(RingContract.shardLabel("checksums"), "shard-7").endMetadata()
                .addToData("k", "v").build()).create();

        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> run("--kubeconfig",
                kubeconfig(client.getMasterUrl().toString()).toString(), "--ring", "checksums", "--shard-name", "shard-7",
                "--namespace", namespace, "--watch-namespace", namespace));

        await().atMost(Duration.ofSeconds(15)).until(() -> text(out).contains("reconcile shard=shard-7 object=cli-test/app "));
        assertThat(client.secrets().inNamespace(namespace).withName("checksums-app").get()).isNotNull();
        assertThat(text(out).lines()).allSatisfy(line -> assertThat(ReconcileLine.parse(line)).isPresent());
        assertThat(exit).isNotDone();

        stop.countDown(); // what SIGTERM does through the shutdown hook

        assertThat(exit.get(15, TimeUnit.SECONDS)).isZero();
        assertThat(client.leases().inNamespace(namespace).withName("shard-7").get().getSpec().getHolderIdentity()).isEmpty();
    }

    @Test
    void failuresToReachTheServerAreNamed() {
        assertThat(ChecksumController.rootMessage(new KubernetesClientException("get failed",
                new IOException(new ConnectException()))))
                .isEqualTo("connection refused");
        ConnectException unresolved = new ConnectException();
        unresolved.initCause(new UnresolvedAddressException());
        assertThat(ChecksumController.rootMessage(new KubernetesClientException("get failed", new IOException(unresolved))))
                .isEqualTo("unknown host");
        assertThat(ChecksumController.rootMessage(new KubernetesClientException("get failed",
                new SSLHandshakeException("PKIX path building failed"))))
                .isEqualTo("TLS failed (PKIX path building failed)");
        assertThat(ChecksumController.rootMessage(new KubernetesClientException("get failed",
                new HttpConnectTimeoutException("HTTP connect timed out"))))
                .isEqualTo("timed out (HTTP connect timed out)");
        assertThat(ChecksumController.rootMessage(new IllegalStateException("outer", new IOException("two\n lines"))))
                .isEqualTo("two lines");
        assertThat(ChecksumController.rootMessage(new IllegalStateException())).isEqualTo("IllegalStateException");
    }

    private Path kubeconfig(String server) {
        try {
            return Files.writeString(dir.resolve("kubeconfig"), """
                    apiVersion: v1
                    kind: Config
                    clusters:
                    - name: test
                      cluster:
                        server: %s
                        insecure-skip-tls-verify: true
                    contexts:
                    - name: test
                      context:
                        cluster: test
                        user: test
                    current-context: test
                    users:
                    - name: test
                      user:
                        token: test-token
                    """.formatted(server));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
