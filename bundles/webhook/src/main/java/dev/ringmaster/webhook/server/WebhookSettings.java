package dev.ringmaster.webhook.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How the webhook server listens and what it accepts.
 *
 * @param host            address to listen on; {@code 0.0.0.0} for all interfaces
 * @param port            TCP port; 0 picks a free one
 * @param certificateFile PEM certificate chain, server certificate first ({@code tls.crt})
 * @param keyFile         PEM private key ({@code tls.key})
 * @param maxRequestBytes largest accepted request body
 * @param idleTimeout     a connection with no traffic for this long is closed (also a stalled TLS
 *                        handshake or request head)
 * @param readTimeout     a request body must have arrived completely this long after its head
 * @param reloadInterval  how often the certificate files are checked for a change
 * @param shutdownTimeout how long a stop waits for requests in flight
 * @param maxThreads      most threads serving connections and requests
 */
public record WebhookSettings(String host, int port, Path certificateFile, Path keyFile, int maxRequestBytes,
        Duration idleTimeout, Duration readTimeout, Duration reloadInterval, Duration shutdownTimeout,
        int maxThreads) {

    public static final int DEFAULT_PORT = 9443;
    public static final int DEFAULT_MAX_REQUEST_BYTES = 3 * 1024 * 1024;
    /** Jetty needs threads for its acceptor and selectors besides the ones serving requests. */
    static final int MIN_THREADS = 8;

    public WebhookSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(certificateFile, "certificateFile");
        Objects.requireNonNull(keyFile, "keyFile");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
        }
        if (maxRequestBytes < 1) {
            throw new IllegalArgumentException("maxRequestBytes must be positive, got " + maxRequestBytes);
        }
        positive("idleTimeout", idleTimeout);
        positive("readTimeout", readTimeout);
        positive("reloadInterval", reloadInterval);
        Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        if (maxThreads < MIN_THREADS) {
            throw new IllegalArgumentException("maxThreads must be at least " + MIN_THREADS + ", got " + maxThreads);
        }
    }

    /** The defaults, with the certificate and key files {@code tls.crt} and {@code tls.key} of a directory. */
    public static WebhookSettings defaults(String host, int port, Path tlsDirectory) {
        return new WebhookSettings(host, port, tlsDirectory.resolve("tls.crt"), tlsDirectory.resolve("tls.key"),
                DEFAULT_MAX_REQUEST_BYTES, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(5),
                Duration.ofSeconds(10), 64);
    }

    public WebhookSettings withTimeouts(Duration idle, Duration read) {
        return new WebhookSettings(host, port, certificateFile, keyFile, maxRequestBytes, idle, read, reloadInterval,
                shutdownTimeout, maxThreads);
    }

    public WebhookSettings withReloadInterval(Duration interval) {
        return new WebhookSettings(host, port, certificateFile, keyFile, maxRequestBytes, idleTimeout, readTimeout,
                interval, shutdownTimeout, maxThreads);
    }

    public WebhookSettings withMaxRequestBytes(int bytes) {
        return new WebhookSettings(host, port, certificateFile, keyFile, bytes, idleTimeout, readTimeout,
                reloadInterval, shutdownTimeout, maxThreads);
    }

    public WebhookSettings withShutdownTimeout(Duration timeout) {
        return new WebhookSettings(host, port, certificateFile, keyFile, maxRequestBytes, idleTimeout, readTimeout,
                reloadInterval, timeout, maxThreads);
    }

    /** {@code host:port} as configured. */
    public String address() {
        return host + ":" + port;
    }

    private static void positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}
