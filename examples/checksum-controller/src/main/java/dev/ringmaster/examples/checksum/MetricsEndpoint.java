package dev.ringmaster.examples.checksum;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ringmaster.shard.client.metrics.ShardLoadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code --metrics-port}: {@code GET /metrics} in Prometheus' text format, on all addresses of the port, with the
 * shard's load report ({@link ShardLoadMetrics}) once {@link #serve} names the shard. Bound when made, so a port in use
 * is found before the shard starts; one thread answers, scrapes being rare and small.
 */
final class MetricsEndpoint implements AutoCloseable {

    private static final String PATH = "/metrics";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ExecutorService answerer;
    private final HttpServer server;

    /** @throws IOException if the port cannot be bound (in use, or not allowed) */
    MetricsEndpoint(int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress(port), 0);
        answerer = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "metrics-" + port);
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(answerer);
        server.createContext("/", this::answer);
        server.start();
    }

    /** From now on the metrics include {@code shard}'s load report. */
    void serve(RunningShard shard) {
        new ShardLoadMetrics(shard.sharding()).bindTo(registry);
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!PATH.equals(exchange.getRequestURI().getPath())) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            if (!"GET".equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().set("Allow", "GET");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        answerer.shutdownNow();
        registry.close();
    }
}
