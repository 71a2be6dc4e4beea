package dev.ringmaster.sharder.ringcontrol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.sharder.ringcontrol.WebhookClientSettings.ServiceEndpoint;
import dev.ringmaster.sharder.model.RingKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WebhookClientSettingsTest {

    static final String PEM = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";

    @TempDir
    Path dir;

    @Test
    void defaultsAreTheSharderServiceInTheSystemNamespace() {
        WebhookClientSettings settings = WebhookClientSettings.defaults();
        assertThat(settings.service()).isEqualTo(new ServiceEndpoint("sharding-system", "sharder", 443));
        assertThat(settings.url()).isNull();
        assertThat(settings.caBundleFile()).isNull();
        assertThat(settings.certManagerCertificate()).isNull();
        assertThat(settings.ownsCaBundle()).isFalse();
        assertThat(settings.readCaBundle()).isNull();
    }

    @Test
    void exactlyOneOfServiceAndUrl() {
        assertThatThrownBy(() -> new WebhookClientSettings(null, null, null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("as a service or as a URL");
        assertThatThrownBy(() -> new WebhookClientSettings(WebhookClientSettings.DEFAULT_SERVICE, "https://sharder.example", null,
                null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not both");
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://sharder.example:9443", "sharder.example:9443", "https:///path",
            "https://user@sharder.example", "https://sharder.example/?a=b", "https://sharder.example/#f", "https://a b"})
    void urlMustBePlainHttps(String url) {
        assertThatThrownBy(() -> WebhookClientSettings.url(url))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("webhook URL");
    }

    @Test
    void webhookUrlAppendsTheRingPath() {
        assertThat(WebhookClientSettings.url("https://10.0.0.5:9443").webhookUrl(RingKey.clusterRing("example")))
                .isEqualTo("https://10.0.0.5:9443/webhooks/sharder/clusterring/example");
        assertThat(WebhookClientSettings.url("https://host.example/prefix/").webhookUrl(RingKey.clusterRing("example")))
                .isEqualTo("https://host.example/prefix/webhooks/sharder/clusterring/example");
    }

    @Test
    void serviceReferenceIsValidated() {
        assertThatThrownBy(() -> new ServiceEndpoint("Sharding", "sharder", 443))
                .hasMessageContaining("namespace");
        assertThatThrownBy(() -> new ServiceEndpoint("sharding-system", "", 443)).hasMessageContaining("name");
        assertThatThrownBy(() -> new ServiceEndpoint("sharding-system", "sharder", 0)).hasMessageContaining("port");
        assertThatThrownBy(() -> new ServiceEndpoint("sharding-system", "sharder", 65536))
                .hasMessageContaining("port");
    }

    @Test
    void caBundleFileMustBeReadablePem() throws IOException {
        Path missing = dir.resolve("missing.pem");
        assertThatThrownBy(() -> WebhookClientSettings.defaults().withCaBundleFile(missing))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a readable file");
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate");
        assertThatThrownBy(() -> WebhookClientSettings.defaults().withCaBundleFile(garbage))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no PEM certificate");

        Path ca = Files.writeString(dir.resolve("ca.pem"), PEM);
        WebhookClientSettings settings = WebhookClientSettings.defaults().withCaBundleFile(ca);
        assertThat(settings.ownsCaBundle()).isTrue();
        assertThat(settings.readCaBundle()).isEqualTo(PEM.getBytes(StandardCharsets.US_ASCII));
        String rotated = PEM + PEM;
        Files.writeString(ca, rotated);
        assertThat(settings.readCaBundle()).as("read anew each time").isEqualTo(rotated.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void certManagerCertificateIsNamespaceSlashName() {
        WebhookClientSettings settings = WebhookClientSettings.defaults().withCertManagerCertificate("sharding-system/webhook-ca");
        assertThat(settings.certManagerCertificate()).isEqualTo("sharding-system/webhook-ca");
        assertThat(settings.ownsCaBundle()).isFalse();
        for (String invalid : new String[] {"webhook-ca", "a/b/c", "/webhook-ca", "Sharding/webhook-ca", "ns/"}) {
            assertThatThrownBy(() -> WebhookClientSettings.defaults().withCertManagerCertificate(invalid))
                    .as(invalid).hasMessageContaining("<namespace>/<certificate name>");
        }
    }

    @Test
    void caBundleAndCertManagerExcludeEachOther() throws IOException {
        Path ca = Files.writeString(dir.resolve("ca.pem"), PEM);
        assertThatThrownBy(() -> new WebhookClientSettings(WebhookClientSettings.DEFAULT_SERVICE, null, ca, "ns/cert"))
                .hasMessageContaining("not several");
        assertThatThrownBy(() -> new WebhookClientSettings(WebhookClientSettings.DEFAULT_SERVICE, null, ca, null,
                Optional::empty)).hasMessageContaining("not several");
        // The withers switch modes instead of combining them.
        WebhookClientSettings switched = WebhookClientSettings.defaults().withCaBundleFile(ca).withCertManagerCertificate("ns/cert");
        assertThat(switched.caBundleFile()).isNull();
        assertThat(switched.certManagerCertificate()).isEqualTo("ns/cert");
        WebhookClientSettings own = switched.withCaBundleSource(Optional::empty);
        assertThat(own.certManagerCertificate()).isNull();
        assertThat(own.caBundleSource()).isNotNull();
    }

    @Test
    void theShardersOwnCaIsReadAtEachUseAndAbsentUntilKnown() {
        AtomicReference<byte[]> ca = new AtomicReference<>();
        WebhookClientSettings settings = WebhookClientSettings.defaults()
                .withCaBundleSource(() -> Optional.ofNullable(ca.get()));
        assertThat(settings.ownsCaBundle()).isTrue();
        assertThat(settings.readCaBundle()).as("not known yet: whatever is there stays").isNull();
        ca.set(PEM.getBytes(StandardCharsets.US_ASCII));
        assertThat(settings.readCaBundle()).isEqualTo(PEM.getBytes(StandardCharsets.US_ASCII));
    }
}
