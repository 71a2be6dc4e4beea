package dev.ringmaster.webhook.server;

import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.ring.spi.AdmissionResponse.PatchOperation;
import dev.ringmaster.webhook.dispatch.HandlerWhiteboard;
import dev.ringmaster.webhook.testing.HttpsClient;
import dev.ringmaster.webhook.testing.KubeletMount;
import dev.ringmaster.webhook.testing.TestPki;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real webhook server on an ephemeral loopback port, its certificate in a kubelet-style mount, its
 * meters in a Prometheus registry (as the ops bundle publishes), and a few handlers:
 * {@code sharder} (patches a shard label), {@code guard} (denies), {@code boom} (throws), {@code null}
 * (returns nothing).
 */
final class ServerFixture implements AutoCloseable {

    static final String SHARDER_PATH = "/webhooks/sharder/clusterring/example";
    static final String SHARD_LABEL = "shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example";

    final TestPki pki;
    final KubeletMount mount;
    final HandlerWhiteboard handlers = new HandlerWhiteboard();
    final WebhookMetrics metrics = new WebhookMetrics();
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final List<Integer> listened = new CopyOnWriteArrayList<>();
    final AtomicLong stopped = new AtomicLong();
    private final AtomicLong serviceIds = new AtomicLong();
    WebhookServer server;

    ServerFixture(TestPki pki, Path directory) throws IOException {
        this.pki = pki;
        this.mount = new KubeletMount(directory);
        metrics.add(registry);
        register("sharder", "/webhooks/sharder/clusterring/", (path, request) -> AdmissionResponse.patch(List.of(
                new PatchOperation("add", "/metadata/labels/" + SHARD_LABEL.replace("/", "~1"), "shard-1"))));
        register("guard", "/guard/", (path, request) -> AdmissionResponse.deny(403, "objects named "
                + request.name() + " are not allowed"));
        register("boom", "/boom/", (path, request) -> {
            throw new IllegalStateException("handler exploded");
        });
        register("null", "/null/", (path, request) -> null);
        register("allow", "/allow/", (path, request) -> AdmissionResponse.allowWithWarning("careful with " + path));
    }

    void register(String name, String prefix, AdmissionHandler handler) {
        handlers.bind(handler, Map.of(AdmissionHandler.NAME, name, AdmissionHandler.PATH_PREFIX, prefix,
                "service.id", serviceIds.incrementAndGet()));
    }

    /** Settings for a free loopback port, fast polling and short timeouts. */
    WebhookSettings settings() {
        return WebhookSettings.defaults("127.0.0.1", 0, mount.directory())
                .withReloadInterval(Duration.ofMillis(50))
                .withShutdownTimeout(Duration.ofSeconds(5));
    }

    /** Publishes a fresh RSA (PKCS#1) certificate and starts the server with {@link #settings()}. */
    ServerFixture started() throws IOException {
        mount.publish(pki.issue(TestPki.KeyFormat.RSA_PKCS1));
        return start(settings(), Clock.systemUTC());
    }

    ServerFixture start(WebhookSettings settings, Clock clock) {
        server = new WebhookServer(settings, handlers::table, metrics, clock, new WebhookServer.Listener() {
            @Override
            public void listening(int port) {
                listened.add(port);
            }

            @Override
            public void stopped() {
                stopped.incrementAndGet();
            }
        });
        server.start();
        return this;
    }

    int port() {
        return server.port().orElseThrow(() -> new AssertionError("not listening: " + server.problem()));
    }

    HttpsClient client() {
        return new HttpsClient(pki.clientContext(), port());
    }

    /** Requests recorded for a handler and outcome. */
    long count(String handler, Outcome outcome) {
        Timer timer = registry.find(WebhookMetrics.REQUESTS).tags("handler", handler, "outcome", outcome.tag()).timer();
        return timer == null ? 0 : timer.count();
    }

    double reloads(String result) {
        var counter = registry.find(WebhookMetrics.CERTIFICATE_RELOADS).tags("result", result).counter();
        return counter == null ? 0 : counter.count();
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
