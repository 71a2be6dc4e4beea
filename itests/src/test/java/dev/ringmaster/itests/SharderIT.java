package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import dev.ringmaster.itests.support.AdmissionStream;
import dev.ringmaster.itests.support.Configurations;
import dev.ringmaster.itests.support.Distribution;
import dev.ringmaster.itests.support.MockApiServer;
import dev.ringmaster.itests.support.Pinned;
import dev.ringmaster.itests.support.SharderPaxExam;
import dev.ringmaster.itests.support.Until;
import dev.ringmaster.itests.support.WebhookCertificates;
import dev.ringmaster.itests.support.WebhookClient;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import dev.ringmaster.shard.client.ShardedReconciler;
import dev.ringmaster.shard.client.Sharding;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.inject.Inject;
import org.junit.After;
import org.junit.Before;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.MethodSorters;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * The sharder in the distribution's Felix, against the fabric8 mock API server: assignment, ring
 * status, leader election and metrics; a strategy bundle swapped out and in under a running ring; a
 * configuration change applied live through the drain protocol. One framework for the class, never
 * restarted; the tests build on each other and run in name order.
 *
 * <p>Where things run: the mock server (Vert.x, not bundles) and the cluster it starts with live in
 * the test JVM ({@link MockApiServer}, started by {@link #config()}, which Pax Exam calls in the test
 * JVM before the framework boots, and stopped by {@link SharderPaxExam}). Its URL reaches
 * the framework as the system property {@value #MOCK_URL}; the tests themselves run in the probe
 * bundle, configure the sharder through Config Admin and read the cluster with a fabric8 client built
 * from the distribution's own fabric8 bundles (the probe imports them dynamically; no fabric8 class of
 * the test class path enters the framework, as implicit boot delegation is off).
 */
@RunWith(SharderPaxExam.class)
@ExamReactorStrategy(PerClass.class)
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class SharderIT {

    static final String MOCK_URL = "ringmaster.itests.mock.url";
    /** Where the test JVM wrote the webhook's certificates ({@link WebhookCertificates}). */
    static final String CERTIFICATES = "ringmaster.itests.sharder.certificates";

    // The cluster MockApiServer creates. Defined here, not there: the probe must never load MockApiServer.
    public static final String RING = "example";
    public static final String NAMESPACE = "default";
    public static final List<String> SHARDS = List.of("shard-0", "shard-1");
    /** ConfigMaps the cluster starts with, each controlling one Secret. */
    public static final int OBJECTS = 12;
    private static final String SHARD_LABEL = RingContract.shardLabel(RING);
    private static final String DRAIN_LABEL = RingContract.drainLabel(RING);

    private static final String KUBERNETES_PID = "dev.ringmaster.kubernetes";
    private static final String SHARDER_PID = "dev.ringmaster.sharder";
    private static final String OPS_HTTP_PID = "dev.ringmaster.ops.http";
    private static final String OPS_HTTP_PORT = "dev.ringmaster.ops.http.port";
    private static final String WEBHOOK_PID = "dev.ringmaster.webhook";
    private static final String WEBHOOK_PORT = "dev.ringmaster.webhook.port";
    private static final String IDENTITY = "sharder-itest";
    private static final String ELECTION_NAMESPACE = "sharding-system";
    private static final String ELECTION_LEASE = "sharder";
    private static final String RENDEZVOUS = "rendezvous";
    private static final String CONSISTENT_HASH = "consistent-hash";
    private static final String RENDEZVOUS_BSN = "dev.ringmaster.ring.rendezvous";
    private static final String NAMESPACE_INTERPRETER = "namespace";
    private static final String NAMESPACE_INTERPRETER_BSN = "dev.ringmaster.plugins.namespaceinterpreter";
    private static final String POD_READINESS = "pod-readiness";
    private static final String CONSISTENT_PID = "dev.ringmaster.ring.consistent";
    private static final String CONSISTENT_HASH_7_TOKENS = "consistent-hash, 7 tokens per shard";
    /**
     * Where the strategies put the ConfigMaps of namespace default over shard-0 and shard-1, pinned:
     * computed by {@code testing/placement-vectors/placements.py sharder-it}, not by the strategies
     * under test.
     */
    private static final Map<String, Map<String, String>> PINNED = Map.of(
            RENDEZVOUS, Pinned.placements("shard-0: cm-0 cm-1 cm-3 cm-4 cm-5 cm-6 cm-10 cm-11 late-0 late-1",
                    "shard-1: cm-2 cm-7 cm-8 cm-9 fresh"),
            CONSISTENT_HASH, Pinned.placements("shard-0: cm-0 cm-1 cm-2 cm-3 cm-4 cm-8 cm-10 cm-11 late-1",
                    "shard-1: cm-5 cm-6 cm-7 cm-9 late-0 fresh"),
            CONSISTENT_HASH_7_TOKENS, Pinned.placements("shard-0: cm-2 cm-4 cm-7 cm-9 cm-10 late-0 late-1 fresh",
                    "shard-1: cm-0 cm-1 cm-3 cm-5 cm-6 cm-8 cm-11"));
    /** Where rendezvous puts the namespace interpreter's key {@code default} (the same script). */
    private static final String RENDEZVOUS_SHARD_OF_NAMESPACE_DEFAULT = "shard-1";
    private static final String TOKENS_PER_SHARD = "tokensPerShard";

    private static final ResourceDefinitionContext CLUSTER_RINGS = new ResourceDefinitionContext.Builder()
            .withGroup(RingContract.API_GROUP).withVersion(RingContract.API_VERSION)
            .withKind(RingContract.CLUSTER_RING_KIND).withPlural("clusterrings").withNamespaced(false).build();

    /** Longest wait for the sharder to act; the whole class takes well under a minute. */
    private static final Duration SOON = Duration.ofSeconds(30);
    /** How long an object must stay unassigned while the ring's strategy is missing. */
    private static final Duration UNASSIGNED_FOR = Duration.ofSeconds(3);

    @Inject
    private BundleContext context;

    private KubernetesClient client;
    private AdmissionStream admissions;

    /**
     * Runs in the test JVM. The options of {@link StrategyHotSwapIT} (the distribution's boot/ and
     * bundle/ jars, no implicit boot delegation, ...) with a working directory of this class, and the
     * mock server's URL.
     */
    @org.ops4j.pax.exam.Configuration
    public Option[] config() {
        List<Option> options = new ArrayList<>(StrategyHotSwapIT.distributionOptions(getClass()));
        options.add(systemProperty(MOCK_URL).value(MockApiServer.start()));
        // the shard library as a user's bundle would have it, beside the distribution's bundles
        options.add(bundle(Distribution.shardClientBundle().toUri().toString()).startLevel(3));
        options.add(systemProperty(CERTIFICATES).value(
                WebhookCertificates.write(Distribution.work("sharder-certificates")).toString()));
        return options.toArray(Option[]::new);
    }

    @Before
    public void sharderRunsWithRendezvousAsDefault() throws IOException {
        String url = System.getProperty(MOCK_URL);
        assertNotNull("the test JVM passes the mock server's URL as " + MOCK_URL, url);
        client = newClient(url);
        configure(KUBERNETES_PID, Map.of("masterUrl", url, "trustCerts", Boolean.TRUE));
        configure(OPS_HTTP_PID, Map.of("host", "127.0.0.1", "port", 0));
        configureSharder(RENDEZVOUS, "service");
        admissions = AdmissionStream.start(webhookClient(), webhookPort(), RingContract.webhookPath(RING));
    }

    /**
     * Whatever a test did — strategy bundles swapped, the configuration changed, an interpreter or
     * lease detector bundle stopped, started or selected — the webhook answered every request.
     */
    @After
    public void theWebhookAnsweredEveryAdmissionRequest() throws InterruptedException {
        admissions.close();
        assertEquals("failed admission requests", List.of(), admissions.failures());
        assertTrue("admission requests were sent: " + admissions.answered(), admissions.answered() > 0);
    }

    @After
    public void closeClient() {
        if (client != null) {
            client.close();
        }
    }

    /** The webhook on a free loopback port with the test certificates, once it listens. */
    private int webhookPort() throws IOException {
        configure(WEBHOOK_PID, Map.of("host", "127.0.0.1", "port", 0,
                "tlsDir", certificates().resolve(WebhookCertificates.FIRST).toString()));
        return Until.value(SOON, "the webhook to listen", () -> {
            try {
                return context.getServiceReferences((String) null, "(" + WEBHOOK_PORT + "=*)") == null ? Optional.empty()
                        : Arrays.stream(context.getServiceReferences((String) null, "(" + WEBHOOK_PORT + "=*)"))
                                .map(reference -> (Integer) reference.getProperty(WEBHOOK_PORT)).findFirst();
            } catch (InvalidSyntaxException e) {
                throw new AssertionError(e);
            }
        });
    }

    private static HttpClient webhookClient() {
        return WebhookClient.trusting(certificates().resolve(WebhookCertificates.CA));
    }

    private static Path certificates() {
        String directory = System.getProperty(CERTIFICATES);
        assertNotNull("the test JVM passes the certificates' directory as " + CERTIFICATES, directory);
        return Path.of(directory);
    }

    /** Every object assigned, the ring reported, the leader known, the assignments counted. */
    @Test
    public void a_assignsEveryObjectAndReportsTheRing() throws Exception {
        assertEquals("the contract's test vector", "shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example",
                SHARD_LABEL);
        RingStatus ready = awaitRing("Ready=True with 2 available shards",
                status -> status.ready() && Integer.valueOf(2).equals(status.availableShards()));
        assertEquals(Integer.valueOf(2), ready.shards());
        assertTrue(ready.toString(), ready.message().contains("\"" + RENDEZVOUS + "\""));

        Map<String, String> assigned = awaitEveryObjectOnItsShard(RENDEZVOUS);
        assertEquals("both shards got objects: " + assigned, Set.copyOf(SHARDS), Set.copyOf(assigned.values()));

        Lease leader = client.leases().inNamespace(ELECTION_NAMESPACE).withName(ELECTION_LEASE).get();
        assertNotNull("the leader election lease " + ELECTION_NAMESPACE + "/" + ELECTION_LEASE, leader);
        assertEquals(IDENTITY, leader.getSpec().getHolderIdentity());

        for (String shard : SHARDS) {
            Until.holds(SOON, "shard lease " + shard + " labelled ready", () -> "ready".equals(
                    labels(client.leases().inNamespace(NAMESPACE).withName(shard).get()).get(RingContract.STATE_LABEL)));
        }

        MutatingWebhookConfiguration webhook = client.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName(RingContract.webhookConfigurationName(RING)).get();
        assertNotNull("webhookMode=service: the ring's MutatingWebhookConfiguration", webhook);
        MutatingWebhook hook = webhook.getWebhooks().get(0);
        assertEquals(RingContract.WEBHOOK_NAME, hook.getName());
        assertEquals(RingContract.webhookPath(RING), hook.getClientConfig().getService().getPath());

        int objects = assigned.size() * 2; // every ConfigMap and its Secret
        Until.holds(SOON, "controller.sharding.assignments >= " + objects, () -> meterCount(
                "controller.sharding.assignments") >= objects);
        String scrape = scrapeMetrics();
        assertTrue("/metrics serves controller_sharding_assignments_total of the ring",
                scrape.lines().anyMatch(line -> line.startsWith("controller_sharding_assignments_total{")
                        && line.contains("clusterring=\"" + RING + "\"")));
    }

    /**
     * The ring's strategy bundle uninstalled under the running sharder stops assignment (the
     * ring says why), and its reinstallation from the distribution resumes it. No framework restart.
     */
    @Test
    public void b_aRingWaitsForItsStrategyBundleAndResumesWhenItIsBack() throws Exception {
        awaitRing("Ready=True", RingStatus::ready);
        Bundle rendezvous = Distribution.installed(context, RENDEZVOUS_BSN).orElseThrow();
        try {
            rendezvous.stop();
            rendezvous.uninstall();
            RingStatus unavailable = awaitRing("Ready=False, StrategyUnavailable",
                    status -> !status.ready() && "StrategyUnavailable".equals(status.reason()));
            assertTrue(unavailable.toString(), unavailable.message().contains("\"" + RENDEZVOUS + "\""));

            Map<String, Map<String, String>> assigned = labelsOfAllObjects();
            createObject("late-0");
            Until.stays(UNASSIGNED_FOR, "late-0 and its Secret unassigned, and nothing else moved, while the"
                    + " strategy is missing", () -> !labels(configMap("late-0")).containsKey(SHARD_LABEL)
                            && !labels(secret("checksums-late-0")).containsKey(SHARD_LABEL)
                            && labelsOfAllObjects().equals(withLate0Unlabelled(assigned)));

            Bundle reinstalled = Distribution.installRendezvous(context);
            assertNotEquals(rendezvous.getBundleId(), reinstalled.getBundleId());
            awaitRing("Ready=True again", status -> status.ready() && status.message().contains("\"" + RENDEZVOUS + "\""));
            awaitEveryObjectOnItsShard(RENDEZVOUS);
            assertTrue(labels(configMap("late-0")).containsKey(SHARD_LABEL));
        } finally {
            if (Distribution.installed(context, RENDEZVOUS_BSN).isEmpty()) {
                Distribution.installRendezvous(context); // leave the framework as the distribution boots it
            }
        }
    }

    /**
     * A new default strategy, applied live through Config Admin (with the webhook switched off
     * in the same update), rebalances the ring through the drain protocol: main objects whose shard
     * changes are drained on their live shard, controlled ones move at once; once the shards let go
     * (done here, as shard-client does), everything lands where consistent-hash puts it, and new
     * objects are assigned with it.
     */
    @Test
    public void c_aNewDefaultStrategyRebalancesThroughTheDrainProtocol() throws Exception {
        awaitRing("Ready=True with rendezvous", status -> status.ready() && status.message().contains("\"" + RENDEZVOUS + "\""));
        Map<String, String> before = awaitEveryObjectOnItsShard(RENDEZVOUS);
        Map<String, String> after = desiredShards(CONSISTENT_HASH, before.keySet());
        Set<String> moving = before.keySet().stream().filter(name -> !before.get(name).equals(after.get(name)))
                .collect(Collectors.toCollection(TreeSet::new));
        assertFalse("some ConfigMap has another shard under consistent-hash: " + before + " vs " + after,
                moving.isEmpty());
        double drainsBefore = meterCount("controller.sharding.drains");

        // one live update: another default strategy, and the webhook off (the unassigned watch assigns)
        configureSharder(CONSISTENT_HASH, "off");
        awaitRing("Ready=True with consistent-hash",
                status -> status.ready() && status.message().contains("\"" + CONSISTENT_HASH + "\""));
        Until.holds(SOON, () -> "drain labels on exactly " + moving + ", got " + drained(), () -> drained().equals(moving));
        for (String name : moving) {
            assertEquals(name + " stays with its old shard until the shard lets go", before.get(name),
                    labels(configMap(name)).get(SHARD_LABEL));
            Until.holds(SOON, "controlled Secret of " + name + " on its new shard at once",
                    () -> after.get(name).equals(labels(secret("checksums-" + name)).get(SHARD_LABEL)));
        }
        Until.holds(SOON, "controller.sharding.drains counted " + moving.size() + " more",
                () -> meterCount("controller.sharding.drains") >= drainsBefore + moving.size());

        moving.forEach(this::letGo);
        Map<String, String> rebalanced = awaitEveryObjectOnItsShard(CONSISTENT_HASH);
        assertEquals(after, rebalanced);
        assertEquals(Set.of(), drained());

        createObject("late-1"); // assigned by the new term's unassigned watch, with consistent-hash
        Map<String, String> withLate1 = awaitEveryObjectOnItsShard(CONSISTENT_HASH);
        assertTrue(withLate1.toString(), withLate1.containsKey("late-1"));
        awaitRing("still Ready=True with 2 available shards",
                status -> status.ready() && Integer.valueOf(2).equals(status.availableShards()));
    }

    /**
     * A resource interpreter plug-in selected for one ring resource ({@code spec.resources[].interpreter}):
     * while its bundle is stopped the ring is Ready=False/InterpreterUnavailable and nothing moves;
     * once it runs, every ConfigMap of the namespace and its Secret move to the shard of the namespace.
     */
    @Test
    public void d_aResourceInterpreterBundleIsSelectedPerRingResource() throws Exception {
        settle(RENDEZVOUS);
        Bundle plugin = Distribution.installed(context, NAMESPACE_INTERPRETER_BSN).orElseThrow();
        try {
            plugin.stop();
            Map<String, Map<String, String>> before = labelsOfAllObjects();
            setInterpreterOfConfigMaps(NAMESPACE_INTERPRETER);
            awaitRing("Ready=False/InterpreterUnavailable",
                    status -> !status.ready() && "InterpreterUnavailable".equals(status.reason()));
            Until.stays(UNASSIGNED_FOR, "nothing moves while the ring's interpreter is missing",
                    () -> labelsOfAllObjects().equals(before));

            plugin.start();
            awaitRing("Ready=True with the interpreter back", RingStatus::ready);
            String shardOfNamespace = RENDEZVOUS_SHARD_OF_NAMESPACE_DEFAULT;
            Map<String, String> placed = awaitEveryObjectOn("the shard of namespace " + NAMESPACE,
                    names -> names.stream().collect(Collectors.toMap(name -> name, name -> shardOfNamespace)), true);
            assertEquals(Set.of(shardOfNamespace), Set.copyOf(placed.values()));
        } finally {
            if (plugin.getState() != Bundle.ACTIVE) {
                plugin.start();
            }
            setInterpreterOfConfigMaps(null);
            settle(RENDEZVOUS);
        }
    }

    /**
     * The pod-readiness lease detector replaces the default one by configuration: a shard whose
     * Lease is renewed but whose Pod is not Ready is judged dead at once and loses its objects; as
     * the process still renews, it may still reconcile, so they are drained from it (and the test lets
     * go of them as the shard would); its Pod turning Ready brings it back.
     */
    @Test
    public void e_aLeaseDetectorBundleReplacesTheDefaultAndJudgesEveryShardAgain() throws Exception {
        settle(RENDEZVOUS);
        pod(SHARDS.get(0), true);
        pod(SHARDS.get(1), false);
        try {
            configureSharder(RENDEZVOUS, "service", POD_READINESS);
            awaitRing("one available shard", status -> status.ready() && Integer.valueOf(1).equals(status.availableShards()));
            Until.holds(SOON, "shard-1's Lease judged dead", () -> "dead".equals(labels(
                    client.leases().inNamespace(NAMESPACE).withName(SHARDS.get(1)).get()).get(RingContract.STATE_LABEL)));
            awaitEveryObjectOn("shard-0 alone", names -> names.stream()
                    .collect(Collectors.toMap(name -> name, name -> SHARDS.get(0))), true);

            pod(SHARDS.get(1), true);
            awaitRing("both shards available again",
                    status -> status.ready() && Integer.valueOf(2).equals(status.availableShards()));
            settle(RENDEZVOUS);
        } finally {
            configureSharder(RENDEZVOUS, "service");
            client.pods().inNamespace(NAMESPACE).delete();
        }
    }

    /** Every answer of the sharder's webhook (docs/design.md section 5), as the API server gets it over HTTPS. */
    @Test
    public void f_theSharderWebhookAnswersEveryCaseOverHttps() throws Exception {
        settle(RENDEZVOUS);
        HttpClient https = webhookClient();
        int port = webhookPort();
        String path = RingContract.webhookPath(RING);
        String owner = "cm-0";
        String ownerShard = desiredShards(RENDEZVOUS, List.of(owner)).get(owner);
        String escapedLabel = SHARD_LABEL.replace("~", "~0").replace("/", "~1");
        Until.holds(SOON, "the webhook assigns", () -> assigns(https, port, path));

        String fresh = admit(https, port, path, "configmaps", "ConfigMap", "{\"name\":\"fresh\"}", false);
        String freshShard = desiredShards(RENDEZVOUS, List.of("fresh")).get("fresh");
        assertEquals(fresh, "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"" + SHARD_LABEL + "\":\""
                + freshShard + "\"}}]", patchOf(fresh));

        String labelled = admit(https, port, path, "configmaps", "ConfigMap",
                "{\"name\":\"fresh\",\"labels\":{\"app\":\"demo\"}}", false);
        assertEquals(labelled, "[{\"op\":\"add\",\"path\":\"/metadata/labels/" + escapedLabel + "\",\"value\":\""
                + freshShard + "\"}]", patchOf(labelled));

        String assigned = admit(https, port, path, "configmaps", "ConfigMap",
                "{\"name\":\"fresh\",\"labels\":{\"" + SHARD_LABEL + "\":\"shard-1\"}}", false);
        assertTrue(assigned, assigned.contains("\"allowed\":true") && !assigned.contains("\"patch\""));

        String controlled = admit(https, port, path, "secrets", "Secret", "{\"name\":\"checksums-" + owner
                + "\",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"" + owner
                + "\",\"uid\":\"u\",\"controller\":true}]}", false);
        assertTrue(controlled, patchOf(controlled).contains("\"" + ownerShard + "\""));

        String orphan = admit(https, port, path, "secrets", "Secret", "{\"name\":\"loose\"}", false);
        assertTrue(orphan, orphan.contains("\"allowed\":true") && !orphan.contains("\"patch\""));

        String generated = admit(https, port, path, "configmaps", "ConfigMap", "{\"generateName\":\"cm-\"}", false);
        assertTrue(generated, generated.contains("\"allowed\":false") && generated.contains("\"code\":400")
                && generated.contains("generateName"));

        String outside = admit(https, port, path, "pods", "Pod", "{\"name\":\"p\"}", false);
        assertTrue(outside, outside.contains("\"allowed\":true") && outside.contains("not a resource of ClusterRing"));

        String unknown = admit(https, port, RingContract.webhookPath("nope"), "configmaps", "ConfigMap",
                "{\"name\":\"fresh\"}", false);
        assertTrue(unknown, unknown.contains("\"allowed\":true") && unknown.contains("ClusterRing nope does not exist"));

        String dryRun = admit(https, port, path, "configmaps", "ConfigMap", "{\"name\":\"fresh\"}", true);
        assertEquals(dryRun, patchOf(fresh), patchOf(dryRun));
    }

    /**
     * shard-client as a bundle in the same framework: a shard of a second ring (the ConfigMaps of one
     * namespace) built with {@link Sharding} gets every object of that ring from the sharder,
     * reconciles them, hands a drained object back and gets it again, and releases its Lease on close.
     */
    @Test
    public void h_theShardClientBundleRunsAShardOfItsOwnRing() throws Exception {
        String ring = "bundled";
        String namespace = "bundled";
        String shard = "bundled-0";
        String shardLabel = RingContract.shardLabel(ring);
        String drainLabel = RingContract.drainLabel(ring);
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace)
                .addToLabels("kubernetes.io/metadata.name", namespace).endMetadata().build()).create();
        GenericKubernetesResource clusterRing = new GenericKubernetesResource();
        clusterRing.setApiVersion(RingContract.API_GROUP + "/" + RingContract.API_VERSION);
        clusterRing.setKind(RingContract.CLUSTER_RING_KIND);
        clusterRing.setMetadata(new ObjectMetaBuilder().withName(ring).build());
        clusterRing.setAdditionalProperty("spec", Map.of(
                "namespaceSelector", Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", namespace)),
                "resources", List.of(Map.of("group", "", "resource", "configmaps"))));
        client.genericKubernetesResources(CLUSTER_RINGS).resource(clusterRing).create();
        List<String> names = List.of("b-0", "b-1", "b-2");
        names.forEach(name -> client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).endMetadata().build()).create());

        Map<String, Integer> reconciles = new ConcurrentHashMap<>();
        Sharding sharding = Sharding.forRing(ring).shard(shard).namespace(namespace).client(client).build();
        SharedIndexInformer<ConfigMap> informer = sharding.informers()
                .runnableInformer(client.configMaps().inNamespace(namespace));
        ShardedReconciler<ConfigMap> reconciler = ShardedReconciler.builder(sharding, informer)
                .reconciler(configMap -> reconciles.merge(configMap.getMetadata().getName(), 1, Integer::sum))
                .build();
        try {
            reconciler.start();
            informer.start();
            sharding.lease().start();
            Until.holds(SOON, () -> "every ConfigMap of ring " + ring + " assigned to " + shard + " and reconciled: "
                    + reconciles, () -> reconciles.keySet().containsAll(names) && names.stream()
                    .allMatch(name -> shard.equals(labels(configMap(namespace, name)).get(shardLabel))));
            assertEquals("the shard's informer caches only its own objects", new TreeSet<>(names),
                    informer.getStore().list().stream().map(configMap -> configMap.getMetadata().getName())
                            .collect(Collectors.toCollection(TreeSet::new)));

            int before = reconciles.get("b-1");
            client.configMaps().inNamespace(namespace).withName("b-1").edit(configMap -> new ConfigMapBuilder(configMap)
                    .editMetadata().addToLabels(drainLabel, "true").endMetadata().build());
            Until.holds(SOON, () -> "b-1 handed back (drain acknowledged), assigned again and reconciled: "
                    + configMap(namespace, "b-1").getMetadata(), () -> {
                        Map<String, String> labels = labels(configMap(namespace, "b-1"));
                        return !labels.containsKey(drainLabel) && shard.equals(labels.get(shardLabel))
                                && reconciles.get("b-1") > before;
                    });
        } finally {
            reconciler.close();
            informer.close();
            sharding.close();
        }
        Lease released = client.leases().inNamespace(namespace).withName(shard).get();
        assertTrue("the Lease is released on close: " + released.getSpec(),
                released.getSpec().getHolderIdentity() == null || released.getSpec().getHolderIdentity().isEmpty());
        assertEquals("the Lease carries the ring label", ring, labels(released).get(RingContract.RING_LABEL));
        client.configMaps().inNamespace(namespace).delete();
        client.genericKubernetesResources(CLUSTER_RINGS).withName(ring).delete();
    }

    /**
     * A limit changed live through Config Admin: with {@code moveBudget = 1} a new default strategy
     * drains one ConfigMap at a time, each after the last was let go; back at the default budget, the
     * rest are drained together.
     */
    @Test
    public void g_aMoveBudgetChangedLiveLimitsTheDrainsInFlight() throws Exception {
        Map<String, String> before = settle(RENDEZVOUS);
        Map<String, String> after = desiredShards(CONSISTENT_HASH, before.keySet());
        Set<String> moving = before.keySet().stream().filter(name -> !before.get(name).equals(after.get(name)))
                .collect(Collectors.toCollection(TreeSet::new));
        assertTrue("at least three ConfigMaps change shard: " + moving, moving.size() >= 3);

        configureSharder(CONSISTENT_HASH, "off", "default", Map.of("moveBudget", 1));
        Set<String> rest = new TreeSet<>(moving);
        for (int round = 0; round < 2; round++) {
            Until.holds(SOON, () -> "one ConfigMap in drain, got " + drained(), () -> drained().size() == 1);
            Until.stays(UNASSIGNED_FOR, "never more than one ConfigMap in drain", () -> drained().size() == 1);
            String handedBack = drained().iterator().next();
            letGo(handedBack);
            rest.remove(handedBack);
        }

        configureSharder(CONSISTENT_HASH, "off", "default", Map.of("moveBudget", 5000));
        Until.holds(SOON, () -> "the other " + rest + " drained together, got " + drained(),
                () -> drained().equals(rest));
        assertEquals(after, settle(CONSISTENT_HASH));
    }

    /**
     * consistent-hash's {@code tokensPerShard} changed live through Config Admin: the ring that uses it
     * is rebalanced, through the drain protocol, to where 7 tokens per shard put its objects; back at
     * 100, back again.
     */
    @Test
    public void i_tokensPerShardChangedLiveRebalancesTheRing() throws Exception {
        configureSharder(CONSISTENT_HASH, "off");
        Map<String, String> withDefaultTokens = settle(CONSISTENT_HASH);
        try {
            configure(CONSISTENT_PID, Map.of(TOKENS_PER_SHARD, 7));
            awaitTokensPerShard(7);
            Map<String, String> expected = desiredShards(CONSISTENT_HASH_7_TOKENS, withDefaultTokens.keySet());
            assertNotEquals("7 tokens per shard place some object elsewhere", withDefaultTokens, expected);
            assertEquals(expected, settle(CONSISTENT_HASH_7_TOKENS));
        } finally {
            configure(CONSISTENT_PID, Map.of(TOKENS_PER_SHARD, 100));
            awaitTokensPerShard(100);
        }
        assertEquals(withDefaultTokens, settle(CONSISTENT_HASH));
    }

    /**
     * A configuration change replaces the replica behind the webhook (SharderComponent): the webhook goes on
     * assigning every new object meanwhile, from the replaced replica's ring views until the new one has
     * read the rings and judged the shards.
     */
    @Test
    public void j_theWebhookGoesOnAssigningWhileAConfigurationChangeReplacesTheReplica() throws Exception {
        settle(RENDEZVOUS);
        HttpClient https = webhookClient();
        int port = webhookPort();
        Until.holds(SOON, "the webhook assigns", () -> assigns(https, port, RingContract.webhookPath(RING)));
        int from = admissions.answered();
        long replica = ringCommandsServiceId();

        configureSharder(RENDEZVOUS, "service", "default", Map.of("moveBudget", 4999));
        Until.holds(SOON, "a new replica (its ring commands registered anew)", () -> ringCommandsServiceId() > replica);
        int replaced = admissions.answered();
        Until.holds(SOON, "40 more admission requests answered", () -> admissions.answered() >= replaced + 40);
        assertEquals("requests answered without a shard from before the change to 40 after the new replica came",
                List.of(), admissions.unassignedFrom(from));
        configureSharder(RENDEZVOUS, "service");
    }

    /** The service id of the {@code ring:*} shell commands, which each replica registers for itself; -1 if none. */
    private long ringCommandsServiceId() {
        return references(null, "(osgi.command.scope=ring)").stream()
                .mapToLong(reference -> (Long) reference.getProperty(Constants.SERVICE_ID)).max().orElse(-1);
    }

    private void awaitTokensPerShard(int tokens) {
        Until.holds(SOON, "consistent-hash to publish " + TOKENS_PER_SHARD + "=" + tokens, () -> Integer.valueOf(tokens)
                .equals(awaitService(PartitioningStrategy.class, "(" + PartitioningStrategy.NAME + "=" + CONSISTENT_HASH + ")")
                        .getProperty(TOKENS_PER_SHARD)));
    }

    /** What a shard does when it sees the drain label: an optimistic update removing both labels. */
    private void letGo(String name) {
        Until.holds(SOON, name + " let go by its shard", () -> {
            client.configMaps().resource(new ConfigMapBuilder(configMap(name)).editMetadata()
                    .removeFromLabels(SHARD_LABEL).removeFromLabels(DRAIN_LABEL).endMetadata().build()).update();
            return true; // a conflict throws: read again and retry
        });
    }

    private ConfigMap configMap(String namespace, String name) {
        return client.configMaps().inNamespace(namespace).withName(name).get();
    }

    /** One AdmissionReview (CREATE in the test namespace) through the webhook; the 200 answer's body. */
    private static String admit(HttpClient https, int port, String path, String resource, String kind, String metadata,
            boolean dryRun) throws IOException {
        String review = """
                {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"f-%s",
                 "kind":{"group":"","version":"v1","kind":"%s"},
                 "resource":{"group":"","version":"v1","resource":"%s"},
                 "namespace":"%s","operation":"CREATE","userInfo":{"username":"tester"},"dryRun":%s,
                 "object":{"apiVersion":"v1","kind":"%s","metadata":%s}}}
                """.formatted(kind, kind, resource, NAMESPACE, dryRun, kind, metadata);
        HttpResponse<String> response = WebhookClient.post(https, port, path, review);
        assertEquals(response.body(), 200, response.statusCode());
        assertTrue(response.body(), response.body().contains("\"uid\":\"f-" + kind + "\""));
        return response.body();
    }

    /** The decoded JSONPatch of an AdmissionReview answer. */
    private static boolean assigns(HttpClient https, int port, String path) {
        try {
            return admit(https, port, path, "configmaps", "ConfigMap", "{\"name\":\"probe\"}", true).contains("\"patch\"");
        } catch (IOException e) {
            return false;
        }
    }

    private static String patchOf(String answer) {
        Matcher patch = Pattern.compile("\"patch\":\"([A-Za-z0-9+/=]+)\"").matcher(answer);
        assertTrue(answer, patch.find());
        return new String(Base64.getDecoder().decode(patch.group(1)), StandardCharsets.UTF_8);
    }

    /** Waits until every object is where the strategy puts it, letting go of drained ones as shards do. */
    private Map<String, String> settle(String strategy) {
        return awaitEveryObjectOn("its " + strategy + " shard", names -> desiredShards(strategy, names), true);
    }

    /**
     * Waits until every ConfigMap of the namespace (at least the {@value #OBJECTS} it started with)
     * carries the desired shard and no drain label, and its Secret the same shard; with
     * {@code letGo}, meanwhile acknowledges every drain as a shard does.
     */
    private Map<String, String> awaitEveryObjectOn(String what, Function<Set<String>, Map<String, String>> desiredByName,
            boolean letGo) {
        AtomicReference<Map<String, String>> found = new AtomicReference<>();
        AtomicReference<String> problem = new AtomicReference<>();
        Until.holds(SOON, () -> "every object on " + what + "; last problem: " + problem.get(), () -> {
            for (ConfigMap draining : !letGo ? List.<ConfigMap>of()
                    : client.configMaps().inNamespace(NAMESPACE).withLabel(DRAIN_LABEL).list().getItems()) {
                try {
                    client.configMaps().resource(new ConfigMapBuilder(draining).editMetadata()
                            .removeFromLabels(SHARD_LABEL).removeFromLabels(DRAIN_LABEL).endMetadata().build()).update();
                } catch (KubernetesClientException e) {
                    // changed meanwhile: the next round reads it again
                }
            }
            Map<String, ConfigMap> configMaps = client.configMaps().inNamespace(NAMESPACE).list().getItems().stream()
                    .collect(Collectors.toMap(cm -> cm.getMetadata().getName(), cm -> cm, (a, b) -> a, TreeMap::new));
            Map<String, String> desired = desiredByName.apply(configMaps.keySet());
            Map<String, String> shards = new TreeMap<>();
            for (ConfigMap configMap : configMaps.values()) {
                String name = configMap.getMetadata().getName();
                Map<String, String> labels = labels(configMap);
                if (!desired.get(name).equals(labels.get(SHARD_LABEL)) || labels.containsKey(DRAIN_LABEL)) {
                    problem.set("ConfigMap " + name + " has " + labels + ", wants " + desired.get(name));
                    return false;
                }
                shards.put(name, labels.get(SHARD_LABEL));
            }
            for (Secret secret : client.secrets().inNamespace(NAMESPACE).list().getItems()) {
                String owner = controller(secret).map(OwnerReference::getName).orElse(null);
                if (owner != null && !Objects.equals(shards.get(owner), labels(secret).get(SHARD_LABEL))) {
                    problem.set("Secret " + secret.getMetadata().getName() + " has " + labels(secret)
                            + ", its owner " + shards.get(owner));
                    return false;
                }
            }
            if (shards.size() < OBJECTS) {
                problem.set("only " + shards.keySet());
                return false;
            }
            found.set(shards);
            return true;
        });
        return found.get();
    }

    /** Edits the ring's spec; again on a 409, as the sharder's status writes change the ring's resourceVersion. */
    private void setInterpreterOfConfigMaps(String interpreter) {
        for (int attempt = 1; ; attempt++) {
            try {
                client.genericKubernetesResources(CLUSTER_RINGS).withName(RING)
                        .edit(ring -> withInterpreterOfConfigMaps(ring, interpreter));
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 5) {
                    throw e;
                }
            }
        }
    }

    private static GenericKubernetesResource withInterpreterOfConfigMaps(GenericKubernetesResource ring, String interpreter) {
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) ring.getAdditionalProperties().get("spec");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> resources = (List<Map<String, Object>>) spec.get("resources");
        List<Map<String, Object>> edited = new ArrayList<>();
        for (Map<String, Object> resource : resources) {
            Map<String, Object> copy = new LinkedHashMap<>(resource);
            if ("configmaps".equals(copy.get("resource"))) {
                if (interpreter == null) {
                    copy.remove("interpreter");
                } else {
                    copy.put("interpreter", interpreter);
                }
            }
            edited.add(copy);
        }
        Map<String, Object> newSpec = new LinkedHashMap<>(spec);
        newSpec.put("resources", edited);
        ring.getAdditionalProperties().put("spec", newSpec);
        // the CRUD mock does not bump generation; a real API server would for a spec change
        ring.getMetadata().setGeneration(Objects.requireNonNullElse(ring.getMetadata().getGeneration(), 1L) + 1);
        return ring;
    }

    /** A shard's Pod, Ready or not, as the kubelet would report it. */
    private void pod(String name, boolean ready) {
        Pod pod = new PodBuilder().withNewMetadata().withNamespace(NAMESPACE).withName(name).endMetadata()
                .withNewSpec().addNewContainer().withName("shard").withImage("example").endContainer().endSpec()
                .withNewStatus().withPhase("Running").addNewCondition().withType("Ready")
                .withStatus(ready ? "True" : "False").endCondition().endStatus()
                .build();
        client.pods().inNamespace(NAMESPACE).resource(pod).createOr(existing -> existing.update());
    }

    // --- the cluster, seen through the distribution's fabric8 bundles -------------------------------

    private static KubernetesClient newClient(String url) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(url).withTrustCerts(true)
                .withDisableHostnameVerification(true).build();
        // named, not found through ServiceLoader (which OSGi class loading can miss)
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new JdkHttpClientFactory()).build();
    }

    /**
     * Waits until every ConfigMap of the namespace carries the shard label the given strategy picks
     * for it (over both shards), no drain label, and its Secret carries the same; answers the
     * ConfigMaps' shards by name. Drains are left alone: the test decides when shards let go.
     */
    private Map<String, String> awaitEveryObjectOnItsShard(String strategy) {
        return awaitEveryObjectOn("its " + strategy + " shard", names -> desiredShards(strategy, names), false);
    }

    /** Where the named pinned placement puts each ConfigMap of the namespace, by name. */
    private static Map<String, String> desiredShards(String placement, Collection<String> configMaps) {
        Map<String, String> shardOfName = PINNED.get(placement);
        return configMaps.stream().collect(Collectors.toMap(name -> name, name -> Optional.ofNullable(shardOfName.get(name))
                .orElseThrow(() -> new AssertionError(name + " has no pinned placement in " + placement))));
    }

    /** A ConfigMap and the Secret it controls, as a controller would create them. */
    private void createObject(String name) {
        ConfigMap owner = client.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder()
                .withNewMetadata().withNamespace(NAMESPACE).withName(name).endMetadata().build()).create();
        client.secrets().inNamespace(NAMESPACE).resource(new SecretBuilder().withNewMetadata()
                .withNamespace(NAMESPACE).withName("checksums-" + name)
                .addNewOwnerReference().withApiVersion("v1").withKind("ConfigMap").withName(name)
                .withUid(owner.getMetadata().getUid()).withController(true).endOwnerReference()
                .endMetadata().build()).create();
    }

    /** The labels of every ConfigMap and Secret of the namespace, by kind and name. */
    private Map<String, Map<String, String>> labelsOfAllObjects() {
        Map<String, Map<String, String>> labels = new TreeMap<>();
        client.configMaps().inNamespace(NAMESPACE).list().getItems()
                .forEach(object -> labels.put("ConfigMap " + object.getMetadata().getName(), labels(object)));
        client.secrets().inNamespace(NAMESPACE).list().getItems()
                .forEach(object -> labels.put("Secret " + object.getMetadata().getName(), labels(object)));
        return labels;
    }

    private static Map<String, Map<String, String>> withLate0Unlabelled(Map<String, Map<String, String>> labels) {
        Map<String, Map<String, String>> expected = new TreeMap<>(labels);
        expected.put("ConfigMap late-0", Map.of());
        expected.put("Secret checksums-late-0", Map.of());
        return expected;
    }

    private Set<String> drained() {
        return client.configMaps().inNamespace(NAMESPACE).withLabel(DRAIN_LABEL).list().getItems().stream()
                .map(cm -> cm.getMetadata().getName()).collect(Collectors.toCollection(TreeSet::new));
    }

    private ConfigMap configMap(String name) {
        return client.configMaps().inNamespace(NAMESPACE).withName(name).get();
    }

    private Secret secret(String name) {
        return client.secrets().inNamespace(NAMESPACE).withName(name).get();
    }

    private static Map<String, String> labels(HasMetadata object) {
        return object == null || object.getMetadata().getLabels() == null ? Map.of() : object.getMetadata().getLabels();
    }

    private static Optional<OwnerReference> controller(HasMetadata object) {
        return object.getMetadata().getOwnerReferences() == null ? Optional.empty()
                : object.getMetadata().getOwnerReferences().stream()
                        .filter(reference -> Boolean.TRUE.equals(reference.getController())).findFirst();
    }

    /** The parts of a ClusterRing's status the tests look at. */
    private record RingStatus(String readyStatus, String reason, String message, Integer shards,
            Integer availableShards) {

        boolean ready() {
            return "True".equals(readyStatus);
        }

        @SuppressWarnings("unchecked")
        static RingStatus of(GenericKubernetesResource ring) {
            Object status = ring == null ? null : ring.getAdditionalProperties().get("status");
            if (!(status instanceof Map<?, ?> map)) {
                return new RingStatus(null, null, "", null, null);
            }
            Map<String, Object> ready = ((List<Map<String, Object>>) map.get("conditions") == null ? List.<Map<String, Object>>of()
                    : (List<Map<String, Object>>) map.get("conditions")).stream()
                    .filter(condition -> "Ready".equals(condition.get("type"))).findFirst().orElse(Map.of());
            return new RingStatus((String) ready.get("status"), (String) ready.get("reason"),
                    Objects.toString(ready.get("message"), ""), number(map.get("shards")),
                    number(map.get("availableShards")));
        }

        private static Integer number(Object value) {
            return value instanceof Number number ? Integer.valueOf(number.intValue()) : null;
        }
    }

    private RingStatus awaitRing(String what, Predicate<RingStatus> condition) {
        RingStatus[] last = new RingStatus[1];
        Until.holds(SOON, () -> "ClusterRing " + RING + " " + what + "; last status " + last[0], () -> {
            last[0] = RingStatus.of(client.genericKubernetesResources(CLUSTER_RINGS).withName(RING).get());
            return condition.test(last[0]);
        });
        return last[0];
    }

    // --- the framework ----------------------------------------------------------------------------

    private void configureSharder(String defaultStrategy, String webhookMode) throws IOException {
        configureSharder(defaultStrategy, webhookMode, "default");
    }

    private void configureSharder(String defaultStrategy, String webhookMode, String leaseDetector) throws IOException {
        configureSharder(defaultStrategy, webhookMode, leaseDetector, Map.of());
    }

    /** The sharder's configuration; {@code moveBudget} is always set, to its default unless {@code more} sets it. */
    private void configureSharder(String defaultStrategy, String webhookMode, String leaseDetector,
            Map<String, Object> more) throws IOException {
        Map<String, Object> values = new LinkedHashMap<>(Map.of(
                "defaultStrategy", defaultStrategy,
                "webhookMode", webhookMode,
                "leaseDetector", leaseDetector,
                "moveBudget", 5000,
                "leaderElectionNamespace", ELECTION_NAMESPACE,
                "leaderElectionLease", ELECTION_LEASE,
                "identity", IDENTITY));
        values.putAll(more);
        configure(SHARDER_PID, values);
    }

    private void configure(String pid, Map<String, Object> values) throws IOException {
        Configurations.configure(context, pid, values);
    }

    /** Sum of the counters of that name for the ring in the OSGi MeterRegistry service. */
    private double meterCount(String name) {
        ServiceReference<MeterRegistry> reference = awaitService(MeterRegistry.class, null);
        MeterRegistry registry = context.getService(reference);
        try {
            return registry.find(name).tag("clusterring", RING).counters().stream().mapToDouble(Counter::count).sum();
        } finally {
            context.ungetService(reference);
        }
    }

    /** GET /metrics of the ops HTTP server (configured on a free port). */
    private String scrapeMetrics() throws IOException, InterruptedException {
        ServiceReference<?> listening = Until.value(SOON, "the ops HTTP listener",
                () -> references(null, "(" + OPS_HTTP_PORT + "=*)").stream().findFirst());
        URI uri = URI.create("http://127.0.0.1:" + listening.getProperty(OPS_HTTP_PORT) + "/metrics");
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        return response.body();
    }



    @SuppressWarnings("unchecked")
    private <S> ServiceReference<S> awaitService(Class<S> type, String filter) {
        return (ServiceReference<S>) Until.value(SOON, "a " + type.getSimpleName() + " service "
                + Objects.toString(filter, ""), () -> references(type.getName(), filter).stream().findFirst());
    }

    private Collection<ServiceReference<?>> references(String type, String filter) {
        try {
            ServiceReference<?>[] references = context.getServiceReferences(type, filter);
            return references == null ? List.of() : Stream.of(references).toList();
        } catch (InvalidSyntaxException e) {
            throw new AssertionError(e);
        }
    }
}
