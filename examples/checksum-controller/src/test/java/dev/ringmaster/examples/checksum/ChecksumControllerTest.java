package dev.ringmaster.examples.checksum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpConnectTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.io.TempDir;

/** The command line: usage errors, an unreachable API server, and a shard run until it is stopped. */
@EnableCrudApiServer
class ChecksumControllerTest {

    KubernetesClient client;
    KubernetesMockServer server;

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final CountDownLatch stop = new CountDownLatch(1);

    /** Without the flags, the values a pod would have; empty: this process's own must not matter. */
    private Map<String, String> environment = Map.of();
    /** What fabric8's auto-configuration finds (without --kubeconfig). */
    private Supplier<Config> autoConfiguration = () -> {
        throw new AssertionError("auto-configuration used although --kubeconfig was given");
    };

    private int run(String... args) {
        return ChecksumController.run(ChecksumController.NAME, CommandLine.USAGE, ChecksumShard::start, List.of(args),
                print(out), print(err), stop, CommandLine.Environment.of(environment), autoConfiguration);
    }

    /** Runs the command in the background with the client configuration of a pod (the mock server's). */
    private CompletableFuture<Integer> runningInAPod(String... args) {
        autoConfiguration = client::getConfiguration;
        return CompletableFuture.supplyAsync(() -> run(args));
    }

    /** Stops the command (what SIGTERM does through the shutdown hook), which then exits with 0. */
    private void stopAndExpectExitCode0(CompletableFuture<Integer> exit) throws Exception {
        stop.countDown();
        assertThat(exit.get(15, TimeUnit.SECONDS)).isZero();
    }

    /** ConfigMap {@code namespace}/app, assigned to {@code shard} of the ClusterRing "checksums". */
    private void appOf(String namespace, String shard) {
        client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName("app")
                .withNamespace(namespace).addToLabels(RingContract.shardLabel("checksums"), shard).endMetadata()
                .addToData("k", "v").build()).create();
    }

    /** The StatefulSet "checksums" of 3 replicas in {@code namespace}, whose pods the tests play. */
    private void statefulSetOf3(String namespace) {
        client.apps().statefulSets().inNamespace(namespace).resource(new StatefulSetBuilder().withNewMetadata()
                .withName("checksums").withNamespace(namespace).endMetadata().withNewSpec().withReplicas(3).endSpec()
                .build()).create();
    }

    /** The line on stderr, which must be the only one. */
    private AbstractStringAssert<?> theOnlyErrorLine() {
        return assertThat(text(err).lines().toList()).singleElement().asString();
    }

    /** A kubeconfig of a server the test never reaches: the command fails before it connects. */
    private String unusedKubeconfig() {
        return kubeconfig("https://127.0.0.1:6443").toString();
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
        assertThat(text(out)).startsWith("Usage: checksum-controller --ring NAME [--ring-kind clusterring|controllerring]"
                        + " [--kubeconfig FILE]\n")
                .contains("[--shard-name NAME | --identity-pool DEPLOYMENT] [--on-stop auto|restart|leave]\n")
                .contains("[--namespace LEASE_NAMESPACE] [--watch-namespace NAMESPACE]...")
                .contains("--identity-pool DEPLOYMENT").contains("--on-stop MODE").contains("$POD_UID")
                .contains("default: $POD_NAME, else $HOSTNAME").contains("default: $POD_NAMESPACE");
        assertThat(text(err)).isEmpty();
    }

    @Test
    void aMissingFlagIsNamedAboveTheUsage() throws IOException {
        assertThat(run("--kubeconfig", unusedKubeconfig(), "--shard-name", "shard-0",
                "--namespace", "default")).isEqualTo(2);
        assertThat(text(err).lines().toList()).first().isEqualTo("checksum-controller: missing required flag --ring");
        assertThat(text(err)).contains("Usage: checksum-controller");
        assertThat(text(out)).isEmpty();
    }

    /** The pod's variable that is set; the other one, and its flag, are missing. */
    @ParameterizedTest(name = "only ${0}: {2}")
    @CsvSource(delimiter = '|', textBlock = """
            POD_NAMESPACE | default | no shard name: give --shard-name NAME, or set $POD_NAME or $HOSTNAME
            POD_NAME      | shard-0 | no Lease namespace: give --namespace LEASE_NAMESPACE, or set $POD_NAMESPACE
            """)
    void aSettingFoundNowhereIsOneLineAndExitCode2(String variable, String value, String problem) {
        environment = Map.of(variable, value);

        assertThat(run("--kubeconfig", unusedKubeconfig(), "--ring", "checksums")).isEqualTo(2);

        theOnlyErrorLine().startsWith("checksum-controller: " + problem).endsWith("(see checksum-controller --help)");
        assertThat(text(out)).isEmpty();
    }

    @Test
    void noClusterFoundIsOneLineAndExitCode2() {
        // not in a pod, no kubeconfig: fabric8 falls back to its in-cluster default URL
        environment = Map.of("POD_NAME", "shard-0", "POD_NAMESPACE", "default");
        autoConfiguration = () -> new ConfigBuilder(Config.empty()).withMasterUrl(Config.DEFAULT_MASTER_URL).build();
        long started = System.nanoTime();

        assertThat(run("--ring", "checksums")).isEqualTo(2);

        theOnlyErrorLine()
                .isEqualTo("checksum-controller: no cluster to connect to: not in a pod ($KUBERNETES_SERVICE_HOST is not"
                        + " set) and no kubeconfig ($KUBECONFIG, ~/.kube/config): give --kubeconfig FILE");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("no request").isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aBrokenAutoConfigurationIsOneLineAndExitCode2() {
        environment = Map.of("POD_NAME", "shard-0", "POD_NAMESPACE", "default");
        autoConfiguration = () -> {
            throw new KubernetesClientException("Could not load kubeconfig", new IOException("while parsing a flow\n node"));
        };

        assertThat(run("--ring", "checksums")).isEqualTo(2);

        theOnlyErrorLine()
                .isEqualTo("checksum-controller: cannot configure the client from $KUBECONFIG or ~/.kube/config:"
                        + " while parsing a flow node (give --kubeconfig FILE)");
    }

    @Test
    void inAPodTheRingIsTheOnlyFlagNeeded() throws Exception {
        String namespace = "in-pod";
        appOf(namespace, "checksums-1");
        // a StatefulSet's pod: the downward API's POD_NAME and POD_NAMESPACE, the ServiceAccount's configuration
        environment = Map.of("POD_NAME", "checksums-1", "HOSTNAME", "checksums-1", "POD_NAMESPACE", namespace,
                "KUBERNETES_SERVICE_HOST", "10.0.0.1");
        CompletableFuture<Integer> exit = runningInAPod("--ring", "checksums", "--watch-namespace", namespace);

        await().atMost(Duration.ofSeconds(15)).until(() -> text(out).contains("reconcile shard=checksums-1 object=in-pod/app "));
        assertThat(client.leases().inNamespace(namespace).withName("checksums-1").get().getSpec().getHolderIdentity())
                .isEqualTo("checksums-1");
        stopAndExpectExitCode0(exit);
        assertThat(text(err)).isEmpty();
    }

    @Test
    void anUnknownFlagIsAUsageError() {
        assertThat(run("--ring", "checksums", "--shards", "3")).isEqualTo(2);
        assertThat(text(err)).startsWith("checksum-controller: unknown flag --shards\n").contains("Usage:");
    }

    @Test
    void anUnknownRingKindIsAUsageError() throws IOException {
        assertThat(run("--kubeconfig", unusedKubeconfig(), "--ring", "checksums",
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
        theOnlyErrorLine()
                .startsWith("checksum-controller: cannot reach the API server at https://127.0.0.1:" + closedPort)
                .containsIgnoringCase("connect");
        assertThat(text(out)).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("no retries").isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void runsAShardUntilStoppedAndThenReleasesItsLease() throws Exception {
        String namespace = "cli-test";
        appOf(namespace, "shard-7");

        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> run("--kubeconfig",
                kubeconfig(client.getMasterUrl().toString()).toString(), "--ring", "checksums", "--shard-name", "shard-7",
                "--namespace", namespace, "--watch-namespace", namespace));

        await().atMost(Duration.ofSeconds(15)).until(() -> text(out).contains("reconcile shard=shard-7 object=cli-test/app "));
        assertThat(client.secrets().inNamespace(namespace).withName("checksums-app").get()).isNotNull();
        assertThat(text(out).lines()).allSatisfy(line -> assertThat(ReconcileLine.parse(line)).isPresent());
        assertThat(exit).isNotDone();

        stopAndExpectExitCode0(exit); // what SIGTERM does through the shutdown hook
        assertThat(client.leases().inNamespace(namespace).withName("shard-7").get().getSpec().getHolderIdentity()).isEmpty();
    }

    /**
     * {@code --metrics-port}: the shard's load report as gauges, the numbers its Lease's {@code ringmaster.dev/load}
     * annotation carries (read here with patterns of the annotation's format, not with the code that writes it).
     */
    @Test
    void theMetricsPortServesTheLoadReportOnTheLease() throws Exception {
        String namespace = "metrics";
        appOf(namespace, "shard-7");
        int port = freePort();

        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> run("--kubeconfig",
                kubeconfig(client.getMasterUrl().toString()).toString(), "--ring", "checksums", "--shard-name", "shard-7",
                "--namespace", namespace, "--watch-namespace", namespace, "--load-report-period", "1s",
                "--metrics-port", String.valueOf(port)));

        HttpClient http = HttpClient.newHttpClient();
        URI metrics = URI.create("http://127.0.0.1:" + port + "/metrics");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Lease lease = client.leases().inNamespace(namespace).withName("shard-7").get();
            assertThat(lease).as("the shard's Lease").isNotNull();
            String annotation = lease.getMetadata().getAnnotations().getOrDefault("ringmaster.dev/load", "");
            assertThat(annotation).contains("objects=1 ");
            String text = http.send(HttpRequest.newBuilder(metrics).build(), BodyHandlers.ofString()).body();
            String tags = "{clusterring=\"checksums\",controllerring=\"\",shard=\"shard-7\"}";
            assertThat(sample(text, "ringmaster_shard_objects" + tags)).isEqualTo(1);
            assertThat(sample(text, "ringmaster_shard_load_seconds_per_second" + tags))
                    .isCloseTo(number(annotation, "busy"), within(0.00005));
            assertThat(sample(text, "ringmaster_shard_queue_wait_seconds" + tags))
                    .isCloseTo(number(annotation, "wait"), within(0.00005));
        });
        HttpResponse<Void> elsewhere = http.send(HttpRequest.newBuilder(metrics.resolve("/other")).build(),
                BodyHandlers.discarding());
        assertThat(elsewhere.statusCode()).isEqualTo(404);

        stopAndExpectExitCode0(exit);
    }

    @Test
    void aMetricsPortInUseIsOneLineAndExitCode1BeforeTheShardStarts() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            int code = run("--kubeconfig", kubeconfig(client.getMasterUrl().toString()).toString(), "--ring",
                    "checksums", "--shard-name", "shard-0", "--namespace", "taken", "--metrics-port",
                    String.valueOf(taken.getLocalPort()));

            assertThat(code).isEqualTo(1);
            theOnlyErrorLine().startsWith("checksum-controller: cannot serve metrics on port " + taken.getLocalPort() + ": ")
                    .containsIgnoringCase("in use");
            assertThat(client.leases().inNamespace("taken").list().getItems()).as("no shard started").isEmpty();
        }
    }

    /** The value of the sample {@code series} (name and tags as Prometheus writes them) in a scrape. */
    private static double sample(String scrape, String series) {
        return scrape.lines().filter(line -> line.startsWith(series + " ")).map(line -> line.substring(series.length() + 1))
                .mapToDouble(Double::parseDouble).findFirst()
                .orElseThrow(() -> new AssertionError("no " + series + " in\n" + scrape));
    }

    /** The number after {@code word=} in a load annotation. */
    private static double number(String annotation, String word) {
        Matcher matcher = Pattern.compile("(?:^| )" + word + "=([0-9.]+)").matcher(annotation);
        assertThat(matcher.find()).as("%s in %s", word, annotation).isTrue();
        return Double.parseDouble(matcher.group(1));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void aStatefulSetPodWithinTheReplicasKeepsItsLeaseForTheRestart() throws Exception {
        String namespace = "sts-restart";
        statefulSetOf3(namespace);
        environment = Map.of("POD_NAME", "checksums-2", "POD_NAMESPACE", namespace, "POD_UID", "uid-of-pod-2",
                "KUBERNETES_SERVICE_HOST", "10.0.0.1");
        CompletableFuture<Integer> exit = runningInAPod("--ring", "checksums", "--watch-namespace", namespace);
        await().atMost(Duration.ofSeconds(15)).until(() -> leaseHeldBy(namespace, "checksums-2"));
        stopAndExpectExitCode0(exit);
        Lease kept = client.leases().inNamespace(namespace).withName("checksums-2").get();
        assertThat(kept.getSpec().getHolderIdentity()).isEqualTo("checksums-2");
        assertThat(kept.getMetadata().getAnnotations()).containsEntry("ringmaster.dev/holder-instance", "uid-of-pod-2")
                .containsKey("ringmaster.dev/restarting");
    }

    @Test
    void onStopLeaveReleasesTheLeaseOfAStatefulSetPod() throws Exception {
        String namespace = "sts-leave";
        statefulSetOf3(namespace);
        environment = Map.of("POD_NAME", "checksums-0", "POD_NAMESPACE", namespace, "KUBERNETES_SERVICE_HOST", "10.0.0.1");
        CompletableFuture<Integer> exit = runningInAPod("--ring", "checksums", "--watch-namespace", namespace,
                "--on-stop", "leave");
        await().atMost(Duration.ofSeconds(15)).until(() -> leaseHeldBy(namespace, "checksums-0"));
        stopAndExpectExitCode0(exit);
        assertThat(client.leases().inNamespace(namespace).withName("checksums-0").get().getSpec().getHolderIdentity())
                .isEmpty();
    }

    @Test
    void anIdentityPoolNamesTheShardAndItsStopKeepsTheLease() throws Exception {
        String namespace = "pool-run";
        poolWithWorkers0Held(namespace, 2);
        appOf(namespace, "workers-1");
        environment = Map.of("POD_NAME", "workers-5d8f7-x2b4q", "POD_NAMESPACE", namespace, "POD_UID", "uid-new",
                "KUBERNETES_SERVICE_HOST", "10.0.0.1");
        CompletableFuture<Integer> exit = runningInAPod("--ring", "checksums", "--identity-pool", "workers",
                "--watch-namespace", namespace);
        await().atMost(Duration.ofSeconds(15)).until(() -> text(out).contains("reconcile shard=workers-1 object=pool-run/app "));
        stopAndExpectExitCode0(exit);
        Lease kept = client.leases().inNamespace(namespace).withName("workers-1").get();
        assertThat(kept.getSpec().getHolderIdentity()).isEqualTo("workers-1");
        assertThat(kept.getMetadata().getAnnotations()).containsEntry("ringmaster.dev/holder-instance", "uid-new")
                .containsKey("ringmaster.dev/restarting");
        assertThat(client.leases().inNamespace(namespace).withName("workers-0").get().getMetadata().getAnnotations())
                .containsEntry("ringmaster.dev/holder-instance", "another-pod");
    }

    @Test
    void anIdentityPoolWithoutItsDeploymentIsOneLineAndExitCode1() {
        environment = Map.of("POD_NAMESPACE", "no-pool", "KUBERNETES_SERVICE_HOST", "10.0.0.1");
        autoConfiguration = client::getConfiguration;

        assertThat(run("--ring", "checksums", "--identity-pool", "workers")).isEqualTo(1);
        assertThat(text(err)).isEqualTo("checksum-controller: Deployment no-pool/workers of --identity-pool does not exist\n");
    }

    @Test
    void aStopWhileWaitingForAPoolNameEndsTheRun() throws Exception {
        String namespace = "pool-full";
        poolWithWorkers0Held(namespace, 1);
        environment = Map.of("POD_NAMESPACE", namespace, "POD_UID", "uid-new", "KUBERNETES_SERVICE_HOST", "10.0.0.1");
        CompletableFuture<Integer> exit = runningInAPod("--ring", "checksums", "--identity-pool", "workers");
        Thread.sleep(500);
        assertThat(exit).isNotDone();
        stopAndExpectExitCode0(exit);
        assertThat(client.leases().inNamespace(namespace).withName("workers-0").get().getMetadata().getAnnotations())
                .containsEntry("ringmaster.dev/holder-instance", "another-pod");
    }

    private boolean leaseHeldBy(String namespace, String name) {
        Lease lease = client.leases().inNamespace(namespace).withName(name).get();
        return lease != null && name.equals(lease.getSpec().getHolderIdentity());
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

    /** The Deployment "workers" of {@code replicas} in {@code namespace}, and its name workers-0 held by another pod. */
    private void poolWithWorkers0Held(String namespace, int replicas) {
        client.apps().deployments().inNamespace(namespace).resource(new DeploymentBuilder().withNewMetadata()
                .withName("workers").withNamespace(namespace).endMetadata().withNewSpec().withReplicas(replicas).endSpec()
                .build()).create();
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        client.leases().inNamespace(namespace).resource(new LeaseBuilder().withNewMetadata().withName("workers-0")
                .withNamespace(namespace).addToAnnotations("ringmaster.dev/holder-instance", "another-pod").endMetadata()
                .withNewSpec().withHolderIdentity("workers-0").withLeaseDurationSeconds(600).withRenewTime(now)
                .withAcquireTime(now).endSpec().build()).create();
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

    @Test
    void anImplementationWithoutRangeModeRefusesTheFlag() {
        ChecksumController.Shards labelModeOnly = (client, options, reconcileLog) -> {
            throw new AssertionError("started although it has no range mode");
        };
        int code = ChecksumController.run("other", CommandLine.usage("other", "Does things."), labelModeOnly,
                List.of("--ring", "checksums", "--shard-name", "shard-0", "--namespace", "default", "--range-mode"),
                print(out), print(err), stop, CommandLine.Environment.of(environment), autoConfiguration);

        assertThat(code).isEqualTo(ChecksumController.EXIT_USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("other: unknown flag --range-mode\n")
                .doesNotContain("[--range-mode]");
        assertThat(ChecksumController.CHECKSUM_SHARDS.rangeMode()).as("bin/checksum-controller's shards").isTrue();
    }
}
