package dev.ringmaster.metrics.auth;

import static dev.ringmaster.metrics.auth.KubernetesAuthorizerTest.READER;
import static dev.ringmaster.metrics.auth.KubernetesAuthorizerTest.STRANGER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ops.MetricsExposition;
import dev.ringmaster.webhook.tls.CertificateBuilder;
import dev.ringmaster.webhook.tls.ClientTls;
import dev.ringmaster.webhook.tls.Pem;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTPS listener: TLS from the webhook's PEM files, and the authorizer's decisions as HTTP answers. */
class SecureMetricsServerTest {

    private static final String SCRAPE = "# TYPE ringmaster_test gauge\nringmaster_test 1.0\n";

    @TempDir
    Path tls;

    private final List<SubjectAccessReview> accessReviews = new ArrayList<>();
    private KubernetesMockServer apiServer;
    private KubernetesClient client;
    private ExecutorService reviews;
    private SecureMetricsServer server;
    private X509Certificate certificate;

    @BeforeEach
    void start() throws Exception {
        apiServer = new KubernetesMockServer(false);
        apiServer.init();
        client = apiServer.createClient();
        KubernetesAuthorizerTest.answerReviews(apiServer, accessReviews);
        reviews = Executors.newFixedThreadPool(2);
        certificate = writeSelfSigned(tls);
        KubernetesAuthorizer authorizer = new KubernetesAuthorizer(() -> client, new KubernetesAuthorizer.Settings(
                Duration.ofSeconds(60), Duration.ofSeconds(10), 16, Duration.ofSeconds(5)), Clock.systemUTC(), reviews);
        server = new SecureMetricsServer(new SecureMetricsServer.Settings("127.0.0.1", 0, tls.resolve("tls.crt"),
                tls.resolve("tls.key"), Duration.ofMillis(200)), authorizer, new FixedScrape(), Clock.systemUTC());
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
        reviews.shutdownNow();
        client.close();
        apiServer.destroy();
    }

    @Test
    void anAllowedTokenGetsTheScrapeOverHttps() throws Exception {
        HttpResponse<String> response = get("/metrics", READER);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(SCRAPE);
        assertThat(response.headers().firstValue("Content-Type")).contains("text/plain; version=0.0.4; charset=utf-8");
        assertThat(response.sslSession().orElseThrow().getPeerCertificates()[0]).isEqualTo(certificate);
    }

    @Test
    void everyOtherRequestGetsNoMetrics() throws Exception {
        HttpResponse<String> none = get("/metrics", null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).contains("Bearer");
        assertThat(get("/metrics", "garbage").statusCode()).isEqualTo(401);
        HttpResponse<String> stranger = get("/metrics", STRANGER);
        assertThat(stranger.statusCode()).isEqualTo(403);
        assertThat(stranger.body()).contains(KubernetesAuthorizerTest.STRANGER_USER).doesNotContain("ringmaster_test");
        assertThat(get("/healthz", READER).statusCode()).isEqualTo(404);
        HttpResponse<String> post = client().send(request("/metrics", READER)
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).contains("GET");
    }

    @Test
    void plainHttpIsNotServed() {
        int port = server.port().orElseThrow();
        assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + port + "/metrics")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(IOException.class);
    }

    @Test
    void withoutCertificateFilesNothingListensAndNewFilesAreServed(@TempDir Path empty) throws Exception {
        SecureMetricsServer waiting = new SecureMetricsServer(new SecureMetricsServer.Settings("127.0.0.1", 0,
                empty.resolve("tls.crt"), empty.resolve("tls.key"), Duration.ofMillis(100)),
                new KubernetesAuthorizer(() -> client, new KubernetesAuthorizer.Settings(Duration.ofSeconds(60),
                        Duration.ofSeconds(10), 16, Duration.ofSeconds(5)), Clock.systemUTC(), reviews),
                new FixedScrape(), Clock.systemUTC());
        try {
            waiting.start();
            assertThat(waiting.port()).isEmpty();
            assertThat(waiting.problem()).hasValueSatisfying(problem -> assertThat(problem).contains("tls.crt"));
            writeSelfSigned(empty);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (waiting.port().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(waiting.port()).isPresent();
        } finally {
            waiting.close();
        }
        assertThat(waiting.port()).isEmpty();
    }

    private HttpResponse<String> get(String path, String token) throws Exception {
        return client().send(request(path, token).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path, String token) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("https://localhost:" + server.port().orElseThrow()
                + path)).timeout(Duration.ofSeconds(10));
        return token == null ? builder : builder.header("Authorization", "Bearer " + token);
    }

    /** A client that trusts exactly the served certificate (its own CA). */
    private HttpClient client() {
        return HttpClient.newBuilder().sslContext(ClientTls.trusting(List.of(certificate)))
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** A self-signed EC certificate for localhost, as tls.crt and tls.key (PKCS#8). */
    static X509Certificate writeSelfSigned(Path directory) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair keys = generator.generateKeyPair();
        Instant now = Instant.now();
        X509Certificate certificate = new CertificateBuilder(new SecureRandom()).build(new CertificateBuilder.Spec(
                "localhost", keys.getPublic(), null, keys.getPrivate(), now.minus(Duration.ofHours(1)),
                now.plus(Duration.ofDays(1)), false, List.of("localhost"), List.of()));
        Files.createDirectories(directory);
        Files.writeString(directory.resolve("tls.key"), Pem.privateKey(keys.getPrivate()));
        Files.writeString(directory.resolve("tls.crt"), Pem.certificates(List.of(certificate)));
        return certificate;
    }

    private static final class FixedScrape implements MetricsExposition {

        @Override
        public String contentType() {
            return "text/plain; version=0.0.4; charset=utf-8";
        }

        @Override
        public void writeTo(OutputStream out) throws IOException {
            out.write(SCRAPE.getBytes(StandardCharsets.UTF_8));
        }
    }
}
