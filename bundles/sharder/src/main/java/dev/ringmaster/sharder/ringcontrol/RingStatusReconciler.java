package dev.ringmaster.sharder.ringcontrol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ringmaster.sharder.autoscale.AutoscalingReports;
import dev.ringmaster.sharder.kube.WriteFence;
import dev.ringmaster.sharder.model.RingAutoscaling;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingObject;
import dev.ringmaster.sharder.model.RingStatus;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.runtime.Reconciler;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ring status controller's logic (keyed by ring, of either kind): reads the ring, compiles its view
 * (validity, strategy, interpreters, shards), keeps its MutatingWebhookConfiguration in line and
 * reports the outcome in the ring's status and, when it is not Ready, in a Warning event.
 *
 * <p>Level-based: every pass re-reads the ring and writes only what differs. A
 * deleted ring needs nothing: its webhook configuration carries a controller owner reference, so the
 * garbage collector removes it.
 */
public final class RingStatusReconciler implements Reconciler<RingKey> {

    public static final String CONDITION_READY = "Ready";
    public static final String REASON_SUCCEEDED = "ReconciliationSucceeded";
    public static final String REASON_FAILED = "ReconciliationFailed";
    /** The ring's scale target (spec.autoscaling.scaleTargetRef) is missing or cannot be scaled; it shards on. */
    public static final String REASON_SCALE_TARGET_UNAVAILABLE = "ScaleTargetUnavailable";
    /** Reporting component of the sharder's events. */
    public static final String COMPONENT = LockedJsonPatch.FIELD_MANAGER;

    private static final Logger LOG = LoggerFactory.getLogger(RingStatusReconciler.class);
    /** Events of cluster-scoped objects live here, as client-go's recorder puts them. */
    private static final String EVENT_NAMESPACE = "default";
    private static final int MAX_CONDITION_MESSAGE = 32768;
    private static final int MAX_EVENT_MESSAGE = 1024;
    private static final int HTTP_CONFLICT = 409;

    private final KubernetesClient client;
    private final Function<RingObject, RingView> compile;
    private final Optional<WebhookConfigurations> webhookConfigurations;
    private final Clock clock;
    private final AutoscalingReports autoscaling;

    /**
     * @param client          API access; the leader's fenced client ({@link WriteFence#guard})
     * @param compile         the view of a ring object against the plug-ins and shards in force
     *                        ({@code RingRegistry#compile})
     * @param webhookSettings how the API server reaches the sharder's webhook; empty when the webhook
     *                        is switched off (the unassigned-object watch then assigns every object)
     * @param clock           for condition and event timestamps
     */
    public RingStatusReconciler(KubernetesClient client, Function<RingObject, RingView> compile,
            Optional<WebhookClientSettings> webhookSettings, Clock clock) {
        this(client, compile, webhookSettings, clock, new AutoscalingReports());
    }

    /** @param autoscaling what the leader's autoscaler found, written into {@code status.autoscaling} */
    public RingStatusReconciler(KubernetesClient client, Function<RingObject, RingView> compile,
            Optional<WebhookClientSettings> webhookSettings, Clock clock, AutoscalingReports autoscaling) {
        this.autoscaling = Objects.requireNonNull(autoscaling, "autoscaling");
        this.client = Objects.requireNonNull(client, "client");
        this.compile = Objects.requireNonNull(compile, "compile");
        this.webhookConfigurations = webhookSettings.map(settings -> new WebhookConfigurations(client, settings));
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The outcome of one pass, as it goes into the Ready condition. */
    private record Verdict(boolean ready, String reason, String message) {

        static Verdict notReady(String reason, String message) {
            return new Verdict(false, reason, message);
        }
    }

    @Override
    public Result reconcile(RingKey key) {
        RingObject ring = client.resources(RingObject.typeOf(key.kind())).withName(key.name()).get();
        if (ring == null || ring.getMetadata().getDeletionTimestamp() != null) {
            // Nothing to clean up: the garbage collector follows the owner reference.
            LOG.debug("{} is gone or going", key);
            return Result.done();
        }
        RingView view = compile.apply(ring);
        Verdict verdict;
        try {
            verdict = evaluate(view);
        } catch (RuntimeException e) {
            if (e instanceof KubernetesClientException kce && kce.getCode() == HTTP_CONFLICT
                    || WriteFence.refused(e)) {
                // Someone (cert-manager, say) wrote between our read and our locked write, or this
                // replica may no longer write: not a failure worth flipping Ready for.
                throw e;
            }
            // Report where possible, then let the controller retry with backoff.
            try {
                report(view, Verdict.notReady(REASON_FAILED, describe(key, e)));
            } catch (RuntimeException reportFailure) {
                e.addSuppressed(reportFailure);
            }
            throw e;
        }
        report(view, verdict);
        return Result.done();
    }

    private Verdict evaluate(RingView view) {
        Optional<RingView.Blocker> blocker = view.blocker();
        if (blocker.isPresent()) {
            // Leave any existing webhook configuration as it is: nothing moves while the ring is blocked.
            return Verdict.notReady(blocker.get().reason(), blocker.get().message());
        }
        if (view.rangeModeAsked()) {
            // range mode labels no object: no webhook, and the one of its label mode goes
            WebhookConfigurations.remove(client, view.ring());
        } else {
            webhookConfigurations.ifPresentOrElse(configurations -> configurations.apply(view.ring()),
                    () -> WebhookConfigurations.remove(client, view.ring()));
        }
        // sharding on with the strategy in force before, while the one asked for is missing
        Optional<RingView.Blocker> degraded = view.degraded();
        if (degraded.isPresent()) {
            return Verdict.notReady(degraded.get().reason(), degraded.get().message());
        }
        Optional<String> scaleProblem = autoscalingReport(view).map(AutoscalingReports.Report::problem);
        if (scaleProblem.isPresent()) {
            return Verdict.notReady(REASON_SCALE_TARGET_UNAVAILABLE, scaleProblem.get() + "; still "
                    + view.readyMessage());
        }
        return new Verdict(true, REASON_SUCCEEDED, view.readyMessage());
    }

    /** The autoscaler's report on the ring's present {@code spec.autoscaling}, if it has one. */
    private Optional<AutoscalingReports.Report> autoscalingReport(RingView view) {
        RingAutoscaling spec = view.ring().getSpec() == null ? null : view.ring().getSpec().getAutoscaling();
        return spec == null ? Optional.empty() : autoscaling.get(view.key(), spec);
    }

    /** Writes the status if it changed, and a Warning event when the ring newly fails for a reason. */
    private void report(RingView view, Verdict verdict) {
        RingObject ring = view.ring();
        Long generation = ring.getMetadata().getGeneration();
        RingStatus current = ring.getStatus();
        List<Condition> currentConditions = current == null || current.getConditions() == null
                ? List.of() : current.getConditions();
        Condition previous = currentConditions.stream()
                .filter(condition -> CONDITION_READY.equals(condition.getType()))
                .findFirst()
                .orElse(null);
        String status = verdict.ready() ? "True" : "False";
        Condition ready = new ConditionBuilder()
                .withType(CONDITION_READY)
                .withStatus(status)
                .withReason(verdict.reason())
                .withMessage(truncate(verdict.message(), MAX_CONDITION_MESSAGE))
                .withObservedGeneration(generation)
                // Transition time marks a change of status, not of reason or message.
                .withLastTransitionTime(previous != null && status.equals(previous.getStatus())
                        && previous.getLastTransitionTime() != null
                        ? previous.getLastTransitionTime() : now())
                .build();
        List<Condition> conditions = new ArrayList<>();
        for (Condition condition : currentConditions) {
            if (!CONDITION_READY.equals(condition.getType())) {
                conditions.add(condition); // conditions of other writers stay
            }
        }
        conditions.add(ready);

        RingStatus desired = new RingStatus();
        desired.setObservedGeneration(generation);
        desired.setShards(view.shards().size());
        desired.setAvailableShards(view.availableShards().size());
        desired.setConditions(conditions);
        if (ring.getSpec() != null && ring.getSpec().getAutoscaling() != null) {
            // a new leader's autoscaler has not reported yet: what the last one said stays
            desired.setAutoscaling(autoscalingReport(view)
                    .map(report -> report.status(current == null ? null : current.getAutoscaling()))
                    .orElse(current == null ? null : current.getAutoscaling()));
        }

        if (current != null && ring.getSpec() != null && ring.getSpec().getBalancing() != null) {
            // the weight balancer's, which every replica places with; kept while the spec asks for it, even invalid
            desired.setBalancing(current.getBalancing());
        }

        KubernetesSerialization json = client.getKubernetesSerialization();
        if (!Objects.equals(json.convertValue(current, JsonNode.class), json.convertValue(desired, JsonNode.class))) {
            // Through the status subresource, locked to the generation we evaluated: if the spec
            // changed meanwhile, the write fails with 409 and the next pass reports on the new spec.
            LockedJsonPatch patch = new LockedJsonPatch(ring.getMetadata().getResourceVersion()).set("/status", desired);
            patch.applyToStatus(client, ring);
            if (previous == null || !status.equals(previous.getStatus())) {
                LOG.info("{} is {}Ready: {}: {}", view.key(), verdict.ready() ? "" : "not ", verdict.reason(),
                        verdict.message());
            }
        }
        boolean sameFailure = previous != null && "False".equals(previous.getStatus())
                && Objects.equals(previous.getReason(), ready.getReason())
                && Objects.equals(previous.getMessage(), ready.getMessage());
        if (!verdict.ready() && !sameFailure) {
            warn(ring, verdict);
        }
    }

    /** Best effort: an event that cannot be written must not fail the pass (the status says it all). */
    private void warn(RingObject ring, Verdict verdict) {
        String timestamp = now();
        try {
                client.v1().events().inNamespace(EVENT_NAMESPACE).resource(new EventBuilder()
                            .withNewMetadata()
                            .withGenerateName(ring.getMetadata().getName() + ".")
                            .withNamespace(EVENT_NAMESPACE)
                            .endMetadata()
                            .withNewInvolvedObject()
                            .withApiVersion(ring.getApiVersion())
                            .withKind(ring.ringKind().kind())
                            .withName(ring.getMetadata().getName())
                            .withUid(ring.getMetadata().getUid())
                            .withResourceVersion(ring.getMetadata().getResourceVersion())
                            .endInvolvedObject()
                            .withType("Warning")
                            .withReason(verdict.reason())
                            .withMessage(truncate(verdict.message(), MAX_EVENT_MESSAGE))
                            .withNewSource().withComponent(COMPONENT).endSource()
                            .withReportingComponent(COMPONENT)
                            .withFirstTimestamp(timestamp)
                            .withLastTimestamp(timestamp)
                            .withCount(1)
                            .build())
                    .create();
        } catch (KubernetesClientException e) {
            LOG.warn("cannot record a {} event on {}: {}", verdict.reason(), ring.key(),
                    e.getMessage());
        }
    }

    /** The API server's own message where there is one: shorter and clearer than the client's. */
    private static String describe(RingKey ring, RuntimeException e) {
        String failed = "reconciling the " + ring.kind().kind() + " failed";
        if (e instanceof KubernetesClientException kce && kce.getStatus() != null
                && kce.getStatus().getMessage() != null) {
            return failed + " (" + kce.getCode() + "): " + kce.getStatus().getMessage();
        }
        return failed + ": " + e.getMessage();
    }

    private String now() {
        return DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS));
    }

    private static String truncate(String message, int max) {
        return message.length() <= max ? message : message.substring(0, max - 3) + "...";
    }
}
