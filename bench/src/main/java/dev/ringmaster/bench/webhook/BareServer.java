package dev.ringmaster.bench.webhook;

import dev.ringmaster.webhook.tls.KeyMaterial;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The baseline: Jetty set up as the webhook server sets it up (same thread pool, TLS 1.2/1.3 with the
 * same key, HTTP/1.1, idle timeout), with a handler that consumes the body and answers fixed bytes.
 * What the webhook adds on top (parsing, dispatch, the handler, serialization, metrics) is the difference.
 */
final class BareServer implements AutoCloseable {

    private final Server server;
    private final ServerConnector connector;

    BareServer(KeyMaterial material, byte[] fixedResponse) throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool(64, 8);
        threads.setName("bare-jetty");
        threads.setDaemon(true);
        server = new Server(threads);
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStore(material.keyStore());
        ssl.setKeyStorePassword(material.keyStorePassword());
        ssl.setKeyManagerPassword(material.keyStorePassword());
        ssl.setIncludeProtocols("TLSv1.2", "TLSv1.3");
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        connector = new ServerConnector(server, new SslConnectionFactory(ssl, HttpVersion.HTTP_1_1.asString()),
                new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        connector.setIdleTimeout(30_000);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                Content.Source.consumeAll(request, Callback.from(() -> {
                    response.setStatus(200);
                    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, fixedResponse.length);
                    response.write(true, ByteBuffer.wrap(fixedResponse), callback);
                }, callback::failed));
                return true;
            }
        });
        server.start();
    }

    int port() {
        return connector.getLocalPort();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
