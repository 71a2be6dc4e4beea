package dev.ringmaster.webhook.tls;

import java.time.Duration;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Jetty server with one TLS connector as Ringmaster's HTTPS endpoints listen (the webhook, the
 * authorized metrics): TLS 1.2 and 1.3, HTTP/1.1, no server or X-Powered-By header, daemon threads. The
 * caller adds its handler, starts it, and reloads the certificate through {@link Parts#ssl()}.
 */
public final class TlsJetty {

    private static final Logger LOG = LoggerFactory.getLogger(TlsJetty.class);

    /** The server, its connector (for the port bound) and its TLS context (for certificate reloads). */
    public record Parts(Server server, ServerConnector connector, SslContextFactory.Server ssl) {
    }

    private TlsJetty() {
    }

    /**
     * A server not yet started, serving {@code material} on {@code host:port} (0: any free port).
     *
     * @param name the threads' name
     */
    public static Parts server(String name, int maxThreads, int minThreads, KeyMaterial material, String host, int port,
            Duration idleTimeout) {
        QueuedThreadPool threads = new QueuedThreadPool(maxThreads, minThreads);
        threads.setName(name);
        threads.setDaemon(true);
        Server server = new Server(threads);
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStore(material.keyStore());
        ssl.setKeyStorePassword(material.keyStorePassword());
        ssl.setKeyManagerPassword(material.keyStorePassword());
        ssl.setIncludeProtocols("TLSv1.2", "TLSv1.3");
        ssl.setSniRequired(false);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        ServerConnector connector = new ServerConnector(server,
                new SslConnectionFactory(ssl, HttpVersion.HTTP_1_1.asString()), new HttpConnectionFactory(http));
        connector.setHost(host);
        connector.setPort(port);
        connector.setIdleTimeout(idleTimeout.toMillis());
        server.addConnector(connector);
        return new Parts(server, connector, ssl);
    }

    /** Stops the server, logging rather than throwing what goes wrong. */
    public static void stopQuietly(Server server) {
        try {
            server.stop();
        } catch (Exception e) {
            LOG.warn("stopping the Jetty server {}: {}", ((QueuedThreadPool) server.getThreadPool()).getName(), e.toString());
        }
    }
}
