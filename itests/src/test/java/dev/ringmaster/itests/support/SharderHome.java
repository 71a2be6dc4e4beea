package dev.ringmaster.itests.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A copy of the distribution for one {@code bin/ringmaster run}, set up as an operator sets up a
 * replica on a machine of its own: free ports on 127.0.0.1 for {@code /healthz}…, the webhook and the
 * secured {@code /metrics}, a TLS folder, the shipped {@code etc/} otherwise. Several can run side by side.
 */
public record SharderHome(Path home, int opsPort, int webhookPort, int metricsPort, Path tls) {

    /** A fresh copy named {@code name} under {@code target/}. */
    public static SharderHome prepare(String name) {
        try {
            Path home = Distribution.copy(name);
            int[] ports = freePorts(3);
            Files.writeString(home.resolve("etc/dev.ringmaster.ops.http.cfg"), "host = 127.0.0.1\nport = " + ports[0] + "\n");
            listenOnLoopback(home.resolve("etc/dev.ringmaster.webhook.cfg"), "port = 9443", ports[1]);
            listenOnLoopback(home.resolve("etc/dev.ringmaster.metrics.cfg"), "port = 8443", ports[2]);
            return new SharderHome(home, ports[0], ports[1], ports[2], WebhookCertificates.write(home.resolve("tls")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This home with {@code identity} as its leader election identity (etc/, as an operator sets it). */
    public SharderHome withIdentity(String identity) {
        try {
            Path config = home.resolve("etc/dev.ringmaster.sharder.cfg");
            Files.writeString(config, Files.readString(config).replace("identity =", "identity = " + identity));
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code run} with this home's kubeconfig and TLS files, in {@code sharding-system}. */
    public List<String> runArgs(Path kubeconfig) {
        return List.of("run", "--kubeconfig", kubeconfig.toString(), "--namespace", RealCluster.SYSTEM_NAMESPACE,
                "--tls-dir", tls.resolve(WebhookCertificates.FIRST).toString());
    }

    /** {@link #runArgs} with webhook configurations that make the API server call this replica's webhook. */
    public List<String> runArgsCalledBack(Path kubeconfig) {
        List<String> args = new ArrayList<>(runArgs(kubeconfig));
        args.addAll(List.of("--webhook-url", "https://127.0.0.1:" + webhookPort,
                "--webhook-ca", tls.resolve(WebhookCertificates.CA).toString()));
        return args;
    }

    /** The HTTP status of an ops endpoint such as {@code /readyz}, -1 when nothing answers. */
    public int status(String path) {
        return get(path).map(HttpResponse::statusCode).orElse(-1);
    }

    /** The Prometheus scrape of {@code /metrics}. */
    public String metrics() {
        return get("/metrics").filter(response -> response.statusCode() == 200).map(HttpResponse::body)
                .orElseThrow(() -> new AssertionError("/metrics did not answer on port " + opsPort));
    }

    private Optional<HttpResponse<String>> get(String path) {
        try {
            return Optional.of(HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + opsPort + path)).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString()));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static void listenOnLoopback(Path config, String shippedPort, int port) throws IOException {
        Files.writeString(config, Files.readString(config).replace("host = 0.0.0.0", "host = 127.0.0.1")
                .replace(shippedPort, "port = " + port));
    }

    /**
     * {@code count} distinct free ports: the sockets stay open until all are chosen, since a port closed
     * at once may be handed out again (ops and webhook got the same one once, and the webhook never bound).
     */
    private static int[] freePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                sockets.add(new ServerSocket(0));
            }
            return sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException e) {
                    // closing a socket that never accepted: nothing to lose
                }
            }
        }
    }
}
