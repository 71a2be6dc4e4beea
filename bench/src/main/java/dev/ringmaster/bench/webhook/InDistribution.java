package dev.ringmaster.bench.webhook;

import dev.ringmaster.bench.BenchCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import javax.net.ssl.SSLSocket;

/**
 * The webhook as the distribution runs it: {@code bin/ringmaster run} (Felix, the webhook and sharder
 * bundles) against a real API server holding the ring {@link ShardingHandler#RING} over ConfigMaps
 * and the Secrets they control, with three live shard Leases: what {@link ShardingHandler} sets up
 * in memory, here read from the API server by the sharder itself.
 */
final class InDistribution {

    private static final String LEASE_NAMESPACE = "webhook-load";

    private InDistribution() {
    }

    /** Starts it with these JVM options and returns once {@code probe} (a complete HTTP request) is answered with a patch. */
    static AdmissionLoad.WebhookUnderTest start(Path distribution, Path work, String jvmOptions, byte[] probe)
            throws Exception {
        BenchCluster cluster = new BenchCluster(distribution, work, Map.of());
        try {
            cluster.clusterRing(ShardingHandler.RING, """
                      resources:
                      - group: ""
                        resource: configmaps
                        controlledResources:
                        - group: ""
                          resource: secrets
                    """);
            for (int shard = 0; shard < 3; shard++) {
                cluster.liveShardLease(ShardingHandler.RING, LEASE_NAMESPACE, "shard-" + shard);
            }
            cluster.startSharder(jvmOptions);
            AdmissionLoad.WebhookUnderTest webhook = new AdmissionLoad.WebhookUnderTest(cluster.webhookPort(),
                    cluster.webhookCertificate().clientContext(), cluster);
            if (!BenchCluster.waitUntil(Duration.ofSeconds(60), () -> patches(webhook, probe))) {
                throw new IllegalStateException("the distribution's webhook did not answer with a patch within 60 s");
            }
            return webhook;
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
    }

    /** Whether the webhook answers the request with a JSON patch (it has the ring and its shards). */
    private static boolean patches(AdmissionLoad.WebhookUnderTest webhook, byte[] request) {
        try (SSLSocket socket = (SSLSocket) webhook.tls().getSocketFactory().createSocket("127.0.0.1", webhook.port())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(withConnectionClose(request));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).contains("\"patchType\":\"JSONPatch\"");
        } catch (IOException e) {
            return false;
        }
    }

    private static byte[] withConnectionClose(byte[] request) {
        String text = new String(request, StandardCharsets.UTF_8);
        return text.replaceFirst("\r\n", "\r\nConnection: close\r\n").getBytes(StandardCharsets.UTF_8);
    }
}
