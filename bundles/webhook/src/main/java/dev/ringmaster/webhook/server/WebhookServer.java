package dev.ringmaster.webhook.server;

import dev.ringmaster.webhook.dispatch.HandlerTable;
import dev.ringmaster.webhook.review.AdmissionReviewCodec;
import dev.ringmaster.webhook.tls.CertificateFiles;
import dev.ringmaster.webhook.tls.KeyMaterial;
import dev.ringmaster.webhook.tls.TlsJetty;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTPS AdmissionReview server: Jetty with one TLS connector (TLS 1.2 and 1.3, HTTP/1.1), the
 * certificate and key read from PEM files and polled for changes.
 *
 * <p>The port opens only once the files hold a valid pair; until then {@link #problem()} says why,
 * and every poll tries again. Files (or a whole directory) that are not there yet are waited for
 * quietly: a warning, no rejection counted. A valid new pair replaces the served one in place: connections open at
 * that moment keep their session, new ones get the new certificate. An invalid new pair is logged and
 * ignored, so the last good certificate stays in use. A served certificate that expires is logged
 * and reported by {@link #problem()}, still served (nothing better is at hand).
 *
 * <p>{@link #close()} stops gracefully: no new connections or requests, requests in flight finish
 * (up to the shutdown timeout).
 */
public final class WebhookServer implements AutoCloseable {

    /** Told when the port opens and after it closed; called while this server's lock is held. */
    public interface Listener {
        void listening(int port);

        void stopped();
    }

    private static final Logger LOG = LoggerFactory.getLogger(WebhookServer.class);
    private static final String TLS_1_2 = "TLSv1.2";
    private static final String TLS_1_3 = "TLSv1.3";

    private final WebhookSettings settings;
    private final Supplier<HandlerTable> handlers;
    private final WebhookMetrics metrics;
    private final Clock clock;
    private final Listener listener;
    private final CertificateFiles files;
    private final AdmissionReviewCodec codec = new AdmissionReviewCodec();
    private final ScheduledExecutorService poller;
    private final Object lock = new Object();

    // guarded by lock
    private Server server;
    private SslContextFactory.Server sslContextFactory;
    private boolean closed;
    private boolean expiryLogged;
    private String lastListenProblem;

    // read by problem() without the lock (a stop can hold it for the shutdown timeout)
    private volatile KeyMaterial serving;
    private volatile int port = -1;
    private volatile String listenProblem;

    public WebhookServer(WebhookSettings settings, Supplier<HandlerTable> handlers, WebhookMetrics metrics,
            Clock clock, Listener listener) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.handlers = Objects.requireNonNull(handlers, "handlers");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.files = new CertificateFiles(settings.certificateFile(), settings.keyFile(), clock);
        this.poller = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "ringmaster-webhook-tls-poll");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Reads the certificate files and listens if they are valid; then polls them. Never throws for bad files. */
    public void start() {
        poll();
        long interval = settings.reloadInterval().toMillis();
        poller.scheduleWithFixedDelay(this::poll, interval, interval, TimeUnit.MILLISECONDS);
    }

    /** The port listened on, empty while not listening. */
    public OptionalInt port() {
        int current = port;
        return current < 0 ? OptionalInt.empty() : OptionalInt.of(current);
    }

    /** The certificate served, if any. */
    public Optional<KeyMaterial> serving() {
        return Optional.ofNullable(serving);
    }

    /** Why the server does not serve with a valid certificate; empty while it does. */
    public Optional<String> problem() {
        KeyMaterial current = serving;
        if (current == null) {
            return Optional.of("no valid TLS certificate, not listening: "
                    + files.problem().orElse("the certificate files were not read yet"));
        }
        String notListening = listenProblem;
        if (port < 0) {
            return Optional.of(notListening == null ? "not listening" : notListening);
        }
        if (clock.instant().isAfter(current.notAfter())) {
            return Optional.of("the served TLS certificate expired at " + current.notAfter()
                    + "; waiting for a renewed one in " + settings.certificateFile());
        }
        return Optional.empty();
    }

    /** One check of the files: listen, reload or complain. Runs on the poll thread (and once in start). */
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
                    reject(rejected);
                }
                if (server == null && serving != null) {
                    listen();
                }
                checkExpiry();
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.error("webhook certificate poll failed", e); // and the next poll tries again
        }
    }

    private void accept(KeyMaterial material) {
        if (sslContextFactory != null) {
            try {
                sslContextFactory.reload(factory -> factory.setKeyStore(material.keyStore()));
            } catch (Exception e) {
                metrics.certificateChange(false);
                LOG.error("webhook TLS certificate from {} could not be loaded ({}); still serving {}",
                        settings.certificateFile(), e, serving.describe());
                return;
            }
            LOG.info("webhook TLS certificate reloaded: {}", material.describe());
        } else {
            LOG.info("webhook TLS certificate: {}", material.describe());
        }
        serving = material;
        expiryLogged = false;
        metrics.serving(material.notAfter());
        metrics.certificateChange(true);
    }

    private void reject(CertificateFiles.Rejected rejected) {
        String problem = rejected.problem();
        KeyMaterial current = serving;
        if (current == null && rejected.missing()) {
            // nothing served and nothing to judge yet: the files are still to come (the sharder writes them
            // in self-signed mode, the kubelet mounts a Secret that is not there yet); not a rejection
            LOG.warn("webhook not listening yet: {}; waiting for the certificate files (checked every {} ms)",
                    problem, settings.reloadInterval().toMillis());
            return;
        }
        metrics.certificateChange(false);
        if (current == null) {
            LOG.error("webhook not listening, its TLS certificate cannot be used: {}", problem);
        } else {
            LOG.error("webhook TLS certificate files changed but cannot be used: {}; still serving {}",
                    problem, current.describe());
        }
    }

    private void checkExpiry() {
        KeyMaterial current = serving;
        if (current != null && !expiryLogged && clock.instant().isAfter(current.notAfter())) {
            expiryLogged = true;
            LOG.error("the webhook's TLS certificate expired at {} and no valid renewal is in {} ({})",
                    current.notAfter(), settings.certificateFile(), current.describe());
        }
    }

    private void listen() {
        TlsJetty.Parts parts = TlsJetty.server("ringmaster-webhook", settings.maxThreads(), WebhookSettings.MIN_THREADS,
                serving, settings.host(), settings.port(), settings.idleTimeout());
        Server created = parts.server();
        ServerConnector connector = parts.connector();
        SslContextFactory.Server ssl = parts.ssl();
        created.setHandler(new GracefulHandler(
                new AdmissionReviewHandler(handlers, codec, metrics, created.getScheduler(), settings)));
        ErrorHandler errors = new ErrorHandler(); // for what Jetty rejects before our handler (bad HTTP)
        errors.setDefaultResponseMimeType("application/json");
        errors.setShowStacks(false);
        created.setErrorHandler(errors);
        created.setStopTimeout(settings.shutdownTimeout().toMillis());
        try {
            created.start();
        } catch (Exception e) {
            TlsJetty.stopQuietly(created);
            String problem = "cannot listen on " + settings.address() + ": " + e;
            listenProblem = problem;
            if (!problem.equals(lastListenProblem)) {
                LOG.error("webhook {}; trying again every {} ms", problem, settings.reloadInterval().toMillis());
            }
            lastListenProblem = problem;
            return;
        }
        server = created;
        sslContextFactory = ssl;
        listenProblem = null;
        lastListenProblem = null;
        port = connector.getLocalPort();
        LOG.info("webhook listening on https://{}:{} (TLS 1.2/1.3), serving {}", settings.host(), port,
                handlers.get().prefixes());
        listener.listening(port);
    }

    /** Stops gracefully: no new connections, requests in flight finish within the shutdown timeout. */
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
            sslContextFactory = null;
        }
        poller.shutdownNow();
        if (stopping != null) {
            Instant start = clock.instant();
            int stoppedPort = port;
            TlsJetty.stopQuietly(stopping);
            port = -1;
            LOG.info("webhook on {}:{} stopped (took {} ms)", settings.host(), stoppedPort,
                    Duration.between(start, clock.instant()).toMillis());
            synchronized (lock) {
                listener.stopped();
            }
        }
    }
}
