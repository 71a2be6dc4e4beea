package dev.ringmaster.sharder.ringcontrol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingObject;
import dev.ringmaster.sharder.model.RingResourceSpec;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperationsBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MutatingWebhookConfiguration of a ring (docs/design.md sections 1 and 5): building it from the ring
 * and the sharder's {@link WebhookClientSettings}, and bringing the cluster's copy in line without fighting
 * cert-manager's CA injection.
 */
public final class WebhookConfigurations {

    /** cert-manager's cainjector fills {@code clientConfig.caBundle} of configurations carrying this. */
    public static final String INJECT_CA_FROM_ANNOTATION = "cert-manager.io/inject-ca-from";
    public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY = LockedJsonPatch.FIELD_MANAGER;

    private static final Logger LOG = LoggerFactory.getLogger(WebhookConfigurations.class);

    private final KubernetesClient client;
    private final WebhookClientSettings settings;

    public WebhookConfigurations(KubernetesClient client, WebhookClientSettings settings) {
        this.client = Objects.requireNonNull(client, "client");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /**
     * The configuration the ring should have: one webhook for CREATE and UPDATE of every main and
     * controlled resource, called only for objects without the ring's shard label, failing open.
     * The ring must be valid ({@link RingValidation}) and have a uid (be read from the server).
     */
    public MutatingWebhookConfiguration desired(RingObject ring) {
        return desired(ring, settings.readCaBundle());
    }

    private MutatingWebhookConfiguration desired(RingObject ring, byte[] caBundle) {
        RingKey key = ring.key();
        String name = key.name();
        ObjectMeta ringMeta = ring.getMetadata();
        Map<String, String> annotations = new LinkedHashMap<>();
        if (settings.certManagerCertificate() != null) {
            annotations.put(INJECT_CA_FROM_ANNOTATION, settings.certManagerCertificate());
        }
        return new MutatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(key.kind().webhookConfigurationName(name))
                .addToLabels(MANAGED_BY_LABEL, MANAGED_BY)
                .withAnnotations(annotations)
                // The garbage collector deletes the configuration with the ring; the sharder never does.
                .withOwnerReferences(new OwnerReferenceBuilder()
                        .withApiVersion(ring.getApiVersion())
                        .withKind(key.kind().kind())
                        .withName(name)
                        .withUid(ringMeta.getUid())
                        .withController(true)
                        .withBlockOwnerDeletion(true)
                        .build())
                .endMetadata()
                .withWebhooks(new MutatingWebhookBuilder()
                        .withName(RingContract.WEBHOOK_NAME)
                        .withClientConfig(clientConfig(key, caBundle))
                        .withRules(rules(ring))
                        .withNewObjectSelector()
                        .addNewMatchExpression()
                        .withKey(key.shardLabel())
                        .withOperator("DoesNotExist")
                        .endMatchExpression()
                        .endObjectSelector()
                        // A copy: the builder must not share the ring's mutable selector.
                        .withNamespaceSelector(new LabelSelectorBuilder(ring.getSpec().namespaceSelectorOrDefault())
                                .build())
                        // Fail open: the unassigned-object watch labels whatever the webhook missed.
                        .withFailurePolicy("Ignore")
                        .withTimeoutSeconds(5)
                        .withSideEffects("None")
                        .withAdmissionReviewVersions("v1")
                        // Set although they are the API server's defaults, so the stored object equals
                        // the desired one and an unchanged ring causes no write.
                        .withMatchPolicy("Equivalent")
                        .withReinvocationPolicy("Never")
                        .build())
                .build();
    }

    /**
     * Deletes the ring's webhook configuration when the webhook is switched off, so the API server
     * stops calling a webhook nobody serves. Only a configuration this sharder manages and the ring
     * owns is deleted, conditional on the resourceVersion it was read at.
     *
     * @return whether it deleted one
     */
    public static boolean remove(KubernetesClient client, RingObject ring) {
        Resource<MutatingWebhookConfiguration> resource = client.admissionRegistration().v1()
                .mutatingWebhookConfigurations().withName(ring.ringKind().webhookConfigurationName(ring.getMetadata().getName()));
        MutatingWebhookConfiguration current = resource.get();
        if (current == null || !MANAGED_BY.equals(nonNull(current.getMetadata().getLabels()).get(MANAGED_BY_LABEL))
                || current.getMetadata().getOwnerReferences() == null
                || current.getMetadata().getOwnerReferences().stream()
                        .noneMatch(owner -> ring.getMetadata().getUid().equals(owner.getUid()))) {
            return false;
        }
        resource.lockResourceVersion(current.getMetadata().getResourceVersion()).delete();
        LOG.info("deleted MutatingWebhookConfiguration {}: the webhook is switched off",
                current.getMetadata().getName());
        return true;
    }

    /**
     * Creates the ring's configuration or brings the fields the sharder owns (its label, the
     * cert-manager annotation, the controller owner reference, the webhooks) in line; writes nothing
     * when they already are. Labels, annotations and non-controller owner references of others stay.
     * Unless the settings name a CA bundle (a file, or the sharder's own CA once it is known), the
     * {@code caBundle} on the server is kept as it is (cert-manager or an operator injects it, or the
     * sharder's CA is not read yet): the patch carries it over and is locked to the
     * resourceVersion it was read at, so a concurrent injection makes it fail with 409 instead of
     * undoing the injection.
     *
     * @return whether it wrote
     */
    public boolean apply(RingObject ring) {
        byte[] caBundle = settings.readCaBundle();
        MutatingWebhookConfiguration desired = desired(ring, caBundle);
        String name = desired.getMetadata().getName();
        Resource<MutatingWebhookConfiguration> resource =
                client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(name);
        MutatingWebhookConfiguration current = resource.get();
        if (current == null) {
            client.admissionRegistration().v1().mutatingWebhookConfigurations().resource(desired).create();
            LOG.info("created MutatingWebhookConfiguration {} for {}", name, ring.key());
            return true;
        }
        ObjectMeta meta = current.getMetadata();
        Map<String, String> labels = new LinkedHashMap<>(nonNull(meta.getLabels()));
        labels.putAll(desired.getMetadata().getLabels());
        Map<String, String> annotations = new LinkedHashMap<>(nonNull(meta.getAnnotations()));
        annotations.remove(INJECT_CA_FROM_ANNOTATION);
        annotations.putAll(desired.getMetadata().getAnnotations());
        List<OwnerReference> owners = withControllerOwner(nonNull(meta.getOwnerReferences()),
                desired.getMetadata().getOwnerReferences().get(0));
        List<MutatingWebhook> webhooks = desired.getWebhooks();
        if (caBundle == null) {
            carryOverCaBundles(nonNull(current.getWebhooks()), webhooks);
        }

        KubernetesSerialization json = client.getKubernetesSerialization();
        LockedJsonPatch patch = new LockedJsonPatch(meta.getResourceVersion());
        boolean changed = false;
        changed |= setIfChanged(patch, "/metadata/labels", nonNull(meta.getLabels()), labels, json);
        changed |= setIfChanged(patch, "/metadata/annotations", nonNull(meta.getAnnotations()), annotations, json);
        changed |= setIfChanged(patch, "/metadata/ownerReferences", nonNull(meta.getOwnerReferences()), owners, json);
        changed |= setIfChanged(patch, "/webhooks", nonNull(current.getWebhooks()), webhooks, json);
        if (!changed) {
            return false;
        }
        // On the object just read, so fabric8 does not fetch it once more before patching.
        client.admissionRegistration().v1().mutatingWebhookConfigurations().resource(current)
                .patch(LockedJsonPatch.context(), patch.toJson(json));
        LOG.info("updated MutatingWebhookConfiguration {} for {}", name, ring.key());
        return true;
    }

    private WebhookClientConfig clientConfig(RingKey ring, byte[] caBundle) {
        WebhookClientConfigBuilder config = new WebhookClientConfigBuilder();
        WebhookClientSettings.ServiceEndpoint service = settings.service();
        if (service != null) {
            config.withNewService()
                    .withNamespace(service.namespace())
                    .withName(service.name())
                    .withPort(service.port())
                    .withPath(ring.kind().webhookPath(ring.name()))
                    .endService();
        } else {
            config.withUrl(settings.webhookUrl(ring));
        }
        if (caBundle != null) {
            config.withCaBundle(Base64.getEncoder().encodeToString(caBundle));
        }
        return config.build();
    }

    private static List<RuleWithOperations> rules(RingObject ring) {
        List<RuleWithOperations> rules = new ArrayList<>();
        for (RingResourceSpec main : ring.getSpec().getResources()) {
            rules.add(rule(main));
            for (GroupResource controlled : nonNull(main.getControlledResources())) {
                rules.add(rule(controlled));
            }
        }
        return rules;
    }

    private static RuleWithOperations rule(GroupResource resource) {
        return new RuleWithOperationsBuilder()
                .withApiGroups(resource.getGroup())
                .withResources(resource.getResource())
                .withApiVersions("*")
                .withOperations("CREATE", "UPDATE")
                .withScope("*")
                .build();
    }

    /**
     * The owner references with the ring as the only controller, in place of any other controller
     * (an earlier ring of the same name) so the order, and thus the comparison, stays stable.
     */
    private static List<OwnerReference> withControllerOwner(List<OwnerReference> current, OwnerReference ring) {
        List<OwnerReference> owners = new ArrayList<>();
        boolean placed = false;
        for (OwnerReference owner : current) {
            if (Boolean.TRUE.equals(owner.getController()) || Objects.equals(owner.getUid(), ring.getUid())) {
                if (!placed) {
                    owners.add(ring);
                    placed = true;
                }
            } else {
                owners.add(owner);
            }
        }
        if (!placed) {
            owners.add(ring);
        }
        return owners;
    }

    /** Copies the caBundle someone else injected into the desired webhook of the same name. */
    private static void carryOverCaBundles(List<MutatingWebhook> current, List<MutatingWebhook> desired) {
        for (MutatingWebhook webhook : desired) {
            current.stream()
                    .filter(existing -> Objects.equals(existing.getName(), webhook.getName()))
                    .map(MutatingWebhook::getClientConfig)
                    .filter(Objects::nonNull)
                    .map(WebhookClientConfig::getCaBundle)
                    .filter(Objects::nonNull)
                    .findFirst()
                    .ifPresent(webhook.getClientConfig()::setCaBundle);
        }
    }

    /**
     * Adds the field to the patch if it differs from the current one. Compared as JSON, which is how
     * the server sees it: fabric8 models omit empty lists and maps, so null and empty are equal.
     */
    private static boolean setIfChanged(LockedJsonPatch patch, String path, Object current, Object desired,
            KubernetesSerialization json) {
        if (json.convertValue(current, JsonNode.class).equals(json.convertValue(desired, JsonNode.class))) {
            return false;
        }
        patch.set(path, desired);
        return true;
    }

    private static <T> List<T> nonNull(List<T> list) {
        return list == null ? List.of() : list;
    }

    private static <K, V> Map<K, V> nonNull(Map<K, V> map) {
        return map == null ? Map.of() : map;
    }
}
