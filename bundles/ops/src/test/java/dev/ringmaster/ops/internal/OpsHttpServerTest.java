package dev.ringmaster.ops.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ops.ReadinessCheck;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OpsHttpServerTest {

    private static final String LOOPBACK = "127.0.0.1";

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private PrometheusRegistryComponent registry;
    private OpsHttpServer server;

    @BeforeEach
    void start() {
        registry = new PrometheusRegistryComponent();
        registry.activate();
        server = new OpsHttpServer(registry);
    }

    @AfterEach
    void stop() {
        server.deactivate();
        registry.deactivate();
    }

    @Test
    void metricsServesTheRegistryInPrometheusTextFormat() throws Exception {
        registry.counter("ringmaster.test.events", "kind", "probe").increment(3);
        server.activate(config(LOOPBACK, 0));

        HttpResponse<String> response = get("/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type"))
                .contains("text/plain; version=0.0.4; charset=utf-8");
        assertThat(response.body())
                .contains("# TYPE ringmaster_test_events_total counter")
                .contains("ringmaster_test_events_total{kind=\"probe\"} 3.0")
                .contains("jvm_memory_used_bytes")
                .contains("jvm_gc_")
                .contains("jvm_threads_live_threads")
                .contains("jvm_classes_loaded_classes")
                .contains("system_cpu_count");
    }

    /** metricsAuth = kubernetes: the plain listener keeps the probes and never serves /metrics, also after a change. */
    @Test
    void withKubernetesMetricsAuthThePlainListenerServesNoMetrics() throws Exception {
        server.activate(config(LOOPBACK, 0, OpsHttpServer.METRICS_AUTH_KUBERNETES));
        int port = server.port().orElseThrow();

        HttpResponse<String> metrics = get("/metrics");
        assertThat(metrics.statusCode()).isEqualTo(404);
        assertThat(metrics.body()).contains("HTTPS").doesNotContain("jvm_");
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        assertThat(get("/readyz").statusCode()).isEqualTo(200);

        server.modified(config(LOOPBACK, port, OpsHttpServer.METRICS_AUTH_NONE));
        assertThat(server.port()).hasValue(port); // no restart of the listener
        assertThat(get("/metrics").statusCode()).isEqualTo(200);

        server.modified(config(LOOPBACK, port, "kuberntes")); // a typo closes, never opens
        assertThat(get("/metrics").statusCode()).isEqualTo(404);
    }

    @Test
    void healthzIsOkWhileRunning() throws Exception {
        server.bindReadinessCheck(check("sharder", "not leading"));
        server.activate(config(LOOPBACK, 0));

        HttpResponse<String> response = get("/healthz");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("ok");
        assertThat(response.headers().firstValue("Content-Type")).contains("text/plain; charset=utf-8");
    }

    @Test
    void readyzIsOkWithoutChecksAndWithPassingChecks() throws Exception {
        server.activate(config(LOOPBACK, 0));
        assertThat(get("/readyz").statusCode()).isEqualTo(200);

        server.bindReadinessCheck(check("sharder", null));
        server.bindReadinessCheck(check("webhook", null));
        HttpResponse<String> response = get("/readyz");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("ok");
    }

    @Test
    void readyzListsEveryFailingCheckWith503() throws Exception {
        ReadinessCheck webhook = check("webhook", "certificate not loaded");
        server.bindReadinessCheck(check("sharder", "API server unreachable"));
        server.bindReadinessCheck(check("ring-cache", null));
        server.bindReadinessCheck(webhook);
        server.bindReadinessCheck(new ReadinessCheck() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public Optional<String> problem() {
                throw new IllegalStateException("boom");
            }
        });
        server.activate(config(LOOPBACK, 0));

        HttpResponse<String> response = get("/readyz");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).isEqualTo("""
                broken: check failed: boom
                sharder: API server unreachable
                webhook: certificate not loaded
                """);

        server.unbindReadinessCheck(webhook);
        assertThat(get("/readyz").body()).doesNotContain("webhook");
    }

    @Test
    void readyzFollowsChecksComingAndGoing() throws Exception {
        server.activate(config(LOOPBACK, 0));
        ReadinessCheck failing = check("sharder", "API server unreachable");

        server.bindReadinessCheck(failing);
        assertThat(get("/readyz").statusCode()).isEqualTo(503);

        server.unbindReadinessCheck(failing);
        assertThat(get("/readyz").statusCode()).isEqualTo(200);
    }

    @Test
    void unknownPathsAre404() throws Exception {
        server.activate(config(LOOPBACK, 0));

        assertThat(get("/").statusCode()).isEqualTo(404);
        assertThat(get("/metrics/extra").statusCode()).isEqualTo(404);
        assertThat(get("/healthz/").statusCode()).isEqualTo(404);
        assertThat(send("POST", "/nope").statusCode()).isEqualTo(404);
    }

    @Test
    void otherMethodsAre405() throws Exception {
        server.activate(config(LOOPBACK, 0));

        for (String path : new String[] {"/metrics", "/healthz", "/readyz"}) {
            HttpResponse<String> post = send("POST", path);
            assertThat(post.statusCode()).as("POST %s", path).isEqualTo(405);
            assertThat(post.headers().firstValue("Allow")).contains("GET");
            assertThat(send("DELETE", path).statusCode()).as("DELETE %s", path).isEqualTo(405);
            assertThat(send("HEAD", path).statusCode()).as("HEAD %s", path).isEqualTo(405);
        }
    }

    @Test
    void queryStringsAreIgnored() throws Exception {
        server.activate(config(LOOPBACK, 0));

        assertThat(get("/healthz?verbose").statusCode()).isEqualTo(200);
    }

    @Test
    void aPortChangeRestartsTheListener() throws Exception {
        server.activate(config(LOOPBACK, 0));
        int before = port();
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        int after = freePort();

        server.modified(config(LOOPBACK, after));

        assertThat(port()).isEqualTo(after);
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        assertThatThrownBy(() -> get(before, "/healthz")).isInstanceOf(ConnectException.class);
    }

    @Test
    void anUnchangedConfigurationKeepsTheListener() throws Exception {
        server.activate(config(LOOPBACK, 0));
        int before = port();

        server.modified(config(LOOPBACK, 0));

        assertThat(port()).isEqualTo(before);
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
    }

    @Test
    void aBusyPortIsReportedAndRetriedOnTheNextConfigurationChange() throws Exception {
        int busyPort;
        try (ServerSocket blocker = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            busyPort = blocker.getLocalPort();

            assertThatCode(() -> server.activate(config(LOOPBACK, busyPort))).doesNotThrowAnyException();

            assertThat(server.port()).isEmpty();
            assertThat(server.failure()).hasValueSatisfying(failure -> assertThat(failure)
                    .contains("cannot listen on 127.0.0.1:" + busyPort)
                    .contains("in use")
                    .contains(OpsHttpServer.PID));

            server.modified(config(LOOPBACK, busyPort)); // still busy: still reported, still no exception
            assertThat(server.port()).isEmpty();
            assertThat(server.failure()).isPresent();
        }

        server.modified(config(LOOPBACK, busyPort));

        assertThat(server.failure()).isEmpty();
        assertThat(port()).isEqualTo(busyPort);
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
    }

    @Test
    void anUnknownHostIsReportedWithoutThrowing() {
        assertThatCode(() -> server.activate(config("no-such-host.invalid", 0))).doesNotThrowAnyException();

        assertThat(server.port()).isEmpty();
        assertThat(server.failure()).hasValueSatisfying(failure -> assertThat(failure)
                .contains("cannot listen on no-such-host.invalid:0"));
    }

    @Test
    void deactivationStopsTheListener() throws Exception {
        server.activate(config(LOOPBACK, 0));
        int port = port();

        server.deactivate();

        assertThat(server.port()).isEmpty();
        assertThatThrownBy(() -> get(port, "/healthz")).isInstanceOf(ConnectException.class);
    }

    @Test
    void theRegistryIsClosedOnDeactivation() {
        registry.deactivate();

        assertThat(registry.isClosed()).isTrue();
    }

    private int port() {
        assertThat(server.port()).as("listening").isPresent();
        return server.port().getAsInt();
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return get(port(), path);
    }

    private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return client.send(request(port, path).GET().build(), BodyHandlers.ofString());
    }

    private HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
        HttpRequest.BodyPublisher body =
                method.equals("POST") ? BodyPublishers.ofString("x") : BodyPublishers.noBody();
        return client.send(request(port(), path).method(method, body).build(), BodyHandlers.ofString());
    }

    private static HttpRequest.Builder request(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://" + LOOPBACK + ":" + port + path))
                .timeout(Duration.ofSeconds(10));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            return socket.getLocalPort();
        }
    }

    private static ReadinessCheck check(String name, String problem) {
        return new ReadinessCheck() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Optional<String> problem() {
                return Optional.ofNullable(problem);
            }
        };
    }

    static OpsHttpServer.Config config(String host, int port) {
        return config(host, port, OpsHttpServer.METRICS_AUTH_NONE);
    }

    static OpsHttpServer.Config config(String host, int port, String metricsAuth) {
        return new OpsHttpServer.Config() {
            @Override
            public String metricsAuth() {
                return metricsAuth;
            }

            @Override
            public String host() {
                return host;
            }

            @Override
            public int port() {
                return port;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return OpsHttpServer.Config.class;
            }
        };
    }
}
