package dev.ringmaster.metrics.auth;

import dev.ringmaster.ops.MetricsExposition;
import dev.ringmaster.webhook.tls.CertificateFiles;
import dev.ringmaster.webhook.tls.KeyMaterial;
import dev.ringmaster.webhook.tls.TlsJetty;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /metrics} over HTTPS (TLS 1.2 and 1.3, HTTP/1.1) for requests the {@link KubernetesAuthorizer}
 * allows. The certificate and key are PEM files, read and polled with the webhook's
 * {@link CertificateFiles}: in a cluster the webhook's own serving certificate (the directory of
 * {@code --tls-dir}, which the sharder or cert-manager fills), so one CA verifies both. The port opens
 * once the files hold a valid pair; a valid new pair is served without a restart, an invalid one is
 * logged and the last good one kept (as the webhook does).
 */
final class SecureMetricsServer implements AutoCloseable {

    /** Where to listen and which files to serve. */
    record Settings(String host, int port, Path certificateFile, Path keyFile, Duration reloadInterval) {

        Settings {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(certificateFile, "certificateFile");
            Objects.requireNonNull(keyFile, "keyFile");
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
            }
            if (reloadInterval.isNegative() || reloadInterval.isZero()) {
                throw new IllegalArgumentException("reloadInterval must be positive, got " + reloadInterval);
            }
        }
    }

    static final String METRICS = "/metrics";

    private static final Logger LOG = LoggerFactory.getLogger(SecureMetricsServer.class);
    private static final String TEXT = "text/plain; charset=utf-8";
    private static final int THREADS = 8;

    private final Settings settings;
    private final KubernetesAuthorizer authorizer;
    private final MetricsExposition metrics;
    private final CertificateFiles files;
    private final ScheduledExecutorService poller;
    private final Object lock = new Object();

    // guarded by lock
    private Server server;
    private SslContextFactory.Server ssl;
    private KeyMaterial serving;
    private boolean closed;
    private String lastProblem;

    private volatile int port = -1;

    SecureMetricsServer(Settings settings, KubernetesAuthorizer authorizer, MetricsExposition metrics, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.authorizer = Objects.requireNonNull(authorizer, "authorizer");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.files = new CertificateFiles(settings.certificateFile(), settings.keyFile(), clock);
        this.poller = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "ringmaster-metrics-tls-poll");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Reads the certificate files, listens once they are valid, and polls them. Never throws for bad files. */
    void start() {
        poll();
        long interval = settings.reloadInterval().toMillis();
        poller.scheduleWithFixedDelay(this::poll, interval, interval, TimeUnit.MILLISECONDS);
    }

    /** The port listened on, empty while not listening. */
    OptionalInt port() {
        int current = port;
        return current < 0 ? OptionalInt.empty() : OptionalInt.of(current);
    }

    /** Why the port is not open, empty while it is. */
    Optional<String> problem() {
        synchronized (lock) {
            return port < 0 ? Optional.of(lastProblem == null ? "not listening" : lastProblem) : Optional.empty();
        }
    }

    void poll() {
        try {
            synchronized (lock) {
                if (closed) {
                    return;
                }
                CertificateFiles.Change change = files.poll();
                if (change instanceof CertificateFiles.Accepted accepted) {
                    accept(accepted.material());
                } else if (change instanceof CertificateFiles.Rejected rejected) {
                    lastProblem = "no usable TLS certificate: " + rejected.problem();
                    if (serving == null) {
                        LOG.warn("metrics (HTTPS) not listening yet: {}; checked every {} ms", rejected.problem(),
                                settings.reloadInterval().toMillis());
                    } else {
                        LOG.error("metrics TLS certificate files changed but cannot be used: {}; still serving {}",
                                rejected.problem(), serving.describe());
                    }
                }
                if (server == null && serving != null) {
                    listen();
                }
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.error("metrics certificate poll failed", e); // the next poll tries again
        }
    }

    private void accept(KeyMaterial material) {
        if (ssl != null) {
            try {
                ssl.reload(factory -> factory.setKeyStore(material.keyStore()));
            } catch (Exception e) {
                LOG.error("metrics TLS certificate could not be loaded ({}); still serving {}", e, serving.describe());
                return;
            }
            LOG.info("metrics TLS certificate reloaded: {}", material.describe());
        }
        serving = material;
    }

    private void listen() {
        TlsJetty.Parts parts = TlsJetty.server("ringmaster-metrics", THREADS, THREADS, serving, settings.host(),
                settings.port(), Duration.ofSeconds(30));
        Server created = parts.server();
        ServerConnector connector = parts.connector();
        SslContextFactory.Server factory = parts.ssl();
        created.setHandler(new MetricsHandler());
        created.setStopTimeout(2_000);
        try {
            created.start();
        } catch (Exception e) {
            TlsJetty.stopQuietly(created);
            String problem = "cannot listen on " + settings.host() + ":" + settings.port() + ": " + e;
            if (!problem.equals(lastProblem)) {
                LOG.error("metrics (HTTPS) {}; trying again every {} ms", problem, settings.reloadInterval().toMillis());
            }
            lastProblem = problem;
            return;
        }
        server = created;
        ssl = factory;
        lastProblem = null;
        port = connector.getLocalPort();
        LOG.info("metrics listening on https://{}:{}{} for clients the API server authenticates and allows "
                + "get on {}, serving {}", settings.host(), port, METRICS, METRICS, serving.describe());
    }

    @Override
    public void close() {
        Server stopping;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            stopping = server;
            server = null;
            ssl = null;
        }
        poller.shutdownNow();
        if (stopping != null) {
            int stoppedPort = port;
            TlsJetty.stopQuietly(stopping);
            port = -1;
            LOG.info("metrics (HTTPS) on {}:{} stopped", settings.host(), stoppedPort);
        }
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
