package dev.ringmaster.webhook.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.webhook.testing.KubeletMount;
import dev.ringmaster.webhook.testing.TestPki;
import dev.ringmaster.webhook.testing.TestPki.Issued;
import dev.ringmaster.webhook.testing.TestPki.KeyFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificateFilesTest {

    private static TestPki pki;

    @TempDir
    Path mount;

    @BeforeAll
    static void authority() {
        pki = TestPki.create();
    }

    @Test
    void noticesAKubeletStyleSymlinkSwapAndNothingElse() throws Exception {
        Issued first = pki.issue(KeyFormat.RSA_PKCS1);
        Issued second = pki.issue(KeyFormat.EC_SEC1);
        KubeletMount volume = new KubeletMount(mount);
        volume.publish(first);
        CertificateFiles files = new CertificateFiles(mount.resolve("tls.crt"), mount.resolve("tls.key"),
                new MutableClock(Instant.now()));

        assertThat(files.poll()).isInstanceOfSatisfying(CertificateFiles.Accepted.class,
                accepted -> assertThat(accepted.material().certificate()).isEqualTo(first.certificate()));
        assertThat(files.poll()).isInstanceOf(CertificateFiles.Unchanged.class);

        volume.publish(second);
        assertThat(files.poll()).isInstanceOfSatisfying(CertificateFiles.Accepted.class,
                accepted -> assertThat(accepted.material().certificate()).isEqualTo(second.certificate()));
        assertThat(files.poll()).isInstanceOf(CertificateFiles.Unchanged.class);
        assertThat(files.problem()).isEmpty();
    }

    @Test
    void aRejectionIsReportedOnceUntilTheFilesOrTheReasonChange() throws Exception {
        Instant now = Instant.now();
        MutableClock clock = new MutableClock(now);
        Issued future = pki.issue(KeyFormat.EC_PKCS8, now.plus(Duration.ofMinutes(10)), now.plus(Duration.ofDays(1)));
        TestPki.write(mount, future);
        CertificateFiles files = new CertificateFiles(mount.resolve("tls.crt"), mount.resolve("tls.key"), clock);

        assertThat(files.poll()).isInstanceOfSatisfying(CertificateFiles.Rejected.class,
                rejected -> {
                    assertThat(rejected.problem()).contains("is not valid before");
                    assertThat(rejected.missing()).isFalse();
                });
        assertThat(files.poll()).isInstanceOf(CertificateFiles.Unchanged.class);
        assertThat(files.problem()).hasValueSatisfying(problem -> assertThat(problem).contains("not valid before"));

        clock.advance(Duration.ofMinutes(11)); // same files, now valid
        assertThat(files.poll()).isInstanceOf(CertificateFiles.Accepted.class);
        assertThat(files.problem()).isEmpty();
    }

    @Test
    void missingFilesAreRejectedAndPickedUpWhenTheyAppear() {
        CertificateFiles files = new CertificateFiles(mount.resolve("tls.crt"), mount.resolve("tls.key"),
                new MutableClock(Instant.now()));
        assertThat(files.poll()).isInstanceOfSatisfying(CertificateFiles.Rejected.class,
                rejected -> {
                    assertThat(rejected.problem()).isEqualTo(mount.resolve("tls.crt") + ": no such readable file");
                    assertThat(rejected.missing()).as("nothing to judge yet").isTrue();
                });
        assertThat(files.poll()).isInstanceOf(CertificateFiles.Unchanged.class);

        TestPki.write(mount, pki.issue(KeyFormat.RSA_PKCS8));
        assertThat(files.poll()).isInstanceOf(CertificateFiles.Accepted.class);
    }
}
