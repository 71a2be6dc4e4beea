package dev.ringmaster.sharder.certificates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.sharder.certificates.SelfSignedPki.Authority;
import dev.ringmaster.sharder.certificates.SelfSignedPki.Serving;
import dev.ringmaster.webhook.tls.Pem;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SelfSignedPkiTest {

    private static final Instant NOW = Instant.parse("2030-01-02T03:04:05Z");
    private static final List<String> NAMES = List.of("sharder.sharding-system.svc",
            "sharder.sharding-system.svc.cluster.local", "sharder.sharding-system");

    private final SelfSignedPki pki = new SelfSignedPki(Duration.ofDays(3650), Duration.ofDays(365), new SecureRandom());

    @Test
    void certificatesAreBackdatedAndDueForRenewalWithAThirdOfTheirLifetimeLeft() throws Exception {
        Authority ca = pki.newAuthority("ca", NOW, List.of());
        Serving serving = pki.issue(ca, NAMES, NOW);
        assertThat(ca.certificate().getNotBefore().toInstant()).isEqualTo(NOW.minus(SelfSignedPki.BACKDATE));
        assertThat(serving.certificate().getNotAfter().toInstant()).isEqualTo(NOW.plus(Duration.ofDays(365)));
        assertThat(SelfSignedPki.dnsNames(serving.certificate())).containsExactlyInAnyOrderElementsOf(NAMES);

        Instant renewal = SelfSignedPki.renewalTime(serving.certificate());
        Duration lifetime = Duration.ofDays(365).plus(SelfSignedPki.BACKDATE);
        assertThat(renewal).isEqualTo(NOW.plus(Duration.ofDays(365)).minus(lifetime.dividedBy(3)));
        assertThat(SelfSignedPki.renewalDue(serving.certificate(), renewal.minusSeconds(1))).isFalse();
        assertThat(SelfSignedPki.renewalDue(serving.certificate(), renewal)).isTrue();
        assertThat(SelfSignedPki.renewalDue(ca.certificate(), NOW.plus(Duration.ofDays(2400)))).isFalse();
        assertThat(SelfSignedPki.renewalDue(ca.certificate(), NOW.plus(Duration.ofDays(2440)))).isTrue();
    }

    @Test
    void aServingCertificateNeverOutlivesItsCa() throws Exception {
        Authority ca = pki.newAuthority("ca", NOW, List.of());
        Instant late = ca.certificate().getNotAfter().toInstant().minus(Duration.ofDays(30));
        Serving serving = pki.issue(ca, NAMES, late);
        assertThat(serving.certificate().getNotAfter()).isEqualTo(ca.certificate().getNotAfter());
    }

    @Test
    void aRenewedCaKeepsTheValidCertificatesOfItsPredecessorInTheBundle() throws Exception {
        Authority first = pki.newAuthority("ca", NOW, List.of());
        Instant later = NOW.plus(Duration.ofDays(2500));
        Authority second = pki.newAuthority("ca", later, first.bundle());
        assertThat(second.bundle()).containsExactly(second.certificate(), first.certificate());
        Serving old = pki.issue(first, NAMES, NOW.plus(Duration.ofDays(2400)));
        assertThat(SelfSignedPki.unusableServing(old.certificate(), old.key(), NAMES, second.bundle(), later)).isEmpty();

        Authority third = pki.newAuthority("ca", first.certificate().getNotAfter().toInstant().plusSeconds(1),
                second.bundle());
        assertThat(third.bundle()).as("the expired first CA is dropped").containsExactly(third.certificate(),
                second.certificate());
        assertThat(new String(third.bundlePem()).split("-----BEGIN CERTIFICATE-----", -1)).hasSize(3);
        assertThat(Pem.readCertificates(third.bundlePem(), "ca.crt")).isEqualTo(third.bundle());
    }

    @Test
    void unusableContentIsNamed() throws Exception {
        Authority ca = pki.newAuthority("ca", NOW, List.of());
        Authority other = pki.newAuthority("ca", NOW, List.of());
        Serving serving = pki.issue(ca, NAMES, NOW);

        assertThat(SelfSignedPki.unusableAuthority(ca.certificate(), ca.key(), NOW)).isEmpty();
        assertThat(SelfSignedPki.unusableAuthority(ca.certificate(), other.key(), NOW))
                .hasValue("the key does not belong to the certificate");
        assertThat(SelfSignedPki.unusableAuthority(serving.certificate(), serving.key(), NOW))
                .hasValue("the certificate is not a CA certificate (no basicConstraints cA)");
        assertThat(SelfSignedPki.unusableAuthority(ca.certificate(), ca.key(), NOW.plus(Duration.ofDays(3651))))
                .hasValueSatisfying(problem -> assertThat(problem).startsWith("the CA certificate expired at "));

        assertThat(SelfSignedPki.unusableServing(serving.certificate(), serving.key(), NAMES, ca.bundle(), NOW)).isEmpty();
        assertThat(SelfSignedPki.unusableServing(serving.certificate(), other.key(), NAMES, ca.bundle(), NOW))
                .hasValue("the key does not belong to the certificate");
        assertThat(SelfSignedPki.unusableServing(serving.certificate(), serving.key(), NAMES, other.bundle(), NOW))
                .hasValueSatisfying(problem -> assertThat(problem).startsWith("no CA of the CA bundle signed the certificate"));
        assertThat(SelfSignedPki.unusableServing(serving.certificate(), serving.key(), List.of("sharder.elsewhere.svc"),
                ca.bundle(), NOW)).hasValueSatisfying(problem -> assertThat(problem).contains("names ["));
        assertThat(SelfSignedPki.unusableServing(serving.certificate(), serving.key(), NAMES, ca.bundle(),
                NOW.plus(Duration.ofDays(366)))).hasValueSatisfying(problem -> assertThat(problem).contains("expired"));
    }

    @Test
    void lifetimesAreChecked() {
        assertThatThrownBy(() -> new SelfSignedPki(Duration.ofDays(30), Duration.ofDays(365), new SecureRandom()))
                .hasMessageContaining("must be valid at least as long as");
        assertThatThrownBy(() -> new SelfSignedPki(Duration.ofDays(30), Duration.ofMinutes(5), new SecureRandom()))
                .hasMessageContaining("at least 10 minutes");
    }
}
