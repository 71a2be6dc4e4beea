package dev.ringmaster.webhook.server;

import static dev.ringmaster.webhook.server.ServerFixture.SHARDER_PATH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.webhook.testing.HttpsClient;
import dev.ringmaster.webhook.testing.RawConnection;
import dev.ringmaster.webhook.testing.Reviews;
import dev.ringmaster.webhook.testing.TestPki;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Slow clients and a graceful stop. */
class WebhookTimeoutsTest extends WebhookServerTestBase {

    private static final ObjectMapper JSON = new ObjectMapper();


    @BeforeEach
    void certificate() throws IOException {
        fixture = new ServerFixture(pki, directory.resolve("tls"));
        fixture.mount.publish(pki.issue(TestPki.KeyFormat.RSA_PKCS1));
    }

    /** Head sent, body promised but stalled: 408 at the read timeout, and others are served meanwhile. */
    @Test
    void aStalledBodyIsAnsweredWith408AtTheReadTimeout() throws Exception {
        fixture.start(fixture.settings().withTimeouts(Duration.ofSeconds(30), Duration.ofMillis(700)), Clock.systemUTC());
        HttpsClient client = fixture.client();
        try (RawConnection stalled = new RawConnection(pki.clientContext(), fixture.port())) {
            long start = System.nanoTime();
            stalled.write("POST " + SHARDER_PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 500\r\n\r\n{\"kind\":");
            assertThat(client.review(SHARDER_PATH, Reviews.configMapCreate("meanwhile", "cm")).status())
                    .as("served while the other client stalls").isEqualTo(200);

            RawConnection.Response response = stalled.read();
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(response.status()).isEqualTo(408);
            assertThat(response.headers()).containsEntry("connection", "close");
            assertThat(JSON.readTree(response.body()).get("message").asText())
                    .isEqualTo("the request body did not arrive within 700 ms");
            assertThat(waitedMillis).isBetween(600L, 5_000L);
            assertThat(stalled.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        assertThat(fixture.count("sharder", Outcome.TIMEOUT)).isEqualTo(1);
        assertThat(client.review(SHARDER_PATH, Reviews.configMapCreate("after", "cm")).status()).isEqualTo(200);
    }

    /** A body stalled longer than the connection's idle timeout (shorter than the read timeout) ends the same way. */
    @Test
    void aStalledBodyIsAnsweredWith408AtTheIdleTimeout() throws Exception {
        fixture.start(fixture.settings().withTimeouts(Duration.ofMillis(700), Duration.ofSeconds(30)), Clock.systemUTC());
        try (RawConnection stalled = new RawConnection(pki.clientContext(), fixture.port())) {
            stalled.write("POST " + SHARDER_PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 500\r\n\r\n");
            RawConnection.Response response = stalled.read();
            assertThat(response.status()).isEqualTo(408);
            assertThat(JSON.readTree(response.body()).get("message").asText())
                    .isEqualTo("the request body did not arrive before the idle timeout");
            assertThat(stalled.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        assertThat(fixture.client().review(SHARDER_PATH, Reviews.configMapCreate("after", "cm")).status()).isEqualTo(200);
    }

    /** A request head that never completes: the connection is closed at the idle timeout. */
    @Test
    void aStalledHeadIsClosedAtTheIdleTimeout() throws Exception {
        fixture.start(fixture.settings().withTimeouts(Duration.ofMillis(700), Duration.ofSeconds(30)), Clock.systemUTC());
        try (RawConnection stalled = new RawConnection(pki.clientContext(), fixture.port())) {
            stalled.write("POST " + SHARDER_PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty");
            assertThat(fixture.client().review(SHARDER_PATH, Reviews.configMapCreate("meanwhile", "cm")).status())
                    .isEqualTo(200);
            assertThat(stalled.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
    }

    /** A TCP connection that never starts its TLS handshake is closed at the idle timeout too. */
    @Test
    void aStalledHandshakeIsClosedAtTheIdleTimeout() throws Exception {
        fixture.start(fixture.settings().withTimeouts(Duration.ofMillis(700), Duration.ofSeconds(30)), Clock.systemUTC());
        try (Socket silent = new Socket(InetAddress.getLoopbackAddress(), fixture.port())) {
            silent.setSoTimeout(5_000);
            long start = System.nanoTime();
            assertThat(silent.getInputStream().read()).isEqualTo(-1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(500L, 5_000L);
        }
    }

    /** A stop lets the request in flight finish, while the port no longer accepts connections. */
    @Test
    void stopsGracefullyFinishingTheRequestInFlight() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        fixture.register("slow", "/slow/", (path, request) -> {
            entered.countDown();
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return AdmissionResponse.allow();
        });
        fixture.start(fixture.settings(), Clock.systemUTC());
        int port = fixture.port();
        HttpsClient client = fixture.client();

        CompletableFuture<HttpsClient.Answer> inFlight = CompletableFuture.supplyAsync(
                () -> client.review("/slow/", Reviews.configMapCreate("in-flight", "cm")));
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> stopping = CompletableFuture.runAsync(fixture.server::close);

        await().atMost(Duration.ofSeconds(10)).until(() -> refusesConnections(port));
        assertThat(stopping).isNotDone();
        release.countDown();

        HttpsClient.Answer answer = inFlight.get(10, TimeUnit.SECONDS);
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.json().at("/response/uid").asText()).isEqualTo("in-flight");
        stopping.get(10, TimeUnit.SECONDS);
        assertThat(fixture.server.port()).isEmpty();
        assertThat(fixture.stopped.get()).isEqualTo(1);
    }

    private static boolean refusesConnections(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return false;
        } catch (ConnectException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
