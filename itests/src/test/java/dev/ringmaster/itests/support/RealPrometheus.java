package dev.ringmaster.itests.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A Prometheus server (Debian's {@code prometheus} package, {@code /usr/bin/prometheus}) that scrapes one
 * target every second, as a ServiceMonitor would (job {@code sharder}, namespace {@code sharding-system}),
 * and evaluates a rules file every second.
 */
public final class RealPrometheus implements AutoCloseable {

    /** One alert as Prometheus reports it: its labels and state ({@code pending}, {@code firing}). */
    public record Alert(Map<String, String> labels, String state) {
    }

    private final Process process;
    private final int port;
    private final Path log;

    private RealPrometheus(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Whether the binary is there. */
    public static boolean available() {
        return Files.isExecutable(Path.of("/usr/bin/prometheus"));
    }

    /** Starts it in {@code work} with these rule groups (a rules file's content) and waits until it is ready. */
    public static RealPrometheus start(Path work, String target, String rules) {
        try {
            Files.createDirectories(work);
            Files.writeString(work.resolve("rules.yaml"), rules);
            Files.writeString(work.resolve("prometheus.yaml"), """
                    global: {scrape_interval: 1s, evaluation_interval: 1s}
                    rule_files: [rules.yaml]
                    scrape_configs:
                    - job_name: sharder
                      static_configs:
                      - targets: ['%s']
                        labels: {namespace: sharding-system}
                    """.formatted(target));
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            Path log = work.resolve("prometheus.log");
            Process process = new ProcessBuilder("/usr/bin/prometheus", "--config.file=" + work.resolve("prometheus.yaml"),
                    "--storage.tsdb.path=" + work.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                    "--log.level=warn").redirectErrorStream(true).redirectOutput(log.toFile()).start();
            RealPrometheus prometheus = new RealPrometheus(process, port, log);
            Waiting.until(Duration.ofSeconds(60), prometheus::describe, () -> prometheus.get("/-/ready").isPresent());
            return prometheus;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The alerts pending or firing now. */
    public List<Alert> alerts() {
        List<Alert> alerts = new ArrayList<>();
        get("/api/v1/alerts").ifPresent(body -> {
            try {
                for (JsonNode alert : new ObjectMapper().readTree(body).path("data").path("alerts")) {
                    Map<String, String> labels = new TreeMap<>();
                    alert.path("labels").fields().forEachRemaining(label -> labels.put(label.getKey(), label.getValue().asText()));
                    alerts.add(new Alert(labels, alert.path("state").asText()));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return alerts;
    }

    /** The firing alerts named so, by their labels without {@code alertname} and {@code severity}. */
    public List<Map<String, String>> firing(String alertname) {
        return alerts().stream().filter(alert -> alert.state().equals("firing"))
                .filter(alert -> alertname.equals(alert.labels().get("alertname"))).map(alert -> {
                    Map<String, String> labels = new TreeMap<>(alert.labels());
                    labels.remove("alertname");
                    labels.remove("severity");
                    return (Map<String, String>) labels;
                }).toList();
    }

    public String describe() {
        try {
            return "Prometheus on " + port + (process.isAlive() ? "" : " (exited " + process.exitValue() + ")") + ":\n"
                    + (Files.exists(log) ? Files.readString(log) : "");
        } catch (IOException e) {
            return e.toString();
        }
    }

    private Optional<String> get(String path) {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(response.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
