package dev.ringmaster.webhook.server;

import dev.ringmaster.webhook.testing.TestPki;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the tests of a real webhook server share: one test CA per class, a directory per test for the
 * certificate mount, and the {@link ServerFixture} a test starts, closed after it.
 */
abstract class WebhookServerTestBase {

    static TestPki pki;

    @TempDir
    Path directory;

    ServerFixture fixture;

    @BeforeAll
    static void authority() {
        pki = TestPki.create();
    }

    @AfterEach
    void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }
}
