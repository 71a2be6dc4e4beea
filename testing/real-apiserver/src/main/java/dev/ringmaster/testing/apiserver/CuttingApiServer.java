package dev.ringmaster.testing.apiserver;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An API server that cuts every connection at once, as one that is restarting, for tests of how often
 * a client tries: {@link #url()} is its address, {@link #connections()} counts what it cut.
 */
public final class CuttingApiServer implements AutoCloseable {

    private final ServerSocket socket;
    private final AtomicInteger connections = new AtomicInteger();

    public CuttingApiServer() throws IOException {
        socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!socket.isClosed()) {
                try (Socket connection = socket.accept()) {
                    connections.incrementAndGet();
                } catch (IOException e) {
                    return; // closed
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** {@code https://127.0.0.1:port}. */
    public String url() {
        return "https://127.0.0.1:" + socket.getLocalPort();
    }

    /** The connections cut so far. */
    public int connections() {
        return connections.get();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
