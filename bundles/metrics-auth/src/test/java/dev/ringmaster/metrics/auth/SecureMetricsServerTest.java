package dev.ringmaster.metrics.auth;

import static dev.ringmaster.metrics.auth.KubernetesAuthorizerTest.READER;
import static dev.ringmaster.metrics.auth.KubernetesAuthorizerTest.STRANGER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ops.MetricsExposition;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.math.BigInteger;
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
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
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
    private HttpClient client() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("server", certificate);
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** A self-signed EC certificate for localhost, as tls.crt and tls.key (PKCS#8). */
    static X509Certificate writeSelfSigned(Path directory) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair keys = generator.generateKeyPair();
        Instant now = Instant.now();
        X500Name name = new X500Name("CN=localhost");
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(now.toEpochMilli()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), name, keys.getPublic());
        builder.addExtension(Extension.subjectAlternativeName, false,
                new GeneralNames(new GeneralName(GeneralName.dNSName, "localhost")));
        X509Certificate certificate = new JcaX509CertificateConverter()
                .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
        Files.createDirectories(directory);
        Files.writeString(directory.resolve("tls.key"), pem(keys.getPrivate()));
        Files.writeString(directory.resolve("tls.crt"), pem(certificate));
        return certificate;
    }

    private static String pem(Object object) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(object instanceof java.security.PrivateKey key
                    ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(key, null) : object);
        }
        return text.toString();
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
