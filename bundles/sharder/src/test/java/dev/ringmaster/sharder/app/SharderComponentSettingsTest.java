package dev.ringmaster.sharder.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.sharder.certificates.WebhookCertificates;
import dev.ringmaster.sharder.ringcontrol.ValidatingWebhookCa;
import dev.ringmaster.sharder.ringcontrol.WebhookClientSettings;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code webhookCertificates} and the keys it reads, as Config Admin hands them to the component. */
class SharderComponentSettingsTest {

    @TempDir
    Path dir;

    /** The settings with these values and the defaults of every other key. */
    static SharderSettings settings(Map<String, String> values) {
        return (SharderSettings) Proxy.newProxyInstance(SharderSettings.class.getClassLoader(),
                new Class<?>[] {SharderSettings.class}, (proxy, method, args) -> {
                    if (method.getName().equals("annotationType")) {
                        return SharderSettings.class;
                    }
                    String value = values.get(method.getName());
                    if (value == null) {
                        return method.getDefaultValue();
                    }
                    return method.getReturnType() == int.class ? Integer.valueOf(value) : value;
                });
    }

    @Test
    void filesIsTheDefaultAndBehavesAsBeforeThereWereModes() throws Exception {
        assertThat(SharderComponent.certificates(settings(Map.of()))).isEmpty();
        assertThat(SharderComponent.webhook(settings(Map.of()))).contains(WebhookClientSettings.defaults());
        assertThat(SharderComponent.webhook(settings(Map.of("webhookCertManagerCertificate", "ns/cert"))))
                .hasValueSatisfying(webhook -> assertThat(webhook.certManagerCertificate()).isEqualTo("ns/cert"));
        Path ca = Files.writeString(dir.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
        ValidatingWebhookCa.Settings validating = SharderComponent.validatingWebhooks(settings(Map.of(
                "webhookCaBundleFile", ca.toString(), "webhookValidatingConfigurations", " guard-a, guard-b ,")));
        assertThat(validating.names()).containsExactly("guard-a", "guard-b");
        byte[] pem = Files.readAllBytes(ca);
        assertThat(validating.caBundle().current()).hasValueSatisfying(bundle -> assertThat(bundle).isEqualTo(pem));
    }

    @Test
    void selfSignedNamesTheServiceAndTheDirectoryAndIgnoresTheCertManagerCertificate() {
        SharderSettings settings = settings(Map.of("webhookCertificates", "self-signed",
                "webhookServiceNamespace", "ops", "webhookCertificateDir", "/run/tls",
                "webhookCertificateValidity", "PT12H", "webhookCaValidity", "P30D",
                // the manifests' file names the Certificate whatever the mode; only cert-manager mode uses it
                "webhookCertManagerCertificate", "ops/sharder-webhook",
                "webhookValidatingConfigurations", "ringmaster-label-guard"));

        assertThat(SharderComponent.certificates(settings)).contains(new WebhookCertificates.Settings("ops", "sharder",
                Duration.ofDays(30), Duration.ofHours(12), Optional.of(Path.of("/run/tls"))));
        assertThat(SharderComponent.webhook(settings)).hasValueSatisfying(webhook -> {
            assertThat(webhook.certManagerCertificate()).isNull();
            assertThat(webhook.caBundleFile()).isNull();
            assertThat(webhook.service().namespace()).isEqualTo("ops");
        });
        ValidatingWebhookCa.Settings validating = SharderComponent.validatingWebhooks(settings);
        assertThat(validating.names()).containsExactly("ringmaster-label-guard");
        assertThat(validating.certManagerCertificate()).isNull();
        // with the webhook off, the certificates are still made: the label guard is served all the same
        assertThat(SharderComponent.certificates(settings(Map.of("webhookCertificates", "self-signed",
                "webhookMode", "off")))).isPresent();
    }

    @Test
    void certManagerNeedsTheCertificate() {
        SharderSettings settings = settings(Map.of("webhookCertificates", "cert-manager",
                "webhookCertManagerCertificate", "sharding-system/sharder-webhook",
                "webhookValidatingConfigurations", "ringmaster-label-guard"));
        assertThat(SharderComponent.certificates(settings)).isEmpty();
        assertThat(SharderComponent.webhook(settings)).hasValueSatisfying(webhook ->
                assertThat(webhook.certManagerCertificate()).isEqualTo("sharding-system/sharder-webhook"));
        assertThat(SharderComponent.validatingWebhooks(settings)).isEqualTo(new ValidatingWebhookCa.Settings(
                List.of("ringmaster-label-guard"), null, "sharding-system/sharder-webhook"));
        assertThatThrownBy(() -> SharderComponent.webhook(settings(Map.of("webhookCertificates", "cert-manager"))))
                .hasMessageContaining("webhookCertificates = cert-manager needs webhookCertManagerCertificate");
    }

    @Test
    void badValuesSayWhatIsWrong() {
        assertThatThrownBy(() -> SharderComponent.certificates(settings(Map.of("webhookCertificates", "vault"))))
                .hasMessage("webhookCertificates must be files, self-signed or cert-manager, not vault");
        assertThatThrownBy(() -> SharderComponent.certificates(settings(Map.of("webhookCertificates", "self-signed",
                "webhookCertificateValidity", "365 days"))))
                .hasMessageContaining("webhookCertificateValidity must be an ISO-8601 duration such as P365D");
        assertThatThrownBy(() -> SharderComponent.certificates(settings(Map.of("webhookCertificates", "self-signed",
                "webhookMode", "url", "webhookUrl", "https://sharder.example"))))
                .hasMessageContaining("which webhookMode = url does not call");
    }

    /** shardLeaseNamespaces: empty is every namespace; names once each, in order; anything else refused. */
    @Test
    void shardLeaseNamespacesAreNamespaceNamesCommaSeparated() {
        assertThat(SharderComponent.shardLeaseNamespaces(settings(Map.of()))).isEmpty();
        assertThat(SharderComponent.shardLeaseNamespaces(settings(Map.of("shardLeaseNamespaces", " , ")))).isEmpty();
        assertThat(SharderComponent.shardLeaseNamespaces(settings(Map.of("shardLeaseNamespaces",
                " team-a,team-b , team-a,")))).containsExactly("team-a", "team-b");
        assertThatThrownBy(() -> SharderComponent.shardLeaseNamespaces(settings(Map.of("shardLeaseNamespaces",
                "team-a team-b")))).hasMessageContaining("shardLeaseNamespaces must be namespace names, comma-separated");
        assertThatThrownBy(() -> SharderComponent.shardLeaseNamespaces(settings(Map.of("shardLeaseNamespaces",
                "Team-A")))).hasMessageContaining("(Team-A)");
        assertThatThrownBy(() -> SharderComponent.shardLeaseNamespaces(settings(Map.of("shardLeaseNamespaces",
                "a".repeat(64))))).hasMessageContaining("shardLeaseNamespaces must be");
    }
}
