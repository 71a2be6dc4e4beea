package dev.ringmaster.webhook.server;

import dev.ringmaster.webhook.dispatch.HandlerTable;
import dev.ringmaster.webhook.review.AdmissionReviewCodec;
import dev.ringmaster.webhook.tls.KeyMaterial;
import dev.ringmaster.webhook.tls.TlsServer;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.server.handler.GracefulHandler;

/**
 * The HTTPS AdmissionReview server: a {@link TlsServer} (its certificate read from PEM files and polled
 * for changes, the port open once they hold a valid pair) serving the {@link AdmissionReviewHandler},
 * with the certificate's changes and expiry in {@link WebhookMetrics}.
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

    private final TlsServer server;

    public WebhookServer(WebhookSettings settings, Supplier<HandlerTable> handlers, WebhookMetrics metrics,
            Clock clock, Listener listener) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(handlers, "handlers");
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(listener, "listener");
        AdmissionReviewCodec codec = new AdmissionReviewCodec();
        this.server = new TlsServer(new TlsServer.Settings("webhook", settings.host(), settings.port(),
                settings.certificateFile(), settings.keyFile(), settings.reloadInterval(), settings.maxThreads(),
                WebhookSettings.MIN_THREADS, settings.idleTimeout(), settings.shutdownTimeout()),
                new TlsServer.Endpoint() {
                    @Override
                    public void mount(Server created) {
                        created.setHandler(new GracefulHandler(
                                new AdmissionReviewHandler(handlers, codec, metrics, created.getScheduler(), settings)));
                        ErrorHandler errors = new ErrorHandler(); // for what Jetty rejects before our handler (bad HTTP)
                        errors.setDefaultResponseMimeType("application/json");
                        errors.setShowStacks(false);
                        created.setErrorHandler(errors);
                    }

                    @Override
                    public String serves() {
                        return handlers.get().prefixes().toString();
                    }

                    @Override
                    public void certificateAccepted(KeyMaterial material) {
                        metrics.serving(material.notAfter());
                        metrics.certificateChange(true);
                    }

                    @Override
                    public void certificateRejected() {
                        metrics.certificateChange(false);
                    }

                    @Override
                    public void listening(int port) {
                        listener.listening(port);
                    }

                    @Override
                    public void stopped() {
                        listener.stopped();
                    }
                }, clock);
    }

    /** Reads the certificate files and listens if they are valid; then polls them. Never throws for bad files. */
    public void start() {
        server.start();
    }

    /** The port listened on, empty while not listening. */
    public OptionalInt port() {
        return server.port();
    }

    /** The certificate served, if any. */
    public Optional<KeyMaterial> serving() {
        return server.serving();
    }

    /** Why the server does not serve with a valid certificate; empty while it does. */
    public Optional<String> problem() {
        return server.problem();
    }

    /** Stops gracefully: no new connections, requests in flight finish within the shutdown timeout. */
    @Override
    public void close() {
        server.close();
    }
}
