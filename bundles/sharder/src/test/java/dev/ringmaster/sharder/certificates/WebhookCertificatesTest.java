package dev.ringmaster.sharder.certificates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import dev.ringmaster.webhook.tls.Pem;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One replica's passes over the two Secrets on fabric8's mock server (CRUD), with a fake clock: what
 * it creates, when it renews, how it repairs bad content and deleted Secrets, and what it writes into
 * the TLS directory. The race of two replicas is {@code WebhookCertificatesIT}'s, on a real API server.
 */
@EnableCrudApiServer
class WebhookCertificatesTest {

    private static final String NS = "sharding-system";
    private static final Instant START = Instant.parse("2030-01-02T03:04:05Z");
    private static final List<String> NAMES = List.of("sharder.sharding-system.svc",
            "sharder.sharding-system.svc.cluster.local", "sharder.sharding-system");

    KubernetesClient client;

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(START);
    private final AtomicInteger caChanges = new AtomicInteger();
    private WebhookCertificates certificates;
    private Path tls;

    @BeforeEach
    void replica() {
        tls = dir.resolve("tls");
        certificates = replica(Duration.ofDays(3650), Duration.ofDays(365));
    }

    private WebhookCertificates replica(Duration caValidity, Duration validity) {
        WebhookCertificates replica = new WebhookCertificates(client, new WebhookCertificates.Settings(NS, "sharder",
                caValidity, validity, Optional.of(tls)), clock);
        replica.addListener(caChanges::incrementAndGet);
        return replica;
    }

    @Test
    void theFirstPassCreatesBothSecretsWritesTheFilesAndPublishesTheCa() throws Exception {
        WebhookCertificates.Pass pass = certificates.reconcile();

        Secret ca = secret("sharder-webhook-ca");
        assertThat(ca.getType()).isEqualTo("Opaque");
        assertThat(ca.getData()).containsOnlyKeys("ca.crt", "ca.key");
        assertThat(ca.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "ringmaster-sharder");
        Secret serving = secret("sharder-webhook-tls");
        assertThat(serving.getType()).isEqualTo("kubernetes.io/tls");
        assertThat(serving.getData()).containsOnlyKeys("tls.crt", "tls.key", "ca.crt");
        assertThat(data(serving, "ca.crt")).isEqualTo(data(ca, "ca.crt"));

        X509Certificate caCertificate = Pem.readCertificates(data(ca, "ca.crt"), "ca.crt").get(0);
        X509Certificate certificate = Pem.readCertificates(data(serving, "tls.crt"), "tls.crt").get(0);
        certificate.verify(caCertificate.getPublicKey());
        assertThat(SelfSignedPki.dnsNames(certificate)).containsExactlyInAnyOrderElementsOf(NAMES);
        assertThat(certificate.getNotAfter().toInstant()).isEqualTo(START.plus(Duration.ofDays(365)));
        assertThat(caCertificate.getNotAfter().toInstant()).isEqualTo(START.plus(Duration.ofDays(3650)));
        assertThat(pass.nextCheck()).as("an hour at most").isEqualTo(START.plus(Duration.ofHours(1)));

        assertThat(Files.readAllBytes(tls.resolve("tls.crt"))).isEqualTo(data(serving, "tls.crt"));
        assertThat(Files.readAllBytes(tls.resolve("tls.key"))).isEqualTo(data(serving, "tls.key"));
        assertThat(Files.readAllBytes(tls.resolve("ca.crt"))).isEqualTo(data(ca, "ca.crt"));
        assertThat(Files.isSymbolicLink(tls.resolve("tls.crt"))).as("swapped kubelet-style").isTrue();
        assertThat(certificates.caBundle()).hasValueSatisfying(bundle -> assertThat(bundle).isEqualTo(data(ca, "ca.crt")));
        assertThat(caChanges).hasValue(1);

        // nothing to do the second time, and nothing written
        String caVersion = ca.getMetadata().getResourceVersion();
        String servingVersion = serving.getMetadata().getResourceVersion();
        certificates.reconcile();
        assertThat(secret("sharder-webhook-ca").getMetadata().getResourceVersion()).isEqualTo(caVersion);
        assertThat(secret("sharder-webhook-tls").getMetadata().getResourceVersion()).isEqualTo(servingVersion);
        assertThat(caChanges).hasValue(1);
    }

    @Test
    void anotherReplicaTakesWhatIsThereAndWritesTheSameFiles() throws Exception {
        certificates.reconcile();
        Path otherTls = dir.resolve("other");
        WebhookCertificates other = new WebhookCertificates(client, new WebhookCertificates.Settings(NS, "sharder",
                Duration.ofDays(3650), Duration.ofDays(365), Optional.of(otherTls)), clock);
        String servingVersion = secret("sharder-webhook-tls").getMetadata().getResourceVersion();

        other.reconcile();

        assertThat(secret("sharder-webhook-tls").getMetadata().getResourceVersion()).isEqualTo(servingVersion);
        for (String file : List.of("tls.crt", "tls.key", "ca.crt")) {
            assertThat(Files.readAllBytes(otherTls.resolve(file))).as(file).isEqualTo(Files.readAllBytes(tls.resolve(file)));
        }
        assertThat(other.caBundle().orElseThrow()).isEqualTo(certificates.caBundle().orElseThrow());
    }

    @Test
    void theServingCertificateIsRenewedWithAThirdOfItsLifetimeLeftAndTheCaStays() throws Exception {
        certificates.reconcile();
        byte[] firstCertificate = Files.readAllBytes(tls.resolve("tls.crt"));
        byte[] bundle = certificates.caBundle().orElseThrow();
        X509Certificate first = Pem.readCertificates(firstCertificate, "tls.crt").get(0);
        Instant renewal = SelfSignedPki.renewalTime(first);

        clock.set(renewal.minusSeconds(2));
        WebhookCertificates.Pass before = certificates.reconcile();
        assertThat(before.nextCheck()).isEqualTo(renewal);
        assertThat(Files.readAllBytes(tls.resolve("tls.crt"))).isEqualTo(firstCertificate);

        clock.set(renewal);
        WebhookCertificates.Pass renewed = certificates.reconcile();

        byte[] secondCertificate = Files.readAllBytes(tls.resolve("tls.crt"));
        assertThat(secondCertificate).isNotEqualTo(firstCertificate).isEqualTo(data(secret("sharder-webhook-tls"), "tls.crt"));
        assertThat(renewed.serving().certificate().getNotAfter().toInstant()).isEqualTo(renewal.plus(Duration.ofDays(365)));
        assertThat(certificates.caBundle().orElseThrow()).as("the CA stays").isEqualTo(bundle);
        assertThat(caChanges).as("the webhook configurations' caBundle does not change").hasValue(1);
        assertThat(Files.readAllBytes(tls.resolve("tls.key"))).isEqualTo(data(secret("sharder-webhook-tls"), "tls.key"));
    }

    @Test
    void aCaNearItsEndIsRenewedAndTheOldOneStaysTrustedUntilItEnds() throws Exception {
        certificates = replica(Duration.ofDays(30), Duration.ofDays(10));
        WebhookCertificates.Pass first = certificates.reconcile();
        X509Certificate oldCa = first.authority().certificate();
        Instant caRenewal = SelfSignedPki.renewalTime(oldCa);

        clock.set(caRenewal.minusSeconds(1));
        WebhookCertificates.Pass served = certificates.reconcile(); // the serving certificate was renewed meanwhile
        clock.set(caRenewal);
        WebhookCertificates.Pass renewed = certificates.reconcile();

        assertThat(renewed.authority().certificate()).isNotEqualTo(oldCa);
        assertThat(renewed.authority().bundle()).containsExactly(renewed.authority().certificate(), oldCa);
        assertThat(Pem.readCertificates(certificates.caBundle().orElseThrow(), "ca.crt")).containsExactly(
                renewed.authority().certificate(), oldCa);
        assertThat(caChanges).hasValue(2);
        assertThat(renewed.serving().certificate()).as("still trusted: kept until its own renewal")
                .isEqualTo(served.serving().certificate());
        assertThat(data(secret("sharder-webhook-tls"), "ca.crt")).isEqualTo(certificates.caBundle().orElseThrow());

        // the old CA's end: its certificates are gone from the bundle, and so is any certificate it signed
        clock.set(oldCa.getNotAfter().toInstant().plusSeconds(1));
        WebhookCertificates.Pass later = certificates.reconcile();
        assertThat(later.authority().bundle()).containsExactly(renewed.authority().certificate());
        later.serving().certificate().verify(renewed.authority().certificate().getPublicKey());
        assertThat(caChanges).hasValue(3);
    }

    @Test
    void garbageInTheCaSecretIsReplacedWithANewCaAndReported() throws Exception {
        certificates.reconcile();
        byte[] oldBundle = certificates.caBundle().orElseThrow();
        client.secrets().inNamespace(NS).withName("sharder-webhook-ca").edit(secret -> new SecretBuilder(secret)
                .addToData("ca.crt", base64("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"))
                .build());

        WebhookCertificates.Pass repaired = certificates.reconcile();

        assertThat(certificates.caBundle().orElseThrow()).isNotEqualTo(oldBundle);
        repaired.serving().certificate().verify(repaired.authority().certificate().getPublicKey());
        assertThat(Files.readAllBytes(tls.resolve("ca.crt"))).isEqualTo(certificates.caBundle().orElseThrow());
        assertThat(warnings()).anySatisfy(event -> {
            assertThat(event.getReason()).isEqualTo("InvalidWebhookCA");
            assertThat(event.getRegarding().getName()).isEqualTo("sharder-webhook-ca");
            assertThat(event.getNote()).contains("ca.crt: certificate 1 cannot be read");
        });
    }

    @Test
    void aBadServingSecretIsReissuedWithTheSameCa() throws Exception {
        certificates.reconcile();
        byte[] bundle = certificates.caBundle().orElseThrow();
        for (Map<String, String> bad : List.of(Map.of("tls.key", base64("garbage")),
                Map.of("tls.crt", base64(Pem.certificates(List.of(
                        certificates.reconcile().authority().certificate())))), // the CA's own certificate
                Map.of("tls.crt", "!!not base64!!"))) {
            client.secrets().inNamespace(NS).withName("sharder-webhook-tls").edit(secret -> new SecretBuilder(secret)
                    .addToData(bad).build());

            WebhookCertificates.Pass repaired = certificates.reconcile();

            assertThat(certificates.caBundle().orElseThrow()).isEqualTo(bundle);
            assertThat(SelfSignedPki.unusableServing(repaired.serving().certificate(), repaired.serving().key(), NAMES,
                    repaired.authority().bundle(), clock.instant())).as("after %s", bad.keySet()).isEmpty();
            assertThat(Files.readAllBytes(tls.resolve("tls.crt"))).isEqualTo(repaired.serving().certificatePem());
        }
        assertThat(warnings()).extracting(Event::getReason).containsOnly("InvalidWebhookCertificate").hasSize(3);
        assertThat(caChanges).hasValue(1);
    }

    @Test
    void aCertificateForOtherNamesOrFromAnotherCaIsReissued() throws Exception {
        certificates.reconcile();
        SelfSignedPki pki = new SelfSignedPki(Duration.ofDays(3650), Duration.ofDays(365), new java.security.SecureRandom());
        SelfSignedPki.Authority stranger = pki.newAuthority("someone else", START, List.of());
        SelfSignedPki.Serving foreign = pki.issue(stranger, NAMES, START);
        client.secrets().inNamespace(NS).withName("sharder-webhook-tls").edit(secret -> new SecretBuilder(secret)
                .addToData("tls.crt", base64(foreign.certificatePem())).addToData("tls.key", base64(foreign.keyPem()))
                .build());

        certificates.reconcile();

        assertThat(warnings()).singleElement().satisfies(event -> assertThat(event.getNote())
                .contains("no CA of the CA bundle signed the certificate"));
        assertThat(data(secret("sharder-webhook-tls"), "tls.crt")).isNotEqualTo(foreign.certificatePem());
    }

    @Test
    void deletedSecretsAreMadeAgainAndReported() throws Exception {
        certificates.reconcile();
        byte[] bundle = certificates.caBundle().orElseThrow();
        byte[] certificate = Files.readAllBytes(tls.resolve("tls.crt"));

        client.secrets().inNamespace(NS).withName("sharder-webhook-tls").delete();
        certificates.reconcile();
        assertThat(Files.readAllBytes(tls.resolve("tls.crt"))).isNotEqualTo(certificate)
                .isEqualTo(data(secret("sharder-webhook-tls"), "tls.crt"));
        assertThat(certificates.caBundle().orElseThrow()).isEqualTo(bundle);

        client.secrets().inNamespace(NS).withName("sharder-webhook-ca").delete();
        WebhookCertificates.Pass renewed = certificates.reconcile();
        assertThat(certificates.caBundle().orElseThrow()).isNotEqualTo(bundle);
        renewed.serving().certificate().verify(renewed.authority().certificate().getPublicKey());
        assertThat(caChanges).hasValue(2);
        assertThat(warnings()).extracting(Event::getReason)
                .containsExactly("WebhookCertificateRecreated", "WebhookCARecreated", "InvalidWebhookCertificate");
    }

    @Test
    void anUnwritableDirectoryFailsThePassWithAClearMessage() throws Exception {
        Files.writeString(dir.resolve("file"), "not a directory");
        tls = dir.resolve("file/tls");
        WebhookCertificates replica = replica(Duration.ofDays(3650), Duration.ofDays(365));

        assertThatThrownBy(replica::reconcile).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot write the webhook's certificate files into " + tls);
        assertThat(secret("sharder-webhook-tls")).as("the Secrets are made all the same").isNotNull();
    }

    @Test
    void settingsAreChecked() {
        assertThat(new WebhookCertificates.Settings(NS, "sharder", Duration.ofDays(3650), Duration.ofDays(365),
                Optional.empty()).dnsNames()).isEqualTo(NAMES);
        assertThatThrownBy(() -> new WebhookCertificates.Settings(NS, "Sharder", Duration.ofDays(3650),
                Duration.ofDays(365), Optional.empty())).hasMessageContaining("must be a lowercase DNS label");
        assertThatThrownBy(() -> new WebhookCertificates.Settings(NS, "s".repeat(49), Duration.ofDays(3650),
                Duration.ofDays(365), Optional.empty())).hasMessageContaining("too long");
        assertThatThrownBy(() -> new WebhookCertificates.Settings(NS, "sharder", Duration.ofDays(1),
                Duration.ofDays(365), Optional.empty())).hasMessageContaining("at least as long");
    }

    private List<Event> warnings() {
        return client.events().v1().events().inNamespace(NS).list().getItems().stream()
                .sorted(java.util.Comparator.comparingLong(event -> Long.parseLong(event.getMetadata().getResourceVersion())))
                .toList();
    }

    private Secret secret(String name) {
        return client.secrets().inNamespace(NS).withName(name).get();
    }

    private static byte[] data(Secret secret, String key) {
        return Base64.getDecoder().decode(secret.getData().get(key));
    }

    private static String base64(String value) {
        return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.US_ASCII));
    }

    private static String base64(byte[] value) {
        return Base64.getEncoder().encodeToString(value);
    }
}
