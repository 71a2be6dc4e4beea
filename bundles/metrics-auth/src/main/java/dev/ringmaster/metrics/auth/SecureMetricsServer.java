package dev.ringmaster.metrics.auth;

import dev.ringmaster.ops.MetricsExposition;
import dev.ringmaster.webhook.tls.TlsServer;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /metrics} over HTTPS (TLS 1.2 and 1.3, HTTP/1.1) for requests the {@link KubernetesAuthorizer}
 * allows: a {@link TlsServer}, as the webhook's, reading the certificate and key from PEM files. In a
 * cluster they are the webhook's own serving certificate (the directory of {@code --tls-dir}, which the
 * sharder or cert-manager fills), so one CA verifies both. The port opens once the files hold a valid
 * pair; a valid new pair is served without a restart, an invalid one is logged and the last good one
 * kept (as the webhook does).
 */
final class SecureMetricsServer implements AutoCloseable {

    /** Where to listen and which files to serve. */
    record Settings(String host, int port, Path certificateFile, Path keyFile, Duration reloadInterval) {
    }

    static final String METRICS = "/metrics";

    private static final Logger LOG = LoggerFactory.getLogger(SecureMetricsServer.class);
    private static final String TEXT = "text/plain; charset=utf-8";
    private static final int THREADS = 8;

    private final KubernetesAuthorizer authorizer;
    private final MetricsExposition metrics;
    private final TlsServer server;

    /** @throws IllegalArgumentException for a port out of range or a reload interval that is not positive */
    SecureMetricsServer(Settings settings, KubernetesAuthorizer authorizer, MetricsExposition metrics, Clock clock) {
        this.authorizer = Objects.requireNonNull(authorizer, "authorizer");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.server = new TlsServer(new TlsServer.Settings("metrics", settings.host(), settings.port(),
                settings.certificateFile(), settings.keyFile(), settings.reloadInterval(), THREADS, THREADS,
                Duration.ofSeconds(30), Duration.ofSeconds(2)), new TlsServer.Endpoint() {
                    @Override
                    public void mount(Server created) {
                        created.setHandler(new MetricsHandler());
                    }

                    @Override
                    public String serves() {
                        return METRICS + " to clients the API server authenticates and allows get on " + METRICS;
                    }
                }, clock);
    }

    /** Reads the certificate files, listens once they are valid, and polls them. Never throws for bad files. */
    void start() {
        server.start();
    }

    /** The port listened on, empty while not listening. */
    OptionalInt port() {
        return server.port();
    }

    /** Why the port is not open, or the certificate served expired; empty while neither. */
    Optional<String> problem() {
        return server.problem();
    }

    @Override
    public void close() {
        server.close();
    }

    /** {@code GET /metrics} for allowed requests; 401, 403, 503 otherwise; 404 and 405 for anything else. */
    private final class MetricsHandler extends Handler.Abstract {

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            String path = request.getHttpURI().getPath();
            if (!METRICS.equals(path)) {
                answer(response, callback, 404, "not found\n");
                return true;
            }
            if (!HttpMethod.GET.is(request.getMethod())) {
                response.getHeaders().put(HttpHeader.ALLOW, "GET");
                answer(response, callback, 405, "method not allowed\n");
                return true;
            }
            KubernetesAuthorizer.Decision decision = authorizer.decide(
                    request.getHeaders().get(HttpHeader.AUTHORIZATION), request.getMethod(), path);
            if (!decision.allowed()) {
                if (decision.status() == 401) {
                    response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer");
                }
                answer(response, callback, decision.status(), decision.message() + "\n");
                return true;
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream(16 * 1024);
            try {
                metrics.writeTo(body);
            } catch (Exception e) {
                LOG.warn("metrics: writing the scrape failed", e);
                answer(response, callback, 500, "internal error\n");
                return true;
            }
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, metrics.contentType());
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
            response.write(true, ByteBuffer.wrap(body.toByteArray()), callback);
            return true;
        }

        private void answer(Response response, Callback callback, int status, String text) {
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, TEXT);
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
            response.write(true, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), callback);
        }
    }
}
