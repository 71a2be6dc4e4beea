package dev.ringmaster.shard.josdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.shard.client.Sharding;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The JOSDK shard's hand-backs against the CRUD mock server (the Lease) and a server that never answers (the sweep). */
@EnableKubernetesMockClient(crud = true)
class HandBacksTest {

    KubernetesClient client;

    /**
     * A shard stopping cuts its sweep's list off; that is no failure to warn about (it was, whenever a
     * list was in flight).
     */
    @Test
    void aSweepCutOffByCloseIsNoWarning() throws Exception {
        Sharding sharding = Sharding.forRing("example").shard("shard-0").namespace("hand-backs").client(client).build();
        sharding.lease().start();
        await().atMost(Duration.ofSeconds(10)).until(sharding.lease()::isHeld);
        PrintStream standardError = System.err;
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        try (ServerSocket silent = new ServerSocket(0); KubernetesClient unanswered = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(client.getConfiguration())
                        .withMasterUrl("http://127.0.0.1:" + silent.getLocalPort()).build()).build()) {
            HandBacks<ConfigMap> handBacks = new HandBacks<>(sharding, new ExecutionGate(), 1, "recorder");
            handBacks.sweep(() -> unanswered.configMaps().inNamespace("hand-backs").list().getItems(), Duration.ofMillis(50));
            silent.setSoTimeout(10_000);
            try (Socket inFlight = silent.accept()) {
                System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8)); // slf4j-simple's target
                handBacks.close(Duration.ofSeconds(5));
                for (Thread thread : Thread.getAllStackTraces().keySet()) {
                    if (thread.getName().equals("drain-sweep-recorder")) {
                        thread.join(10_000); // it logs, or not, before it ends
                    }
                }
            } finally {
                System.setErr(standardError);
            }
        } finally {
            sharding.close();
        }
        assertThat(logged.toString(StandardCharsets.UTF_8)).doesNotContain("could not list its drained objects");
    }
}
