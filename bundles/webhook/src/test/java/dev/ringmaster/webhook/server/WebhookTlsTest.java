package dev.ringmaster.webhook.server;

import static dev.ringmaster.webhook.server.ServerFixture.SHARDER_PATH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.webhook.testing.HttpsClient;
import dev.ringmaster.webhook.testing.RawConnection;
import dev.ringmaster.webhook.testing.Reviews;
import dev.ringmaster.webhook.testing.TestPki.Issued;
import dev.ringmaster.webhook.testing.TestPki.KeyFormat;
import dev.ringmaster.webhook.tls.KeyMaterial;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/** TLS: protocol versions, certificate rotation and every way the certificate files can be wrong. */
class WebhookTlsTest extends WebhookServerTestBase {

    private static final Duration SOON = Duration.ofSeconds(10);


    @Test
    void tls11IsRefusedThoughThisJvmAllowsItAndTls12And13AreServed() throws Exception {
        fixture = new ServerFixture(pki, directory.resolve("tls")).started();
        Issued control = pki.issue(KeyFormat.RSA_PKCS1);
        assertThat(tls11HandshakeWithPlainJsseServer(control))
                .as("control: this test JVM lets a default JSSE server speak TLS 1.1").isEqualTo("TLSv1.1");

        assertThatThrownBy(() -> new RawConnection(pki.clientContext(), fixture.port(), "TLSv1.1"))
                .isInstanceOf(SSLHandshakeException.class);
        assertThatThrownBy(() -> new RawConnection(pki.clientContext(), fixture.port(), "TLSv1"))
                .isInstanceOf(SSLHandshakeException.class);
        for (String protocol : List.of("TLSv1.2", "TLSv1.3")) {
            try (RawConnection connection = new RawConnection(pki.clientContext(), fixture.port(), protocol)) {
                assertThat(connection.protocol()).isEqualTo(protocol);
                assertThat(connection.review(SHARDER_PATH, Reviews.configMapCreate("uid-" + protocol, "cm")).status())
                        .isEqualTo(200);
            }
        }
    }

    /**
     * While requests flow on several connections, the certificate is rotated the kubelet's way: no
     * request fails, new connections get the new certificate, and a keep-alive connection opened
     * before the rotation goes on serving with its session.
     */
    @Test
    void rotatesTheCertificateWhileRequestsFlowWithoutFailuresOrDroppedConnections() throws Exception {
        Issued first = pki.issue(KeyFormat.RSA_PKCS1);
        Issued second = pki.issue(KeyFormat.EC_SEC1);
        fixture = new ServerFixture(pki, directory.resolve("tls"));
        fixture.mount.publish(first);
        fixture.start(fixture.settings(), Clock.systemUTC());
        int port = fixture.port();

        try (RawConnection kept = new RawConnection(pki.clientContext(), port)) {
            assertThat(kept.review(SHARDER_PATH, Reviews.configMapCreate("before", "cm")).status()).isEqualTo(200);
            assertThat(kept.serverSerial()).isEqualTo(first.serial());

            AtomicBoolean running = new AtomicBoolean(true);
            AtomicInteger succeeded = new AtomicInteger();
            List<String> failures = new CopyOnWriteArrayList<>();
            ExecutorService senders = Executors.newFixedThreadPool(3);
            for (int sender = 0; sender < 3; sender++) {
                int id = sender;
                senders.submit(() -> {
                    HttpsClient client = new HttpsClient(pki.clientContext(), port);
                    for (int i = 0; running.get(); i++) {
                        String uid = "s" + id + "-" + i;
                        try {
                            HttpsClient.Answer answer = client.review(SHARDER_PATH, Reviews.configMapCreate(uid, "cm"));
                            if (answer.status() == 200 && answer.json().at("/response/uid").asText().equals(uid)) {
                                succeeded.incrementAndGet();
                            } else {
                                failures.add(uid + ": " + answer.status() + " " + answer.body());
                            }
                        } catch (RuntimeException e) {
                            failures.add(uid + ": " + e);
                        }
                    }
                });
            }
            try {
                await().atMost(SOON).until(() -> succeeded.get() >= 100);
                fixture.mount.publish(second);
                await().atMost(SOON).until(() -> newConnectionSerial(port).equals(second.serial()));
                int atRotation = succeeded.get();
                await().atMost(SOON).until(() -> succeeded.get() >= atRotation + 100);
            } finally {
                running.set(false);
                senders.shutdown();
                assertThat(senders.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(failures).as("requests failed during the rotation").isEmpty();

            assertThat(kept.review(SHARDER_PATH, Reviews.configMapCreate("after", "cm")).status())
                    .as("the connection opened before the rotation still serves").isEqualTo(200);
            assertThat(kept.serverSerial()).as("with the session it started with").isEqualTo(first.serial());
        }
        assertThat(fixture.server.serving().orElseThrow().certificate()).isEqualTo(second.certificate());
        assertThat(fixture.reloads("accepted")).isEqualTo(2);
        assertThat(fixture.listened).as("the port never closed").hasSize(1);
        assertThat(fixture.registry.get(WebhookMetrics.CERTIFICATE_EXPIRATION).gauge().value())
                .isEqualTo(second.certificate().getNotAfter().toInstant().getEpochSecond());
    }

    @Test
    void aBadNewCertificateKeepsTheOldOneServed() throws Exception {
        Issued good = pki.issue(KeyFormat.RSA_PKCS8);
        fixture = new ServerFixture(pki, directory.resolve("tls"));
        fixture.mount.publish(good);
        fixture.start(fixture.settings(), Clock.systemUTC());
        int port = fixture.port();
        Instant now = Instant.now();
        Issued other = pki.issue(KeyFormat.RSA_PKCS1);
        Issued expired = pki.issue(KeyFormat.RSA_PKCS1, now.minus(Duration.ofDays(2)), now.minus(Duration.ofDays(1)));
        List<String[]> broken = List.of(
                new String[] {"garbage", "garbage"},
                new String[] {other.certificatePem(), good.keyPem()}, // a key of another certificate
                new String[] {expired.certificatePem(), expired.keyPem()},
                new String[] {good.certificatePem(), ""});

        double rejected = 0;
        for (String[] files : broken) {
            fixture.mount.publish(files[0], files[1]);
            double before = rejected;
            await().atMost(SOON).until(() -> fixture.reloads("rejected") > before);
            rejected = fixture.reloads("rejected");
            assertThat(newConnectionSerial(port)).isEqualTo(good.serial());
            assertThat(fixture.server.problem()).as("the old certificate is valid, so the server is ready").isEmpty();
        }
        assertThat(fixture.server.serving().orElseThrow().certificate()).isEqualTo(good.certificate());

        Issued renewed = pki.issue(KeyFormat.EC_PKCS8);
        fixture.mount.publish(renewed);
        await().atMost(SOON).until(() -> newConnectionSerial(port).equals(renewed.serial()));
    }

    @Test
    void doesNotListenUntilTheCertificateFilesAreValid() throws Exception {
        fixture = new ServerFixture(pki, directory.resolve("tls"));
        fixture.start(fixture.settings(), Clock.systemUTC());

        assertThat(fixture.server.port()).isEmpty();
        assertThat(fixture.server.problem()).hasValueSatisfying(problem -> assertThat(problem)
                .startsWith("no valid TLS certificate, not listening: ").contains("tls.crt: no such readable file"));

        Issued issued = pki.issue(KeyFormat.RSA_PKCS1);
        fixture.mount.publish(issued.certificatePem(), pki.issue(KeyFormat.RSA_PKCS1).keyPem());
        await().atMost(SOON).until(() -> fixture.server.problem().orElse("").contains("does not belong to the certificate"));
        assertThat(fixture.server.port()).isEmpty();

        fixture.mount.publish(issued);
        await().atMost(SOON).until(() -> fixture.server.port().isPresent());
        assertThat(fixture.server.problem()).isEmpty();
        assertThat(fixture.listened).containsExactly(fixture.port());
        assertThat(fixture.client().review(SHARDER_PATH, Reviews.configMapCreate("late", "cm")).status()).isEqualTo(200);
    }

    /**
     * As in self-signed mode: the TLS directory is an emptyDir the sharder fills once it has made or read
     * the certificate. The server starts without the directory, waits without counting a rejection, and
     * listens as soon as the files appear, written plainly one after the other (no symlink swap).
     */
    @Test
    void startsWithoutTheDirectoryAndListensAsSoonAsTheFilesAppear() throws Exception {
        fixture = new ServerFixture(pki, directory.resolve("mount"));
        Path tls = directory.resolve("empty-dir/tls");
        fixture.start(WebhookSettings.defaults("127.0.0.1", 0, tls).withReloadInterval(Duration.ofMillis(50))
                .withShutdownTimeout(Duration.ofSeconds(5)), Clock.systemUTC());

        assertThat(fixture.server.port()).isEmpty();
        assertThat(fixture.server.problem()).hasValue("no valid TLS certificate, not listening: "
                + tls.resolve("tls.crt") + ": no such readable file");
        Thread.sleep(200); // a few polls
        assertThat(fixture.reloads("rejected")).as("waiting for files is not a rejected certificate").isZero();

        Issued issued = pki.issue(KeyFormat.EC_PKCS8);
        Files.createDirectories(tls);
        appear(tls.resolve("tls.crt"), issued.certificatePem());
        await().atMost(SOON).until(() -> fixture.server.problem().orElse("").contains("tls.key: no such readable file"));
        assertThat(fixture.reloads("rejected")).isZero();
        appear(tls.resolve("tls.key"), issued.keyPem());

        await().atMost(SOON).until(() -> fixture.server.port().isPresent());
        assertThat(fixture.server.problem()).isEmpty();
        assertThat(fixture.reloads("accepted")).isEqualTo(1);
        assertThat(newConnectionSerial(fixture.port())).isEqualTo(issued.serial());

        // files that go away once served are a rejection: the served certificate stays
        Files.delete(tls.resolve("tls.key"));
        await().atMost(SOON).until(() -> fixture.reloads("rejected") == 1);
        assertThat(fixture.server.problem()).isEmpty();
        assertThat(newConnectionSerial(fixture.port())).isEqualTo(issued.serial());
    }

    /**
     * The file appears whole, as the kubelet and cert-manager publish theirs: a poll between an in-place
     * write's truncate and its bytes would read an empty key and count a rejection the test does not make.
     */
    private static void appear(Path file, String content) throws IOException {
        Path written = Files.writeString(Files.createTempFile(file.getParent(), ".appearing-", ".tmp"), content);
        Files.move(written, file, StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void anExpiredCertificateIsNotServedAndAServedOneThatExpiresIsReported() throws Exception {
        Instant now = Instant.now();
        MutableClock clock = new MutableClock(now);
        fixture = new ServerFixture(pki, directory.resolve("tls"));
        fixture.mount.publish(pki.issue(KeyFormat.RSA_PKCS1, now.minus(Duration.ofDays(2)), now.minus(Duration.ofDays(1))));
        fixture.start(fixture.settings(), clock);
        assertThat(fixture.server.port()).isEmpty();
        assertThat(fixture.server.problem()).hasValueSatisfying(problem -> assertThat(problem).contains("expired at"));

        Issued shortLived = pki.issue(KeyFormat.RSA_PKCS1, now.minus(Duration.ofMinutes(1)), now.plus(Duration.ofHours(1)));
        fixture.mount.publish(shortLived);
        await().atMost(SOON).until(() -> fixture.server.port().isPresent());
        assertThat(fixture.server.problem()).isEmpty();

        clock.advance(Duration.ofHours(2));
        assertThat(fixture.server.problem()).hasValue("the served TLS certificate expired at "
                + shortLived.certificate().getNotAfter().toInstant() + "; waiting for a renewed one in "
                + fixture.mount.directory().resolve("tls.crt"));
    }

    @Test
    void aPortInUseIsReportedAndTriedAgain() throws Exception {
        fixture = new ServerFixture(pki, directory.resolve("tls"));
        fixture.mount.publish(pki.issue(KeyFormat.RSA_PKCS1));
        int port;
        try (ServerSocket occupied = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = occupied.getLocalPort();
            WebhookSettings settings = fixture.settings();
            fixture.start(new WebhookSettings(settings.host(), port, settings.certificateFile(), settings.keyFile(),
                    settings.maxRequestBytes(), settings.idleTimeout(), settings.readTimeout(), settings.reloadInterval(),
                    settings.shutdownTimeout(), settings.maxThreads()), Clock.systemUTC());
            assertThat(fixture.server.port()).isEmpty();
            assertThat(fixture.server.problem()).hasValueSatisfying(problem ->
                    assertThat(problem).startsWith("cannot listen on 127.0.0.1:" + port + ": "));
        }
        await().atMost(SOON).until(() -> fixture.server.port().isPresent());
        assertThat(fixture.port()).isEqualTo(port);
        assertThat(fixture.server.problem()).isEmpty();
    }

    /** The serial of the certificate a new connection is served. */
    private static BigInteger newConnectionSerial(int port) throws IOException {
        try (RawConnection connection = new RawConnection(pki.clientContext(), port)) {
            return connection.serverSerial();
        }
    }

    /** Handshakes TLS 1.1 with a JSSE server socket left at this JVM's defaults; the protocol agreed. */
    private static String tls11HandshakeWithPlainJsseServer(Issued issued) throws Exception {
        KeyMaterial material = KeyMaterial.parse(issued.certificatePem().getBytes(StandardCharsets.US_ASCII), "crt",
                issued.keyPem().getBytes(StandardCharsets.US_ASCII), "key", Instant.now());
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(material.keyStore(), material.keyStorePassword().toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        try (SSLServerSocket server = (SSLServerSocket) context.getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try (SSLSocket socket = (SSLSocket) server.accept()) {
                    socket.startHandshake();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            try (RawConnection client = new RawConnection(pki.clientContext(), server.getLocalPort(), "TLSv1.1")) {
                String protocol = client.protocol();
                accepted.get(10, TimeUnit.SECONDS);
                return protocol;
            }
        }
    }
}
