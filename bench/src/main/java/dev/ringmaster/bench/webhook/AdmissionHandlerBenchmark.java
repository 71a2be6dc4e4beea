package dev.ringmaster.bench.webhook;

import dev.ringmaster.bench.InProcessBenchmark;
import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;

/**
 * The sharder's admission handler alone, without HTTP or JSON: from a parsed review of a ConfigMap
 * CREATE (the objects {@link AdmissionLoad} sends) to the patch, on the ring {@link ShardingHandler}
 * sets up. What the handler itself costs per request, which the HTTPS load benchmark cannot
 * separate from TLS and parsing.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AdmissionHandlerBenchmark extends InProcessBenchmark {

    private static final int REQUESTS = 4096;

    private AdmissionHandler handler;
    private AdmissionRequest[] requests;
    private int next;

    @Setup
    public void setUp() {
        handler = ShardingHandler.create(new SimpleMeterRegistry());
        requests = new AdmissionRequest[REQUESTS];
        for (int i = 0; i < REQUESTS; i++) {
            String name = "cm-" + i;
            Map<String, Object> metadata = Map.of("name", name, "namespace", "default",
                    "labels", Map.of("app", "shop", "tier", "backend"),
                    "annotations", Map.of("owner", "team-a", "revision", String.valueOf(i)));
            requests[i] = new AdmissionRequest("uid-" + i, "CREATE", "", "v1", "ConfigMap", "", "configmaps", "",
                    "default", name, "system:serviceaccount:shop:deployer", List.of("system:serviceaccounts"), false,
                    Map.of("apiVersion", "v1", "kind", "ConfigMap", "metadata", metadata,
                            "data", Map.of("settings.yaml", "x".repeat(512))),
                    Map.of());
        }
    }

    @Benchmark
    public AdmissionResponse handle() {
        return handler.handle(ShardingHandler.PATH, requests[next++ & (REQUESTS - 1)]);
    }
}
