package dev.ringmaster.sharder.ringcontrol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.sharder.runtime.Reconciler;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The label guard's ValidatingWebhookConfiguration gets the webhook's CA, by each mode, and nothing else. */
@EnableCrudApiServer
class ValidatingWebhookCaTest {

    private static final String NAME = "ringmaster-label-guard";
    private static final String CA = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";

    KubernetesClient client;

    @Test
    void theShardersOwnCaGoesIntoEveryWebhookAndCertManagersAnnotationGoes() {
        create(true);
        AtomicReference<byte[]> ca = new AtomicReference<>();
        ValidatingWebhookCa reconciler = new ValidatingWebhookCa(client,
                new ValidatingWebhookCa.Settings(List.of(NAME), () -> Optional.ofNullable(ca.get()), null));

        assertThat(reconciler.reconcile(NAME)).isEqualTo(Reconciler.Result.done());
        assertThat(read().getMetadata().getAnnotations()).as("the CA is not known yet: nothing changes")
                .containsKey(WebhookConfigurations.INJECT_CA_FROM_ANNOTATION);

        ca.set(CA.getBytes(StandardCharsets.US_ASCII));
        reconciler.reconcile(NAME);
        ValidatingWebhookConfiguration written = read();
        assertThat(written.getWebhooks()).extracting(webhook -> webhook.getClientConfig().getCaBundle())
                .containsOnly(Base64.getEncoder().encodeToString(ca.get())).hasSize(2);
        assertThat(written.getMetadata().getAnnotations()).containsOnlyKeys("kept");
        assertThat(written.getWebhooks().get(0).getFailurePolicy()).isEqualTo("Fail");

        String version = written.getMetadata().getResourceVersion();
        reconciler.reconcile(NAME);
        assertThat(read().getMetadata().getResourceVersion()).as("nothing to write").isEqualTo(version);
    }

    @Test
    void certManagerModeSetsTheAnnotationAndLeavesTheCaBundleToTheCainjector() {
        create(false);
        client.admissionRegistration().v1().validatingWebhookConfigurations().withName(NAME).edit(configuration -> {
            configuration.getWebhooks().get(0).getClientConfig().setCaBundle("aW5qZWN0ZWQ=");
            return configuration;
        });
        new ValidatingWebhookCa(client, new ValidatingWebhookCa.Settings(List.of(NAME), null,
                "sharding-system/sharder-webhook")).reconcile(NAME);

        ValidatingWebhookConfiguration written = read();
        assertThat(written.getMetadata().getAnnotations())
                .containsEntry(WebhookConfigurations.INJECT_CA_FROM_ANNOTATION, "sharding-system/sharder-webhook")
                .containsEntry("kept", "yes");
        assertThat(written.getWebhooks().get(0).getClientConfig().getCaBundle()).isEqualTo("aW5qZWN0ZWQ=");
    }

    @Test
    void aConfigurationThatIsNotInstalledIsLeftForTheWatch() {
        assertThat(new ValidatingWebhookCa(client, new ValidatingWebhookCa.Settings(List.of(NAME),
                () -> Optional.of(CA.getBytes(StandardCharsets.US_ASCII)), null)).reconcile(NAME))
                .isEqualTo(Reconciler.Result.done());
        assertThat(read()).isNull();
    }

    @Test
    void settingsAreChecked() {
        assertThat(ValidatingWebhookCa.Settings.NONE.active()).isFalse();
        assertThat(new ValidatingWebhookCa.Settings(List.of(NAME), null, null).active()).as("no CA to give").isFalse();
        assertThat(new ValidatingWebhookCa.Settings(List.of(), Optional::empty, null).active()).isFalse();
        assertThatThrownBy(() -> new ValidatingWebhookCa.Settings(List.of("Label_Guard"), null, null))
                .hasMessageContaining("not a lowercase DNS subdomain");
    }

    private void create(boolean certManagerAnnotation) {
        ValidatingWebhookConfigurationBuilder builder = new ValidatingWebhookConfigurationBuilder().withNewMetadata()
                .withName(NAME).addToAnnotations("kept", "yes").endMetadata();
        if (certManagerAnnotation) {
            builder.editMetadata().addToAnnotations(WebhookConfigurations.INJECT_CA_FROM_ANNOTATION,
                    "sharding-system/sharder-webhook").endMetadata();
        }
        for (String webhook : List.of("label-guard.ringmaster.dev", "other.ringmaster.dev")) {
            builder.addNewWebhook().withName(webhook).withFailurePolicy("Fail").withNewClientConfig().withNewService()
                    .withNamespace("sharding-system").withName("sharder").withPath("/webhooks/label-guard/").endService()
                    .endClientConfig().endWebhook();
        }
        client.admissionRegistration().v1().validatingWebhookConfigurations().resource(builder.build()).create();
    }

    private ValidatingWebhookConfiguration read() {
        return client.admissionRegistration().v1().validatingWebhookConfigurations().withName(NAME).get();
    }
}
