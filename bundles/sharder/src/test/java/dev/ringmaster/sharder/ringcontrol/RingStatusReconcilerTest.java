package dev.ringmaster.sharder.ringcontrol;

import static dev.ringmaster.sharder.testing.TestRings.main;
import static dev.ringmaster.sharder.testing.TestRings.ring;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingRanges;
import dev.ringmaster.sharder.model.RingSpec;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.ring.StrategyBinding;
import dev.ringmaster.sharder.runtime.Reconciler;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ClusterRing controller against fabric8's mock API server in CRUD mode, with a fake clock. */
@EnableCrudApiServer
class RingStatusReconcilerTest {

    private static final String RING = "example";
    private static final RingKey KEY = RingKey.clusterRing(RING);
    private static final String WEBHOOK_CONFIGURATION = "sharding-clusterring-50d858e0-example";
    private static final String SHARD_LABEL = "shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example";
    private static final Instant START = Instant.parse("2030-01-02T03:04:05.678Z");
    private static final String START_TIME = "2030-01-02T03:04:05Z";

    KubernetesMockServer server;
    KubernetesClient client;

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(START);
    private final AtomicReference<Membership> membership = new AtomicReference<>(new Membership(Map.of(KEY, List.of(
            new ShardInfo("shard-a", ShardState.READY, 1),
            new ShardInfo("shard-b", ShardState.UNCERTAIN, 1),
            new ShardInfo("shard-c", ShardState.DEAD, 1)))));
    /** The strategies and interpreters deployed, by name; every strategy places as rendezvous does. */
    private final Set<String> strategies = new HashSet<>(Set.of("consistent", "rendezvous"));
    private final Set<String> interpreters = new HashSet<>(Set.of(DefaultResourceInterpreter.NAME));
    private String defaultStrategy = "consistent";
    private final RingRegistry registry = new RingRegistry();

    @BeforeEach
    void installCrd() throws IOException {
        // The generated CRD itself: the mock learns from it that ClusterRings have a status subresource.
        try (InputStream crd = getClass().getClassLoader()
                .getResourceAsStream("META-INF/fabric8/clusterrings.sharding.timebertt.dev-v1.yml")) {
            client.apiextensions().v1().customResourceDefinitions().load(crd).create();
        }
    }

    @Test
    void validRingIsReadyWithShardCountsFromMembership() {
        ClusterRing ring = create(exampleRing());

        assertThat(reconciler(WebhookClientSettings.defaults()).reconcile(KEY)).isEqualTo(Reconciler.Result.done());

        ClusterRing read = read();
        assertThat(read.getStatus().getObservedGeneration()).isEqualTo(1L);
        assertThat(read.getStatus().getShards()).isEqualTo(3);
        assertThat(read.getStatus().getAvailableShards()).isEqualTo(2);
        assertThat(read.getStatus().getConditions()).singleElement().satisfies(ready -> {
            assertThat(ready.getType()).isEqualTo("Ready");
            assertThat(ready.getStatus()).isEqualTo("True");
            assertThat(ready.getReason()).isEqualTo("ReconciliationSucceeded");
            assertThat(ready.getMessage()).isEqualTo("sharding with strategy \"consistent\" (the sharder's default)");
            assertThat(ready.getObservedGeneration()).isEqualTo(1L);
            assertThat(ready.getLastTransitionTime()).isEqualTo(START_TIME);
        });
        assertThat(read.getMetadata().getUid()).isEqualTo(ring.getMetadata().getUid());
        assertThat(events()).isEmpty();
    }

    @Test
    void ringStrategyWinsOverTheDefault() {
        ClusterRing ring = exampleRing();
        ring.getSpec().setStrategy("rendezvous");
        create(ring);

        reconciler(WebhookClientSettings.defaults()).reconcile(KEY);

        assertThat(ready(read()).getMessage()).isEqualTo("sharding with strategy \"rendezvous\" (spec.strategy)");
    }

    @Test
    void serviceModeWebhookConfiguration() throws IOException {
        Path ca = Files.writeString(dir.resolve("ca.pem"), WebhookClientSettingsTest.PEM);
        ClusterRing ring = create(exampleRing());

        reconciler(WebhookClientSettings.defaults().withCaBundleFile(ca)).reconcile(KEY);

        MutatingWebhookConfiguration configuration = webhookConfiguration();
        assertOwnedByRing(configuration, ring);
        assertThat(configuration.getMetadata().getAnnotations()).isNullOrEmpty();
        MutatingWebhook webhook = singleWebhook(configuration);
        assertThat(webhook.getRules()).hasSize(4);
        assertThat(webhook.getClientConfig().getUrl()).isNull();
        assertThat(webhook.getClientConfig().getService().getNamespace()).isEqualTo("sharding-system");
        assertThat(webhook.getClientConfig().getService().getName()).isEqualTo("sharder");
        assertThat(webhook.getClientConfig().getService().getPort()).isEqualTo(443);
        assertThat(webhook.getClientConfig().getService().getPath()).isEqualTo("/webhooks/sharder/clusterring/example");
        assertThat(webhook.getClientConfig().getCaBundle())
                .isEqualTo(Base64.getEncoder().encodeToString(WebhookClientSettingsTest.PEM.getBytes(StandardCharsets.US_ASCII)));
        assertThat(webhook.getNamespaceSelector().getMatchLabels()).isNullOrEmpty();
        assertThat(webhook.getNamespaceSelector().getMatchExpressions())
                .extracting(LabelSelectorRequirement::getKey, LabelSelectorRequirement::getOperator,
                        LabelSelectorRequirement::getValues)
                .containsExactly(tuple("kubernetes.io/metadata.name", "NotIn", List.of("kube-system", "sharding-system")));
    }

    @Test
    void urlModeWebhookConfigurationWithCertManagerAndRingNamespaceSelector() {
        ClusterRing ring = exampleRing();
        ring.getSpec().setNamespaceSelector(new LabelSelectorBuilder().addToMatchLabels("role", "project").build());
        ring = create(ring);

        reconciler(WebhookClientSettings.url("https://sharder.example:9443")
                .withCertManagerCertificate("sharding-system/webhook-ca")).reconcile(KEY);

        MutatingWebhookConfiguration configuration = webhookConfiguration();
        assertOwnedByRing(configuration, ring);
        assertThat(configuration.getMetadata().getAnnotations())
                .isEqualTo(Map.of("cert-manager.io/inject-ca-from", "sharding-system/webhook-ca"));
        MutatingWebhook webhook = singleWebhook(configuration);
        assertThat(webhook.getRules()).hasSize(4);
        assertThat(webhook.getClientConfig().getService()).isNull();
        assertThat(webhook.getClientConfig().getUrl())
                .isEqualTo("https://sharder.example:9443/webhooks/sharder/clusterring/example");
        assertThat(webhook.getClientConfig().getCaBundle()).as("cert-manager injects it").isNull();
        assertThat(webhook.getNamespaceSelector().getMatchLabels()).isEqualTo(Map.of("role", "project"));
        assertThat(webhook.getNamespaceSelector().getMatchExpressions()).isNullOrEmpty();
    }

    @Test
    void caBundleInjectedByCertManagerSurvivesReconciliation() {
        create(exampleRing());
        RingStatusReconciler reconciler = reconciler(WebhookClientSettings.defaults()
                .withCertManagerCertificate("sharding-system/webhook-ca"));
        reconciler.reconcile(KEY);
        String injected = Base64.getEncoder().encodeToString("injected by cainjector".getBytes(StandardCharsets.UTF_8));
        webhookConfigurationResource().edit(configuration -> {
            configuration.getWebhooks().get(0).getClientConfig().setCaBundle(injected);
            return configuration;
        });
        String injectedVersion = webhookConfiguration().getMetadata().getResourceVersion();

        List<String> requests = requestsDuring(() -> reconciler.reconcile(KEY));

        assertThat(requests).as("nothing to write").allMatch(request -> request.startsWith("GET "));
        assertThat(webhookConfiguration().getMetadata().getResourceVersion()).isEqualTo(injectedVersion);

        // A spec change rewrites the rules and still keeps the injected CA.
        editSpec(spec -> spec.getResources().add(main("batch", "jobs")));
        reconciler.reconcile(KEY);

        MutatingWebhook webhook = singleWebhook(webhookConfiguration());
        assertThat(webhook.getRules()).hasSize(5).last().satisfies(rule -> {
            assertThat(rule.getApiGroups()).containsExactly("batch");
            assertThat(rule.getResources()).containsExactly("jobs");
        });
        assertThat(webhook.getClientConfig().getCaBundle()).isEqualTo(injected);
        assertThat(webhookConfiguration().getMetadata().getAnnotations())
                .containsEntry("cert-manager.io/inject-ca-from", "sharding-system/webhook-ca");
    }

    @Test
    void caBundleFileModeWritesTheRotatedFile() throws IOException {
        Path ca = Files.writeString(dir.resolve("ca.pem"), WebhookClientSettingsTest.PEM);
        create(exampleRing());
        RingStatusReconciler reconciler = reconciler(WebhookClientSettings.defaults().withCaBundleFile(ca));
        reconciler.reconcile(KEY);
        String rotated = WebhookClientSettingsTest.PEM + WebhookClientSettingsTest.PEM;
        Files.writeString(ca, rotated);

        reconciler.reconcile(KEY);

        assertThat(singleWebhook(webhookConfiguration()).getClientConfig().getCaBundle())
                .isEqualTo(Base64.getEncoder().encodeToString(rotated.getBytes(StandardCharsets.US_ASCII)));
    }

    /**
     * Self-signed mode: the configuration trusts the sharder's own CA as it is at each pass, takes over
     * from cert-manager (its annotation goes, so the cainjector does not write another CA over it), and
     * leaves the caBundle there is while the sharder does not know its CA yet.
     */
    @Test
    void theShardersOwnCaIsWrittenOnceKnownAndReplacesCertManagersInjection() {
        create(exampleRing());
        reconciler(WebhookClientSettings.defaults().withCertManagerCertificate("sharding-system/sharder-webhook"))
                .reconcile(KEY);
        String injected = Base64.getEncoder().encodeToString("injected by cainjector".getBytes(StandardCharsets.UTF_8));
        webhookConfigurationResource().edit(configuration -> {
            configuration.getWebhooks().get(0).getClientConfig().setCaBundle(injected);
            return configuration;
        });
        AtomicReference<byte[]> ca = new AtomicReference<>();
        RingStatusReconciler reconciler = reconciler(WebhookClientSettings.defaults()
                .withCaBundleSource(() -> Optional.ofNullable(ca.get())));

        reconciler.reconcile(KEY);
        assertThat(singleWebhook(webhookConfiguration()).getClientConfig().getCaBundle())
                .as("not known yet: kept").isEqualTo(injected);
        assertThat(webhookConfiguration().getMetadata().getAnnotations()).isNullOrEmpty();

        ca.set(WebhookClientSettingsTest.PEM.getBytes(StandardCharsets.US_ASCII));
        reconciler.reconcile(KEY);
        assertThat(singleWebhook(webhookConfiguration()).getClientConfig().getCaBundle())
                .isEqualTo(Base64.getEncoder().encodeToString(ca.get()));

        String version = webhookConfiguration().getMetadata().getResourceVersion();
        assertThat(requestsDuring(() -> reconciler.reconcile(KEY))).as("the same CA: nothing to write")
                .allMatch(request -> request.startsWith("GET "));
        assertThat(webhookConfiguration().getMetadata().getResourceVersion()).isEqualTo(version);

        ca.set((WebhookClientSettingsTest.PEM + WebhookClientSettingsTest.PEM).getBytes(StandardCharsets.US_ASCII));
        reconciler.reconcile(KEY);
        assertThat(singleWebhook(webhookConfiguration()).getClientConfig().getCaBundle())
                .as("a renewed CA").isEqualTo(Base64.getEncoder().encodeToString(ca.get()));
    }

    @Test
    void foreignLabelsAnnotationsAndOwnersAreKept() {
        RingStatusReconciler reconciler = exampleRingReconciledOnce();
        webhookConfigurationResource().edit(configuration -> {
            configuration.getMetadata().getLabels().put("team", "platform");
            configuration.getMetadata().setAnnotations(Map.of("note", "kept"));
            configuration.getMetadata().getOwnerReferences().add(new OwnerReferenceBuilder().withApiVersion("v1")
                    .withKind("ConfigMap").withName("keeper").withUid("keeper-uid").build());
            configuration.getWebhooks().get(0).setTimeoutSeconds(30); // drift the sharder must undo
            return configuration;
        });

        reconciler.reconcile(KEY);

        MutatingWebhookConfiguration configuration = webhookConfiguration();
        assertThat(configuration.getMetadata().getLabels()).containsEntry("team", "platform")
                .containsEntry("app.kubernetes.io/managed-by", "ringmaster-sharder");
        assertThat(configuration.getMetadata().getAnnotations()).isEqualTo(Map.of("note", "kept"));
        assertThat(configuration.getMetadata().getOwnerReferences())
                .extracting(OwnerReference::getName).containsExactly(RING, "keeper");
        assertThat(singleWebhook(configuration).getTimeoutSeconds()).isEqualTo(5);
    }

    @Test
    void invalidRingIsNotReadyAndGetsNoWebhookConfiguration() {
        create(ring(RING, main("apps", "deployments", new GroupResource("apps", "replicasets")),
                main("apps", "replicasets")));
        RingStatusReconciler reconciler = reconciler(WebhookClientSettings.defaults());

        reconciler.reconcile(KEY);

        Condition ready = ready(read());
        assertThat(ready.getStatus()).isEqualTo("False");
        assertThat(ready.getReason()).isEqualTo("InvalidSpec");
        assertThat(ready.getMessage()).isEqualTo("the ClusterRing is invalid: spec.resources[0].controlledResources[0]:"
                + " replicasets.apps is listed both as a main resource (spec.resources[1]) and as a controlled"
                + " resource; each resource may have only one role in a ring");
        assertThat(webhookConfigurationResource().get()).isNull();
        assertThat(events()).singleElement().satisfies(event -> {
            assertThat(event.getType()).isEqualTo("Warning");
            assertThat(event.getReason()).isEqualTo("InvalidSpec");
            assertThat(event.getMessage()).isEqualTo(ready.getMessage());
            assertThat(event.getInvolvedObject().getKind()).isEqualTo("ClusterRing");
            assertThat(event.getInvolvedObject().getApiVersion()).isEqualTo("sharding.timebertt.dev/v1alpha1");
            assertThat(event.getInvolvedObject().getName()).isEqualTo(RING);
            assertThat(event.getInvolvedObject().getUid()).isEqualTo(read().getMetadata().getUid());
            assertThat(event.getSource().getComponent()).isEqualTo("ringmaster-sharder");
            assertThat(event.getFirstTimestamp()).isEqualTo(START_TIME);
        });

        clock.advance(Duration.ofMinutes(1));
        reconciler.reconcile(KEY);

        assertThat(events()).as("the same failure is not announced again").hasSize(1);
        assertThat(ready(read()).getLastTransitionTime()).isEqualTo(START_TIME);
    }

    @Test
    void invalidSpecLeavesAnExistingWebhookConfigurationAlone() {
        RingStatusReconciler reconciler = exampleRingReconciledOnce();
        MutatingWebhookConfiguration before = webhookConfiguration();
        editSpec(spec -> spec.getResources().add(main("", "configmaps")));

        reconciler.reconcile(KEY);

        assertThat(ready(read()).getReason()).isEqualTo("InvalidSpec");
        assertThat(webhookConfiguration().getMetadata().getResourceVersion())
                .isEqualTo(before.getMetadata().getResourceVersion());
    }

    @Test
    void unavailableStrategyMakesTheRingNotReadyUntilItIsBack() {
        ClusterRing ring = exampleRing();
        ring.getSpec().setStrategy("jump");
        create(ring);
        RingStatusReconciler reconciler = reconciler(WebhookClientSettings.defaults());

        reconciler.reconcile(KEY);

        Condition ready = ready(read());
        assertThat(ready.getStatus()).isEqualTo("False");
        assertThat(ready.getReason()).isEqualTo("StrategyUnavailable");
        assertThat(ready.getMessage()).contains("\"jump\"", "spec.strategy", "not available");
        assertThat(ready.getLastTransitionTime()).isEqualTo(START_TIME);
        assertThat(webhookConfigurationResource().get()).isNull();
        assertThat(events()).extracting(Event::getReason).containsExactly("StrategyUnavailable");
        assertThat(read().getStatus().getShards()).as("counts are reported anyway").isEqualTo(3);

        strategies.add("jump");
        clock.advance(Duration.ofMinutes(5));
        reconciler.reconcile(KEY);

        assertThat(ready(read()).getStatus()).isEqualTo("True");
        assertThat(ready(read()).getLastTransitionTime()).isEqualTo("2030-01-02T03:09:05Z");
        assertThat(webhookConfigurationResource().get()).isNotNull();
        assertThat(events()).hasSize(1);
    }

    /**
     * A ring that was Ready with a strategy and is then asked for one nobody provides (a typo, a
     * plug-in not delivered yet) goes on with the strategy its status names, and says so; the next
     * reconcile (a restarted sharder, another replica) reads it back from the status.
     */
    @Test
    void aStrategyAskedForThatIsUnavailableLeavesTheRingOnTheOneInForceBefore() {
        RingStatusReconciler reconciler = exampleRingReconciledOnce();
        assertThat(ready(read()).getMessage()).isEqualTo("sharding with strategy \"consistent\" (the sharder's default)");

        editSpec(spec -> spec.setStrategy("jump-hsh"));
        reconciler.reconcile(KEY);

        Condition ready = ready(read());
        assertThat(ready.getStatus()).isEqualTo("False");
        assertThat(ready.getReason()).isEqualTo("StrategyUnavailable");
        assertThat(ready.getMessage()).isEqualTo("partitioning strategy \"jump-hsh\" (spec.strategy) is not available;"
                + " still sharding with strategy \"consistent\" (the strategy in force before)");
        assertThat(webhookConfigurationResource().get()).as("the webhook goes on assigning").isNotNull();
        RingView view = registry.compile(read());
        assertThat(view.strategyName()).isEqualTo("consistent");
        assertThat(view.shardRing()).isPresent();
        assertThat(view.blocker()).isEmpty();

        reconciler.reconcile(KEY);
        assertThat(ready(read()).getMessage()).as("read back from the status it wrote").contains("still sharding with"
                + " strategy \"consistent\"");

        strategies.add("jump-hsh");
        reconciler(WebhookClientSettings.defaults()).reconcile(KEY);
        assertThat(ready(read()).getStatus()).isEqualTo("True");
        assertThat(ready(read()).getMessage()).isEqualTo("sharding with strategy \"jump-hsh\" (spec.strategy)");
    }

    @Test
    void anUnavailableInterpreterMakesTheRingNotReady() {
        create(exampleRing());
        interpreters.remove(DefaultResourceInterpreter.NAME);

        reconciler(WebhookClientSettings.defaults()).reconcile(KEY);

        Condition ready = ready(read());
        assertThat(ready.getStatus()).isEqualTo("False");
        assertThat(ready.getReason()).isEqualTo("InterpreterUnavailable");
        assertThat(ready.getMessage()).contains("\"default\"", "not available");
        assertThat(webhookConfigurationResource().get()).isNull();

        interpreters.add(DefaultResourceInterpreter.NAME);
        reconciler(WebhookClientSettings.defaults()).reconcile(KEY);
        assertThat(ready(read()).getStatus()).isEqualTo("True");
    }

    @Test
    void missingDefaultStrategyIsReported() {
        defaultStrategy = "";
        create(exampleRing());

        reconciler(WebhookClientSettings.defaults()).reconcile(KEY);

        assertThat(ready(read()).getReason()).isEqualTo("StrategyUnavailable");
        assertThat(ready(read()).getMessage()).contains("no default strategy");
    }

    @Test
    void lastTransitionTimeChangesOnlyWithTheStatusValue() {
        RingStatusReconciler reconciler = exampleRingReconciledOnce();

        clock.advance(Duration.ofMinutes(1));
        membership.set(new Membership(Map.of(KEY, List.of(new ShardInfo("shard-a", ShardState.READY, 1)))));
        reconciler.reconcile(KEY);

        assertThat(read().getStatus().getShards()).isEqualTo(1);
        assertThat(ready(read()).getLastTransitionTime()).isEqualTo(START_TIME);

        clock.advance(Duration.ofMinutes(1));
        strategies.clear();
        reconciler.reconcile(KEY);
        assertThat(ready(read()).getLastTransitionTime()).isEqualTo("2030-01-02T03:06:05Z");

        clock.advance(Duration.ofMinutes(1));
        editSpec(spec -> spec.setStrategy("Invalid"));
        reconciler.reconcile(KEY);
        Condition ready = ready(read());
        assertThat(ready.getReason()).as("reason changed, status did not").isEqualTo("InvalidSpec");
        assertThat(ready.getLastTransitionTime()).isEqualTo("2030-01-02T03:06:05Z");
        assertThat(events()).extracting(Event::getReason).containsExactlyInAnyOrder("StrategyUnavailable", "InvalidSpec");
    }

    @Test
    void unchangedStatusAndConfigurationAreNotRewritten() {
        RingStatusReconciler reconciler = exampleRingReconciledOnce();
        String ringVersion = read().getMetadata().getResourceVersion();
        String configurationVersion = webhookConfiguration().getMetadata().getResourceVersion();
        clock.advance(Duration.ofHours(1));

        List<String> requests = requestsDuring(() -> reconciler.reconcile(KEY));

        assertThat(requests).containsExactly(
                "GET /apis/sharding.timebertt.dev/v1alpha1/clusterrings/example",
                "GET /apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/" + WEBHOOK_CONFIGURATION);
        assertThat(read().getMetadata().getResourceVersion()).isEqualTo(ringVersion);
        assertThat(webhookConfiguration().getMetadata().getResourceVersion()).isEqualTo(configurationVersion);
    }

    @Test
    void statusIsWrittenThroughTheStatusSubresource() {
        create(exampleRing());

        List<String> requests = requestsDuring(() -> reconciler(WebhookClientSettings.defaults()).reconcile(KEY));

        assertThat(requests).contains("PATCH /apis/sharding.timebertt.dev/v1alpha1/clusterrings/example/status");
        assertThat(requests).noneMatch(request -> request.startsWith("PUT ")
                || request.equals("PATCH /apis/sharding.timebertt.dev/v1alpha1/clusterrings/example"));
    }

    @Test
    void observedGenerationFollowsTheGeneration() {
        RingStatusReconciler reconciler = exampleRingReconciledOnce();
        editSpec(spec -> spec.getResources().add(main("batch", "jobs")));
        assertThat(read().getMetadata().getGeneration()).isEqualTo(2L);

        reconciler.reconcile(KEY);

        ClusterRing read = read();
        assertThat(read.getStatus().getObservedGeneration()).isEqualTo(2L);
        assertThat(ready(read).getObservedGeneration()).isEqualTo(2L);
        assertThat(singleWebhook(webhookConfiguration()).getRules()).hasSize(5);
    }

    @Test
    void apiErrorIsReportedAndRethrown() {
        create(exampleRing());
        server.expect().get()
                .withPath("/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/" + WEBHOOK_CONFIGURATION)
                // Not a 5xx: the client itself retries those before giving up.
                .andReturn(403, new StatusBuilder().withStatus("Failure").withCode(403).withReason("Forbidden")
                        .withMessage("mutatingwebhookconfigurations is forbidden: the sharder lacks RBAC").build())
                .once();
        RingStatusReconciler reconciler = reconciler(WebhookClientSettings.defaults());

        assertThatThrownBy(() -> reconciler.reconcile(KEY)).isInstanceOf(KubernetesClientException.class);

        Condition ready = ready(read());
        assertThat(ready.getStatus()).isEqualTo("False");
        assertThat(ready.getReason()).isEqualTo("ReconciliationFailed");
        assertThat(ready.getMessage()).isEqualTo("reconciling the ClusterRing failed (403):"
                + " mutatingwebhookconfigurations is forbidden: the sharder lacks RBAC");
        assertThat(events()).extracting(Event::getReason).containsExactly("ReconciliationFailed");

        clock.advance(Duration.ofSeconds(10));
        reconciler.reconcile(KEY);

        assertThat(ready(read()).getStatus()).isEqualTo("True");
        assertThat(ready(read()).getLastTransitionTime()).isEqualTo("2030-01-02T03:04:15Z");
    }

    @Test
    void conflictIsRetriedWithoutFlippingReady() {
        RingStatusReconciler reconciler = exampleRingReconciledOnce();
        editSpec(spec -> spec.getResources().add(main("batch", "jobs")));
        server.expect().patch()
                .withPath("/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/" + WEBHOOK_CONFIGURATION
                        + "?fieldManager=ringmaster-sharder")
                .andReturn(409, new StatusBuilder().withStatus("Failure").withCode(409).withReason("Conflict")
                        .withMessage("the object has been modified").build())
                .once();

        assertThatThrownBy(() -> reconciler.reconcile(KEY))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));

        assertThat(ready(read()).getStatus()).isEqualTo("True");
        assertThat(read().getStatus().getObservedGeneration()).as("not yet acted on").isEqualTo(1L);
        assertThat(events()).isEmpty();

        reconciler.reconcile(KEY);

        assertThat(read().getStatus().getObservedGeneration()).isEqualTo(2L);
        assertThat(singleWebhook(webhookConfiguration()).getRules()).hasSize(5);
    }

    @Test
    void deletedRingNeedsNothing() {
        List<String> requests = requestsDuring(() ->
                assertThat(reconciler(WebhookClientSettings.defaults()).reconcile(KEY)).isEqualTo(Reconciler.Result.done()));

        assertThat(requests).containsExactly("GET /apis/sharding.timebertt.dev/v1alpha1/clusterrings/example");
    }

    @Test
    void writesAreLockedToTheResourceVersionTheyWereComputedFrom() {
        create(exampleRing());
        String stale = read().getMetadata().getResourceVersion();
        editSpec(spec -> spec.setStrategy("rendezvous"));
        String patch = new LockedJsonPatch(stale).set("/status", Map.of("shards", 7))
                .toJson(client.getKubernetesSerialization());

        assertThatThrownBy(() -> ringResource().status().patch(LockedJsonPatch.statusContext(), patch))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
    }

    @Test
    void withTheWebhookSwitchedOffTheRingIsReadyAndNoConfigurationIsCreated() {
        create(exampleRing());
        reconciler(null).reconcile(KEY);
        assertThat(client.admissionRegistration().v1().mutatingWebhookConfigurations().list().getItems()).isEmpty();
        assertThat(client.resources(ClusterRing.class).withName(RING).get().getStatus().getConditions())
                .anySatisfy(condition -> assertThat(condition.getStatus()).isEqualTo("True"));
    }

    @Test
    void switchingTheWebhookOffDeletesTheRingsConfigurationButNoOneElses() {
        create(exampleRing());
        reconciler(WebhookClientSettings.defaults()).reconcile(KEY);
        var configurations = client.admissionRegistration().v1().mutatingWebhookConfigurations();
        assertThat(configurations.withName(WEBHOOK_CONFIGURATION).get()).isNotNull();
        configurations.resource(new MutatingWebhookConfigurationBuilder().withNewMetadata().withName("someone-elses").endMetadata().build())
                .create();

        reconciler(null).reconcile(KEY);
        assertThat(configurations.withName(WEBHOOK_CONFIGURATION).get()).isNull();
        assertThat(configurations.withName("someone-elses").get()).isNotNull();
    }

    private ClusterRing exampleRing() {
        return ring(RING, main("", "configmaps", new GroupResource("", "secrets")),
                main("apps", "deployments", new GroupResource("apps", "replicasets")));
    }

    private RingStatusReconciler reconciler(WebhookClientSettings settings) {
        return new RingStatusReconciler(client, ring -> {
            registry.update(inputs -> inputs.withMembership(membership.get()).withDefaultStrategy(defaultStrategy)
                    .withStrategies(strategies.stream().collect(Collectors.toMap(name -> name,
                            name -> new StrategyBinding(new RendezvousStrategy(), Map.of()))))
                    .withInterpreters(interpreters.stream().collect(Collectors.toMap(name -> name,
                            name -> new DefaultResourceInterpreter()))));
            return registry.compile(ring);
        }, Optional.ofNullable(settings), clock);
    }

    /** The example ring created and reconciled once with the default webhook settings; the reconciler for more. */
    private RingStatusReconciler exampleRingReconciledOnce() {
        create(exampleRing());
        RingStatusReconciler reconciler = reconciler(WebhookClientSettings.defaults());
        reconciler.reconcile(KEY);
        return reconciler;
    }

    /** Changes the ring's spec on the server, as a user would. */
    private void editSpec(Consumer<RingSpec> change) {
        ringResource().edit(ring -> {
            change.accept(ring.getSpec());
            return ring;
        });
    }

    private ClusterRing create(ClusterRing ring) {
        return client.resources(ClusterRing.class).resource(ring).create();
    }

    private Resource<ClusterRing> ringResource() {
        return client.resources(ClusterRing.class).withName(RING);
    }

    private ClusterRing read() {
        return ringResource().get();
    }

    private static Condition ready(ClusterRing ring) {
        return ring.getStatus().getConditions().stream().filter(c -> c.getType().equals("Ready")).findFirst()
                .orElseThrow();
    }

    private Resource<MutatingWebhookConfiguration> webhookConfigurationResource() {
        return client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(WEBHOOK_CONFIGURATION);
    }

    private MutatingWebhookConfiguration webhookConfiguration() {
        MutatingWebhookConfiguration configuration = webhookConfigurationResource().get();
        assertThat(configuration).as("webhook configuration " + WEBHOOK_CONFIGURATION).isNotNull();
        return configuration;
    }

    private List<Event> events() {
        return client.v1().events().inNamespace("default").list().getItems();
    }

    /** The parts every ring's configuration shares, whatever the client config. */
    private static MutatingWebhook singleWebhook(MutatingWebhookConfiguration configuration) {
        assertThat(configuration.getWebhooks()).hasSize(1);
        MutatingWebhook webhook = configuration.getWebhooks().get(0);
        assertThat(webhook.getName()).isEqualTo("sharder.sharding.timebertt.dev");
        assertThat(webhook.getRules())
                .extracting(RuleWithOperations::getApiGroups, RuleWithOperations::getResources,
                        RuleWithOperations::getApiVersions, RuleWithOperations::getOperations,
                        RuleWithOperations::getScope)
                .as("the example ring's resources, and any added after them")
                .startsWith(
                        rule("", "configmaps"),
                        rule("", "secrets"),
                        rule("apps", "deployments"),
                        rule("apps", "replicasets"));
        assertThat(webhook.getObjectSelector().getMatchLabels()).isNullOrEmpty();
        assertThat(webhook.getObjectSelector().getMatchExpressions())
                .extracting(LabelSelectorRequirement::getKey, LabelSelectorRequirement::getOperator,
                        LabelSelectorRequirement::getValues)
                .containsExactly(tuple(SHARD_LABEL, "DoesNotExist", List.of()));
        assertThat(webhook.getFailurePolicy()).isEqualTo("Ignore");
        assertThat(webhook.getTimeoutSeconds()).isEqualTo(5);
        assertThat(webhook.getSideEffects()).isEqualTo("None");
        assertThat(webhook.getAdmissionReviewVersions()).containsExactly("v1");
        assertThat(webhook.getMatchPolicy()).isEqualTo("Equivalent");
        assertThat(webhook.getReinvocationPolicy()).isEqualTo("Never");
        assertThat(webhook.getMatchConditions()).isNullOrEmpty();
        return webhook;
    }

    private static org.assertj.core.groups.Tuple rule(String group, String resource) {
        return tuple(List.of(group), List.of(resource), List.of("*"), List.of("CREATE", "UPDATE"), "*");
    }

    private static void assertOwnedByRing(MutatingWebhookConfiguration configuration, ClusterRing ring) {
        assertThat(configuration.getMetadata().getName()).isEqualTo(WEBHOOK_CONFIGURATION);
        assertThat(configuration.getMetadata().getLabels())
                .isEqualTo(Map.of("app.kubernetes.io/managed-by", "ringmaster-sharder"));
        assertThat(configuration.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
            assertThat(owner.getApiVersion()).isEqualTo("sharding.timebertt.dev/v1alpha1");
            assertThat(owner.getKind()).isEqualTo("ClusterRing");
            assertThat(owner.getName()).isEqualTo(RING);
            assertThat(owner.getUid()).isEqualTo(ring.getMetadata().getUid()).isNotBlank();
            assertThat(owner.getController()).isTrue();
            assertThat(owner.getBlockOwnerDeletion()).isTrue();
        });
    }

    /** Method and path of every request the action sent. */
    private List<String> requestsDuring(Runnable action) {
        try {
            while (server.takeRequest(1, TimeUnit.MILLISECONDS) != null) {
                // drop what came before
            }
            action.run();
            List<String> requests = new ArrayList<>();
            RecordedRequest request;
            while ((request = server.takeRequest(50, TimeUnit.MILLISECONDS)) != null) {
                requests.add(request.getMethod() + " " + request.getPath());
            }
            return requests;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }


    @Test
    void aRangeModeRingIsReadyWithoutStrategyAndItsWebhookConfigurationGoes() {
        RingStatusReconciler reconciler = exampleRingReconciledOnce();
        assertThat(webhookConfigurationResource().get()).isNotNull();

        // switched to range mode while the shards still serve by labels: not Ready, and new objects still labelled
        editSpec(spec -> spec.setRanges(new RingRanges("namespace", 16)));
        strategies.clear();
        reconciler.reconcile(KEY);
        assertThat(ready(read()).getReason()).isEqualTo(RingView.LABELS_STILL_SERVED);
        assertThat(webhookConfigurationResource().get()).isNotNull();

        // the shards now run in range mode, with no strategy deployed at all: Ready, and no webhook labels objects
        membership.set(new Membership(Map.of(KEY, List.of(
                new ShardInfo("shard-a", ShardState.READY, 1, false, true, ShardInfo.RangeClaim.NONE)))));
        reconciler.reconcile(KEY);
        Condition ready = ready(read());
        assertThat(ready.getStatus()).isEqualTo("True");
        assertThat(ready.getMessage()).isEqualTo("sharding by ranges of the hash of object.metadata.namespace in 16"
                + " buckets (spec.ranges), published on the shard Leases");
        assertThat(webhookConfigurationResource().get()).isNull();

        // a range-mode ring never gets one
        reconciler.reconcile(KEY);
        assertThat(webhookConfigurationResource().get()).isNull();
    }

    @Test
    void anInvalidRangeSpecMakesTheRingNotReady() {
        ClusterRing ring = exampleRing();
        ring.getSpec().setRanges(new RingRanges("uid", 100));
        create(ring);
        reconciler(WebhookClientSettings.defaults()).reconcile(KEY);
        Condition ready = ready(read());
        assertThat(ready.getStatus()).isEqualTo("False");
        assertThat(ready.getReason()).isEqualTo("InvalidSpec");
        assertThat(ready.getMessage()).contains("spec.ranges.buckets: 100 is not a power of two");
        assertThat(webhookConfigurationResource().get()).isNull();
    }
}
