package dev.ringmaster.testing.apiserver;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP link between processes and the real API server, which a test or benchmark can cut: the
 * processes' kubeconfigs point at this link's port on 127.0.0.1 (the API server's certificate is for
 * 127.0.0.1, so TLS goes through unchanged). {@link #cut()} makes the API server unreachable for those
 * processes alone (every connection reset, new ones refused), {@link #blackHole()} makes it silent
 * (connections stay open, nothing arrives, as in a network partition), {@link #down()} and {@link #up()}
 * make it away for a while (as a restarting API server is), while the other tests' server runs on.
 */
public final class ApiServerLink implements AutoCloseable {

    private final String targetUrl;
    private final InetSocketAddress target;
    private final ServerSocket listener;
    /** Both ends of every connection passed on; with {@link #away}, guarded by "this". */
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean silent;
    private volatile boolean away;

    private ApiServerLink(String targetUrl, InetSocketAddress target) throws IOException {
        this.targetUrl = targetUrl;
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "api-server-link-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A link to the API server at {@code url} (https://127.0.0.1:PORT/). */
    public static ApiServerLink to(String url) {
        URI uri = URI.create(url);
        try {
            return new ApiServerLink(url, new InetSocketAddress(uri.getHost(), uri.getPort()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The URL a client uses to reach the API server through this link. */
    public String url() {
        return "https://127.0.0.1:" + listener.getLocalPort();
    }

    /** Points a kubeconfig file that names the API server at this link instead. */
    public void reroute(Path kubeconfig) {
        try {
            Files.writeString(kubeconfig, Files.readString(kubeconfig).replace(targetUrl, url() + "/"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The API server is away until {@link #up()}: connections reset, new ones closed at once. */
    public synchronized void down() {
        away = true;
        sockets.forEach(ApiServerLink::closeQuietly);
        sockets.clear();
    }

    /** The API server is back: new connections go through again. */
    public void up() {
        away = false;
    }

    /** From now on the API server is unreachable through this link: connections reset, new ones refused. */
    public void cut() {
        close();
    }

    /** From now on nothing passes in either direction; connections stay open and new ones are accepted. */
    public void blackHole() {
        silent = true;
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException e) {
            // closing: nothing left to do
        }
        sockets.forEach(ApiServerLink::closeQuietly);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (away) {
                    client.close();
                    continue;
                }
                Socket server = new Socket(target.getAddress(), target.getPort());
                synchronized (this) {
                    // down() may have run while this connection was being made: it must not outlive the outage
                    if (away) {
                        closeQuietly(client);
                        closeQuietly(server);
                        continue;
                    }
                    sockets.add(client);
                    sockets.add(server);
                }
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                // the listener was closed (cut), or the API server refused: the client sees a reset
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread pump = new Thread(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                byte[] buffer = new byte[16 * 1024];
                for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                    if (!silent) {
                        out.write(buffer, 0, read);
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // one side went away: take the other down too
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "api-server-link-pump");
        pump.setDaemon(true);
        pump.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
