package dev.ringmaster.delivery;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says what became of each delivery ConfigMap: one log line and one Event on the ConfigMap (reason
 * {@value #APPLIED} or, with any entry refused, {@value #REFUSED} as a Warning) each time its outcome
 * changes, from every replica (the Event's reporting instance names it); and the gauge
 * {@code ringmaster_bundle_state}, 1 per delivered bundle with its state.
 */
final class DeliveryReport {

    static final String APPLIED = "Applied";
    static final String REFUSED = "Refused";
    static final String COMPONENT = "ringmaster-delivery";
    private static final int MAX_EVENT_MESSAGE = 1024;
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryReport.class);

    private final KubernetesClient client;
    private final String identity;
    /** The outcome last reported per ConfigMap, so that an unchanged one is not reported again. */
    private final Map<String, String> reported = new HashMap<>();
    private MultiGauge bundleStates;

    DeliveryReport(KubernetesClient client, String identity) {
        this.client = Objects.requireNonNull(client, "client");
        this.identity = Objects.requireNonNull(identity, "identity");
    }

    /** Reports a sync: what {@code delivery} asked for and what became of its bundles. */
    void delivered(Delivery delivery, Map<String, String> configurationFailures, List<BundleDeployer.Outcome> outcomes,
            List<ConfigMap> configMaps, MeterRegistry registry) {
        for (ConfigMap configMap : configMaps) {
            String name = Delivery.nameOf(configMap);
            List<String> refusals = new ArrayList<>();
            StringJoiner applied = new StringJoiner(", ");
            delivery.refusals().stream().filter(refusal -> refusal.source().configMap().equals(name))
                    .forEach(refusal -> refusals.add(refusal.source().key() + ": " + refusal.reason()));
            delivery.configurations().keySet().stream()
                    .filter(pid -> configMap.getData() != null && configMap.getData().containsKey(pid + Delivery.CONFIGURATION_SUFFIX))
                    .forEach(pid -> {
                        if (configurationFailures.containsKey(pid)) {
                            refusals.add(pid + Delivery.CONFIGURATION_SUFFIX + ": " + configurationFailures.get(pid));
                        } else {
                            applied.add("configuration " + pid);
                        }
                    });
            outcomes.stream().filter(outcome -> outcome.jar().source().configMap().equals(name)).forEach(outcome -> {
                if (outcome.refused()) {
                    refusals.add(outcome.jar().source().key() + " (sha256 " + outcome.jar().sha256() + "): "
                            + outcome.problem());
                } else {
                    applied.add("bundle " + outcome.symbolicName() + " " + outcome.version() + " from "
                            + outcome.jar().source().key() + " (sha256 " + outcome.jar().sha256() + ", "
                            + outcome.state() + ")");
                }
            });
            String message = (applied.length() == 0 ? "nothing to apply" : "applied " + applied)
                    + (refusals.isEmpty() ? "" : "; refused " + String.join("; ", refusals));
            String outcome = configMap.getMetadata().getResourceVersion() + " " + message;
            if (!outcome.equals(reported.put(name, outcome))) {
                if (refusals.isEmpty()) {
                    LOG.info("Delivery from ConfigMap {}: {}", name, message);
                } else {
                    LOG.warn("Delivery from ConfigMap {}: {}", name, message);
                }
                record(configMap, refusals.isEmpty() ? APPLIED : REFUSED, message);
            }
        }
        reported.keySet().retainAll(configMaps.stream()
                .map(Delivery::nameOf).toList());
        if (registry != null) {
            gauge(registry).register(outcomes.stream().map(outcome -> MultiGauge.Row.of(Tags.of(
                    "configmap", outcome.jar().source().configMap(), "key", outcome.jar().source().key(),
                    "bundle", outcome.symbolicName(), "version", outcome.version(), "state", outcome.state()), 1))
                    .toList(), true);
        }
    }

    void removeMetrics() {
        if (bundleStates != null) {
            bundleStates.register(List.of(), true);
        }
    }

    private MultiGauge gauge(MeterRegistry registry) {
        if (bundleStates == null) {
            bundleStates = MultiGauge.builder("ringmaster.bundle.state")
                    .description("Bundles delivered by ConfigMaps, 1 per bundle with its state (active, refused, …)")
                    .register(registry);
        }
        return bundleStates;
    }

    /** Best effort: an Event that cannot be written must not stop the delivery (the log says it all). */
    private void record(ConfigMap configMap, String reason, String message) {
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        try {
            client.v1().events().inNamespace(configMap.getMetadata().getNamespace()).resource(new EventBuilder()
                    .withNewMetadata().withGenerateName(configMap.getMetadata().getName() + ".").endMetadata()
                    .withNewInvolvedObject()
                    .withApiVersion("v1").withKind("ConfigMap")
                    .withNamespace(configMap.getMetadata().getNamespace())
                    .withName(configMap.getMetadata().getName())
                    .withUid(configMap.getMetadata().getUid())
                    .withResourceVersion(configMap.getMetadata().getResourceVersion())
                    .endInvolvedObject()
                    .withType(APPLIED.equals(reason) ? "Normal" : "Warning")
                    .withReason(reason)
                    .withMessage(message.length() > MAX_EVENT_MESSAGE ? message.substring(0, MAX_EVENT_MESSAGE) : message)
                    .withNewSource().withComponent(COMPONENT).withHost(identity).endSource()
                    .withReportingComponent(COMPONENT)
                    .withReportingInstance(identity)
                    .withFirstTimestamp(now)
                    .withLastTimestamp(now)
                    .withCount(1)
                    .build()).create();
        } catch (KubernetesClientException e) {
            LOG.warn("Cannot record a {} event on ConfigMap {}/{}: {}", reason, configMap.getMetadata().getNamespace(),
                    configMap.getMetadata().getName(), e.getMessage());
        }
    }
}
