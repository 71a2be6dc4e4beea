package dev.ringmaster.testing.apiserver;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * An API server that takes a request and never answers it, for tests of what a component does when a
 * request it has in flight is cut off (a stop, an interrupt): {@link #client()} talks to it.
 */
public final class SilentApiServer implements AutoCloseable {

    /** What cuts the request off; it returns once the component has logged, or not. */
    @FunctionalInterface
    public interface CutOff {
        void run() throws Exception;
    }

    private final ServerSocket socket;
    private final KubernetesClient client;

    /** A silent server and a client to it configured as {@code like} is, but for the server's address. */
    public SilentApiServer(KubernetesClient like) throws IOException {
        this.socket = new ServerSocket(0);
        this.client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(like.getConfiguration())
                .withMasterUrl("http://127.0.0.1:" + socket.getLocalPort()).build()).build();
    }

    public KubernetesClient client() {
        return client;
    }

    /**
     * Waits up to 10 s for a request to arrive, then runs {@code cutOff} while it is in flight.
     *
     * @return what was written to standard error meanwhile (slf4j-simple's target)
     */
    public String loggedWhileCuttingOff(CutOff cutOff) throws Exception {
        socket.setSoTimeout(10_000);
        try (Socket inFlight = socket.accept()) {
            return StandardError.loggedWhile(cutOff::run);
        }
    }

    /** Waits up to 10 s for each thread of this name to end: a cut-off thread logs, or not, before it ends. */
    public static void awaitEnd(String threadName) throws InterruptedException {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals(threadName)) {
                thread.join(10_000);
            }
        }
    }

    @Override
    public void close() throws IOException {
        client.close();
        socket.close();
    }
}
