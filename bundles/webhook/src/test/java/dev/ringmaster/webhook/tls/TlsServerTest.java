package dev.ringmaster.webhook.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.webhook.testing.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a server says while its certificate files are not there yet: a replica in self-signed mode
 * writes them a moment after it starts, which is no warning; waiting past the grace is, once. Polled by
 * hand on a clock the test moves; slf4j-simple writes to standard error, which the test reads.
 */
class TlsServerTest {

    @TempDir
    Path directory;

    private final MutableClock clock = new MutableClock(Instant.parse("2030-01-02T03:04:05Z"));
    private TlsServer server;

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void waitingForCertificateFilesIsInfoAndOneWarningOnlyAfterTheGrace() {
        Path tls = directory.resolve("tls");
        server = serverOf(tls);

        String waiting = loggedWhilePolling();
        assertThat(waiting).contains("INFO dev.ringmaster.webhook.tls.TlsServer - test not listening yet: "
                + tls.resolve("tls.crt") + ": no such readable file; waiting for the certificate files")
                .doesNotContain("WARN");

        clock.advance(TlsServer.WAITING_GRACE.minusSeconds(1));
        assertThat(loggedWhilePolling()).as("the same wait, within the grace: nothing new to say").isEmpty();

        clock.advance(Duration.ofSeconds(1));
        assertThat(loggedWhilePolling()).contains("WARN dev.ringmaster.webhook.tls.TlsServer - test still not "
                + "listening after 30 s: " + tls.resolve("tls.crt") + ": no such readable file");

        clock.advance(Duration.ofMinutes(5));
        assertThat(loggedWhilePolling()).as("said once, not at every poll").isEmpty();
        assertThat(server.port()).isEmpty();
    }

    @Test
    void filesThatArriveWithinTheGraceAreServedWithoutAWarning() {
        Path tls = directory.resolve("tls");
        server = serverOf(tls);
        assertThat(loggedWhilePolling()).contains("test not listening yet");

        TestPki pki = TestPki.create();
        Instant now = clock.instant();
        TestPki.write(tls, pki.issue(TestPki.KeyFormat.EC_PKCS8, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1))));
        clock.advance(TlsServer.WAITING_GRACE.minusSeconds(1));
        String served = loggedWhilePolling();
        clock.advance(Duration.ofMinutes(5));
        served += loggedWhilePolling();

        assertThat(served).contains("test listening on https://127.0.0.1:").doesNotContain("WARN");
        assertThat(server.port()).isPresent();
    }

    /**
     * Started with an hour between reloads, the server still listens within seconds of the first files' arrival
     * (it looks at them every {@link TlsServer#FIRST_CERTIFICATE_POLL} until it serves one): a replica that writes its
     * own certificate a moment after it starts is ready then, not a reload interval later.
     */
    @Test
    void theFirstFilesAreServedSoonWhateverTheReloadInterval() {
        Path tls = directory.resolve("tls");
        server = serverOf(tls, Duration.ofHours(1));
        server.start();
        assertThat(server.port()).isEmpty();

        TestPki pki = TestPki.create();
        Instant now = clock.instant();
        TestPki.write(tls, pki.issue(TestPki.KeyFormat.EC_PKCS8, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1))));
        await().atMost(Duration.ofSeconds(10)).until(() -> server.port().isPresent());
    }

    /** A server of the files in {@code tls}, not started: the test polls. */
    private TlsServer serverOf(Path tls) {
        return serverOf(tls, Duration.ofSeconds(5));
    }

    private TlsServer serverOf(Path tls, Duration reloadInterval) {
        return new TlsServer(new TlsServer.Settings("test", "127.0.0.1", 0, tls.resolve("tls.crt"),
                tls.resolve("tls.key"), reloadInterval, 8, 8, Duration.ofSeconds(30), Duration.ofSeconds(1)),
                new TlsServer.Endpoint() {
                    @Override
                    public void mount(Server created) {
                    }

                    @Override
                    public String serves() {
                        return "nothing";
                    }
                }, clock);
    }

    private String loggedWhilePolling() {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            server.poll();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
