package dev.ringmaster.sharder.ringcontrol;

import dev.ringmaster.sharder.runtime.Reconciler;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives ValidatingWebhookConfigurations that others install but that call the sharder's webhook server
 * (the label guard's {@code ringmaster-label-guard}) the same trust as the rings' own configurations:
 * the sharder's CA bundle as every webhook's {@code caBundle} (self-signed mode, or a CA bundle file),
 * or the cert-manager annotation whose CA cert-manager's cainjector then writes (cert-manager mode).
 * Only those fields are written, with a JSON Patch locked to the resourceVersion read; a configuration
 * that does not exist (the guard is not installed) is left for the watch to report once it appears.
 * Keyed by the configuration's name; run by the leader.
 */
public final class ValidatingWebhookCa implements Reconciler<String> {

    private static final Logger LOG = LoggerFactory.getLogger(ValidatingWebhookCa.class);
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    /**
     * Which configurations, and the trust they get.
     *
     * @param names                  the ValidatingWebhookConfigurations
     * @param caBundle               the CA bundle written into them; {@code null}: none (cert-manager mode,
     *                               or files mode without a CA file)
     * @param certManagerCertificate {@code <namespace>/<certificate>} for the cainjector annotation, or {@code null}
     */
    public record Settings(List<String> names, WebhookClientSettings.CaBundleSource caBundle,
            String certManagerCertificate) {

        /** None: nothing to do. */
        public static final Settings NONE = new Settings(List.of(), null, null);

        public Settings {
            names = List.copyOf(names);
            for (String name : names) {
                if (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
                    throw new IllegalArgumentException("ValidatingWebhookConfiguration name \"" + name
                            + "\" is not a lowercase DNS subdomain");
                }
            }
            if (caBundle != null && certManagerCertificate != null) {
                throw new IllegalArgumentException("either a CA bundle or a cert-manager certificate, not both");
            }
        }

        /** Whether there is anything to write. */
        public boolean active() {
            return !names.isEmpty() && (caBundle != null || certManagerCertificate != null);
        }
    }

    private final KubernetesClient client;
    private final Settings settings;

    /** @param client the leader's fenced client */
    public ValidatingWebhookCa(KubernetesClient client, Settings settings) {
        this.client = Objects.requireNonNull(client, "client");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    @Override
    public Result reconcile(String name) {
        ValidatingWebhookConfiguration current = client.admissionRegistration().v1().validatingWebhookConfigurations()
                .withName(name).get();
        if (current == null) {
            LOG.debug("ValidatingWebhookConfiguration {} does not exist (yet)", name);
            return Result.done();
        }
        KubernetesSerialization json = client.getKubernetesSerialization();
        LockedJsonPatch patch = new LockedJsonPatch(current.getMetadata().getResourceVersion());
        boolean changed = false;

        Map<String, String> annotations = current.getMetadata().getAnnotations() == null ? Map.of()
                : current.getMetadata().getAnnotations();
        Map<String, String> desiredAnnotations = new LinkedHashMap<>(annotations);
        byte[] bundle = settings.caBundle() == null ? null : settings.caBundle().current().orElse(null);
        if (settings.certManagerCertificate() != null) {
            desiredAnnotations.put(WebhookConfigurations.INJECT_CA_FROM_ANNOTATION, settings.certManagerCertificate());
        } else if (bundle != null) {
            // the sharder's CA is the one: an annotation left from cert-manager mode would make the
            // cainjector write another CA over it
            desiredAnnotations.remove(WebhookConfigurations.INJECT_CA_FROM_ANNOTATION);
        }
        if (!desiredAnnotations.equals(annotations)) {
            patch.set("/metadata/annotations", desiredAnnotations);
            changed = true;
        }
        if (bundle != null) {
            String encoded = Base64.getEncoder().encodeToString(bundle);
            List<ValidatingWebhook> webhooks = current.getWebhooks() == null ? List.of() : current.getWebhooks();
            for (int i = 0; i < webhooks.size(); i++) {
                WebhookClientConfig config = webhooks.get(i).getClientConfig();
                if (config != null && !encoded.equals(config.getCaBundle())) {
                    patch.set("/webhooks/" + i + "/clientConfig/caBundle", encoded);
                    changed = true;
                }
            }
        }
        if (!changed) {
            return Result.done();
        }
        client.admissionRegistration().v1().validatingWebhookConfigurations().resource(current)
                .patch(LockedJsonPatch.context(), patch.toJson(json));
        LOG.info("updated the CA of ValidatingWebhookConfiguration {} ({})", name,
                bundle != null ? "the sharder's CA bundle" : "cert-manager injects " + settings.certManagerCertificate());
        return Result.done();
    }
}
