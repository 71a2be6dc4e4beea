package dev.ringmaster.sharder.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.testing.MutableClock;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient
class ApiServerReadinessTest {

    KubernetesClient client;
    KubernetesMockServer server;

    private void answerVersion() {
        server.expect().get().withPath("/version")
                .andReturn(200, "{\"major\":\"1\",\"minor\":\"31\",\"gitVersion\":\"v1.31.0\"}").always();
    }

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

    @Test
    void readyWhileTheApiServerAnswers() {
        answerVersion();
        ApiServerReadiness readiness = new ApiServerReadiness(client, clock);
        assertThat(readiness.problem()).hasValue("API server not probed yet");
        readiness.probe();
        assertThat(readiness.problem()).isEmpty();
        assertThat(readiness.name()).isEqualTo("apiserver");
    }

    @Test
    void notReadyWhenTheApiServerIsUnreachable() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (KubernetesClient unreachable = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
                .withMasterUrl("https://127.0.0.1:" + closedPort).withRequestRetryBackoffLimit(0).build()).build()) {
            ApiServerReadiness readiness = new ApiServerReadiness(unreachable, clock);
            readiness.probe();
            assertThat(readiness.problem()).hasValueSatisfying(problem ->
                    assertThat(problem).startsWith("API server https://127.0.0.1:" + closedPort).contains("unreachable"));
        }
    }

    @Test
    void anOldAnswerDoesNotCountAsReady() {
        answerVersion();
        ApiServerReadiness readiness = new ApiServerReadiness(client, clock);
        readiness.probe();
        clock.advance(ApiServerReadiness.PERIOD.multipliedBy(3).plus(Duration.ofSeconds(1)));
        assertThat(readiness.problem()).hasValueSatisfying(problem -> assertThat(problem).startsWith("no answer"));
    }
}
