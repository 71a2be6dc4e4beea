package dev.ringmaster.webhook.tls;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of an HTTPS endpoint whose certificate and key are PEM files ({@link TlsJetty}'s server,
 * {@link CertificateFiles}' polling): the webhook's and the authenticated metrics'.
 *
 * <p>The port opens only once the files hold a valid pair; until then {@link #problem()} says why, and
 * every poll tries again. Files (or a whole directory) that are not there yet are waited for quietly:
 * an INFO line, no rejection counted, and one WARN if they are still missing after
 * {@link #WAITING_GRACE}. A valid new pair replaces the served one in place: connections open at that
 * moment keep their session, new ones get the new certificate. An invalid new pair is logged and
 * ignored, so the last good certificate stays in use. A served certificate that expires is logged and
 * reported by {@link #problem()}, still served (nothing better is at hand).
 *
 * <p>{@link #close()} stops gracefully: no new connections or requests, requests in flight finish
 * (up to the stop timeout).
 */
public final class TlsServer implements AutoCloseable {

    /**
     * How long missing certificate files are normal: a replica in self-signed mode writes its own within
     * seconds of starting, a mounted Secret arrives with its pod. Waiting longer is worth a warning.
     */
    public static final Duration WAITING_GRACE = Duration.ofSeconds(30);
    /**
     * How often the files are looked at while no certificate is served (the reload interval once one is): a
     * replica writing its own is ready the moment they are there, not up to a reload interval later.
     */
    static final Duration FIRST_CERTIFICATE_POLL = Duration.ofMillis(250);

    /**
     * Where to listen, which files to serve, and the server's sizes.
     *
     * @param name        what the logs call the endpoint ({@code webhook}); its threads are {@code ringmaster-<name>}
     * @param port        0 picks a free port
     * @param stopTimeout how long a stop waits for requests in flight
     */
    public record Settings(String name, String host, int port, Path certificateFile, Path keyFile,
            Duration reloadInterval, int maxThreads, int minThreads, Duration idleTimeout, Duration stopTimeout) {

        public Settings {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(certificateFile, "certificateFile");
            Objects.requireNonNull(keyFile, "keyFile");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
            Objects.requireNonNull(stopTimeout, "stopTimeout");
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
            }
            if (reloadInterval.isNegative() || reloadInterval.isZero()) {
                throw new IllegalArgumentException("reloadInterval must be positive, got " + reloadInterval);
            }
        }
    }

    /** What the endpoint serves, and what it hears of the server; called while the server's lock is held. */
    public interface Endpoint {

        /** Sets the handlers of a server about to start (one per opening of the port). */
        void mount(Server server);

        /** What the log line of an opened port says is served there. */
        String serves();

        /** A new pair is served. */
        default void certificateAccepted(KeyMaterial material) {
        }

        /** New files could not be used (missing files before the first pair are not counted). */
        default void certificateRejected() {
        }

        default void listening(int port) {
        }

        /** The port closed, after {@link #close()}. */
        default void stopped() {
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(TlsServer.class);

    private final Settings settings;
    private final Endpoint endpoint;
    private final Clock clock;
    private final String name;
    private final CertificateFiles files;
    private final ScheduledExecutorService poller;
    private final Object lock = new Object();

    // guarded by lock
    private Server server;
    private SslContextFactory.Server ssl;
    private boolean closed;
    private boolean expiryLogged;
    private String lastListenProblem;
    /** Since when files that are not there are waited for, with nothing served; null otherwise. */
    private Instant waitingSince;
    private boolean waitingWarned;

    // read by problem() without the lock (a stop can hold it for the stop timeout)
    private volatile KeyMaterial serving;
    private volatile int port = -1;
    private volatile String listenProblem;

    public TlsServer(Settings settings, Endpoint endpoint, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.name = settings.name();
        this.files = new CertificateFiles(settings.certificateFile(), settings.keyFile(), clock);
        this.poller = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "ringmaster-" + name + "-tls-poll");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Reads the certificate files and listens if they are valid; then polls them. Never throws for bad files. */
    public void start() {
        pollAndScheduleNext();
    }

    private void pollAndScheduleNext() {
        poll();
        Duration next = serving != null ? settings.reloadInterval()
                : Collections.min(List.of(FIRST_CERTIFICATE_POLL, settings.reloadInterval()));
        try {
            poller.schedule(this::pollAndScheduleNext, next.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // close() shut the poller down: no more polls
        }
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
                checkWaiting();
                checkExpiry();
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.error("{} certificate poll failed", name, e); // and the next poll tries again
        }
    }

    private void accept(KeyMaterial material) {
        if (ssl != null) {
            try {
                ssl.reload(factory -> factory.setKeyStore(material.keyStore()));
            } catch (Exception e) {
                endpoint.certificateRejected();
                LOG.error("{} TLS certificate from {} could not be loaded ({}); still serving {}", name,
                        settings.certificateFile(), e, serving.describe());
                return;
            }
            LOG.info("{} TLS certificate reloaded: {}", name, material.describe());
        } else {
            LOG.info("{} TLS certificate: {}", name, material.describe());
        }
        serving = material;
        waitingSince = null;
        expiryLogged = false;
        endpoint.certificateAccepted(material);
    }

    private void reject(CertificateFiles.Rejected rejected) {
        String problem = rejected.problem();
        KeyMaterial current = serving;
        if (current == null && rejected.missing()) {
            // nothing served and nothing to judge yet: the files are still to come (the sharder writes them
            // in self-signed mode, the kubelet mounts a Secret that is not there yet); not a rejection
            if (waitingSince == null) {
                waitingSince = clock.instant();
                waitingWarned = false;
            }
            LOG.info("{} not listening yet: {}; waiting for the certificate files (checked every {} ms)", name,
                    problem, settings.reloadInterval().toMillis());
            return;
        }
        waitingSince = null;
        endpoint.certificateRejected();
        if (current == null) {
            LOG.error("{} not listening, its TLS certificate cannot be used: {}", name, problem);
        } else {
            LOG.error("{} TLS certificate files changed but cannot be used: {}; still serving {}", name, problem,
                    current.describe());
        }
    }

    /** Missing files past the grace: said once per wait. */
    private void checkWaiting() {
        if (waitingSince == null || waitingWarned || serving != null) {
            return;
        }
        Duration waited = Duration.between(waitingSince, clock.instant());
        if (waited.compareTo(WAITING_GRACE) >= 0) {
            waitingWarned = true;
            LOG.warn("{} still not listening after {} s: {}; waiting for the certificate files", name,
                    waited.toSeconds(), files.problem().orElse("the certificate files are missing"));
        }
    }

    private void checkExpiry() {
        KeyMaterial current = serving;
        if (current != null && !expiryLogged && clock.instant().isAfter(current.notAfter())) {
            expiryLogged = true;
            LOG.error("the {}'s TLS certificate expired at {} and no valid renewal is in {} ({})", name,
                    current.notAfter(), settings.certificateFile(), current.describe());
        }
    }

    private void listen() {
        TlsJetty.Parts parts = TlsJetty.server("ringmaster-" + name, settings.maxThreads(), settings.minThreads(),
                serving, settings.host(), settings.port(), settings.idleTimeout());
        Server created = parts.server();
        endpoint.mount(created);
        created.setStopTimeout(settings.stopTimeout().toMillis());
        try {
            created.start();
        } catch (Exception e) {
            TlsJetty.stopQuietly(created);
            String problem = "cannot listen on " + settings.host() + ":" + settings.port() + ": " + e;
            listenProblem = problem;
            if (!problem.equals(lastListenProblem)) {
                LOG.error("{} {}; trying again every {} ms", name, problem, settings.reloadInterval().toMillis());
            }
            lastListenProblem = problem;
            return;
        }
        server = created;
        ssl = parts.ssl();
        listenProblem = null;
        lastListenProblem = null;
        port = parts.connector().getLocalPort();
        LOG.info("{} listening on https://{}:{} (TLS 1.2/1.3), serving {}; certificate {}", name, settings.host(),
                port, endpoint.serves(), serving.describe());
        endpoint.listening(port);
    }

    /** Stops gracefully: no new connections, requests in flight finish within the stop timeout. */
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
            Instant start = clock.instant();
            int stoppedPort = port;
            TlsJetty.stopQuietly(stopping);
            port = -1;
            LOG.info("{} on {}:{} stopped (took {} ms)", name, settings.host(), stoppedPort,
                    Duration.between(start, clock.instant()).toMillis());
            synchronized (lock) {
                endpoint.stopped();
            }
        }
    }
}
