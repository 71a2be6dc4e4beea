package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.Exposition;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.RealPrometheus;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.AfterClass;
import org.junit.Assume;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code /metrics} of {@code bin/ringmaster run} on the real API server, scraped as Prometheus scrapes it.
 * The reference sharder's series (its docs/monitoring.md and pkg/metrics, v0.13.0: names and label names
 * written out here) for a ControllerRing, and ours for a ClusterRing of the same name beside it, with
 * values read from the API server; objects in drain that nobody acknowledges (the shards are Leases without
 * a process) and the age of the oldest; unassigned objects of rings without shards; Ready with its
 * reason; the dashboard's and the PrometheusRule's queries against what was scraped; and the
 * PrometheusRule's alerts evaluated by a real Prometheus scraping the sharder (Debian's prometheus package).
 */
@SuppressWarnings("unchecked")
public class MetricsRealIT {

    private static final String RING = "metrics";
    private static final String SHARDS = "metrics-shards";
    private static final String NO_SHARDS = "metrics-noshards";
    private static final String UNREADY = "metrics-unready";
    private static final int OBJECTS = 30;
    private static final int UNASSIGNED = 3;
    private static final Duration SOON = Duration.ofSeconds(60);
    /** The reference's KnownShardStates and its unknown state. */
    private static final List<String> REFERENCE_STATES = List.of("orphaned", "dead", "uncertain", "expired", "ready", "unknown");

    private static final String SHARDER_USER = "system:serviceaccount:sharding-system:sharder";

    private static RealCluster cluster;
    private static Instant started;
    private static KubernetesClient admin;
    private static SharderHome replica;
    private static Cli.Started sharder;
    /**
     * While drains wait: when the second shards joined; by when the leader's drain watch had seen a drain of each
     * ring (the end of the first scrape that counted one: the leader times a drain from its watch, which may lag the
     * test's own reads); when each of the two scrapes was asked for and answered.
     */
    private static Instant joined;
    private static final Map<RingKind, Instant> drainWatched = new EnumMap<>(RingKind.class);
    private static Instant drainAsked;
    private static Instant drainScraped;
    private static Exposition whileDraining;
    private static Instant laterAsked;
    private static Exposition laterWhileDraining;
    private static Instant laterAnswered;
    private static final Map<RingKind, Long> drainedObjects = new EnumMap<>(RingKind.class);
    /** After the first shards' Leases are gone and their objects moved. */
    private static Exposition settled;
    /** A real Prometheus scraping the sharder and evaluating the shipped rules, with times scaled down. */
    private static RealPrometheus prometheus;
    /** The ring alerts it fired while the drains waited, by alert: each alert's ring labels. */
    private static final Map<String, Set<Map<String, String>>> firedWhileDraining = new TreeMap<>();
    private static final Map<String, Set<Map<String, String>>> EXPECTED_ALERTS = Map.of(
            "RingmasterDrainStuck", Set.of(Map.of("controllerring", RING), Map.of("clusterring", RING)),
            "RingmasterObjectsUnassigned", Set.of(Map.of("controllerring", NO_SHARDS), Map.of("clusterring", NO_SHARDS)),
            "RingmasterRingWithoutAvailableShards", Set.of(Map.of("controllerring", NO_SHARDS), Map.of("clusterring", NO_SHARDS),
                    Map.of("clusterring", UNREADY)),
            "RingmasterRingNotReady", Set.of(Map.of("clusterring", UNREADY, "reason", "StrategyUnavailable")));

    @BeforeClass
    public static void runTheScenario() throws InterruptedException {
        cluster = RealCluster.get();
        admin = cluster.admin();
        cluster.namespace(SHARDS);
        for (RingKind kind : RingKind.values()) {
            cluster.configMapRing(kind, RING, namespace(kind), false);
            cluster.liveShardLease(kind, SHARDS, shard(kind, "a"), RING);
        }
        // rings without shards (their objects stay unassigned), and a ring whose strategy does not exist
        cluster.namespace(NO_SHARDS);
        for (RingKind kind : RingKind.values()) {
            cluster.ring(kind, NO_SHARDS, """
                      resources:
                      - group: ""
                        resource: configmaps
                      namespaceSelector:
                        matchLabels: {kubernetes.io/metadata.name: %s}
                    """.formatted(NO_SHARDS));
        }
        cluster.ring(RingKind.CLUSTER_RING, UNREADY, """
                  resources:
                  - group: ""
                    resource: configmaps
                  namespaceSelector:
                    matchLabels: {kubernetes.io/metadata.name: %s}
                  strategy: no-such-strategy
                """.formatted(UNREADY));

        replica = SharderHome.prepare("metrics");
        started = Instant.now();
        sharder = cluster.runSharder(replica, cluster.sharderKubeconfig(replica));
        if (RealPrometheus.available()) {
            prometheus = RealPrometheus.start(replica.home().resolve("prometheus"), "127.0.0.1:" + replica.opsPort(),
                    scaledRules());
        }
        for (RingKind kind : RingKind.values()) {
            Waiting.until(SOON, () -> kind + " " + RING + " ready\n" + sharder.err(), () -> "True".equals(readyCondition(kind, RING)
                    .map(condition -> condition.get("status")).orElse(null)));
        }
        for (int i = 0; i < OBJECTS; i++) {
            for (RingKind kind : RingKind.values()) {
                admin.configMaps().inNamespace(namespace(kind)).resource(configMap("cm-" + i)).create();
            }
        }
        for (int i = 0; i < UNASSIGNED; i++) {
            admin.configMaps().inNamespace(NO_SHARDS).resource(configMap("cm-" + i)).create();
        }
        for (RingKind kind : RingKind.values()) {
            Waiting.until(SOON, () -> "every object of the " + kind + " on " + shard(kind, "a") + "\n" + sharder.err(),
                    () -> onShard(kind, shard(kind, "a")) == OBJECTS);
        }

        // a second shard per ring: objects are drained from the first, which never hands them back
        joined = Instant.now();
        for (RingKind kind : RingKind.values()) {
            cluster.liveShardLease(kind, SHARDS, shard(kind, "b"), RING);
        }
        for (RingKind kind : RingKind.values()) {
            Waiting.until(SOON, () -> "drains in the " + kind + "\n" + sharder.err(), () -> inDrain(kind) > 0);
        }
        // the pass that writes the drains is over (their number read twice in a row is the same), and the
        // leader's drain watch has them all: the first drain seen may be one of several the pass still writes
        whileDraining = Waiting.value(SOON, () -> "the drains in the scrape: " + drainedObjects + "\n" + sharder.err(), () -> {
            Map<RingKind, Long> before = new EnumMap<>(drainedObjects);
            for (RingKind kind : RingKind.values()) {
                drainedObjects.put(kind, inDrain(kind));
            }
            drainAsked = Instant.now();
            Exposition scrape = Exposition.parse(replica.metrics());
            for (RingKind kind : RingKind.values()) {
                if (scrape.find("ringmaster_ring_objects_in_drain", ringLabels(kind, RING)).filter(sample -> sample.value() > 0).isPresent()) {
                    drainWatched.putIfAbsent(kind, Instant.now());
                }
            }
            return drainedObjects.equals(before) && drainedObjects.entrySet().stream().allMatch(entry -> value(scrape,
                    "ringmaster_ring_objects_in_drain", ringLabels(entry.getKey(), RING)) == entry.getValue()
                    && listed(scrape, entry.getKey()) == OBJECTS) ? Optional.of(scrape) : Optional.empty();
        });
        drainScraped = Instant.now();
        Thread.sleep(3000);
        laterAsked = Instant.now();
        laterWhileDraining = Exposition.parse(replica.metrics());
        laterAnswered = Instant.now();
        awaitAlertsWhileDraining();

        // the first shards' Leases deleted: their objects move directly to the second shards
        for (RingKind kind : RingKind.values()) {
            admin.leases().inNamespace(SHARDS).withName(shard(kind, "a")).delete();
        }
        for (RingKind kind : RingKind.values()) {
            Waiting.until(SOON, () -> "every object of the " + kind + " moved to " + shard(kind, "b") + "\n" + sharder.err(),
                    () -> onShard(kind, shard(kind, "b")) == OBJECTS && inDrain(kind) == 0);
        }
        settled = Waiting.value(SOON, () -> "the scrape after the moves\n" + sharder.err(), () -> {
            Exposition scrape = Exposition.parse(replica.metrics());
            boolean firstShardsGone = scrape.named("controller_sharding_shard_info").stream()
                    .noneMatch(sample -> SHARDS.equals(sample.labels().get("namespace")) && sample.labels().get("shard").endsWith("-a"));
            boolean drainsGone = drainedObjects.keySet().stream().allMatch(kind -> scrape.find("ringmaster_ring_objects_in_drain",
                    ringLabels(kind, RING)).map(Exposition.Sample::value).orElse(-1.0) == 0);
            return firstShardsGone && drainsGone ? Optional.of(scrape) : Optional.empty();
        });
    }

    @AfterClass
    public static void stopSharder() throws InterruptedException {
        if (prometheus != null) {
            prometheus.close();
        }
        Cli.kill(sharder);
    }

    /** The reference's four ring gauges, with the ring object's values as the API server has them. */
    @Test
    public void everyRingHasTheReferencesRingGaugesInItsKindsFamily() {
        for (RingKind kind : RingKind.values()) {
            String family = "controller_sharding_" + kind.lowerCaseKind() + "_";
            Waiting.until(SOON, () -> family + "* equal to the " + kind + " as the API server has it", () -> {
                GenericKubernetesResource ring = ring(kind, RING);
                Map<String, Object> status = ring.get("status");
                Exposition scrape = Exposition.parse(replica.metrics());
                Map<String, String> labels = Map.of(kind.lowerCaseKind(), RING, "uid", ring.getMetadata().getUid());
                return value(scrape, family + "metadata_generation", labels) == ring.getMetadata().getGeneration()
                        && value(scrape, family + "observed_generation", labels) == ((Number) status.get("observedGeneration")).doubleValue()
                        && value(scrape, family + "status_shards", labels) == ((Number) status.get("shards")).doubleValue()
                        && value(scrape, family + "status_available_shards", labels) == ((Number) status.get("availableShards")).doubleValue();
            });
        }
    }

    /** shard_info and the shard_state stateset of the reference, by the Lease's namespace, name, ring and uid. */
    @Test
    public void everyShardLeaseHasTheReferencesInfoAndStateset() {
        for (RingKind kind : RingKind.values()) {
            String shard = shard(kind, "b");
            Lease lease = admin.leases().inNamespace(SHARDS).withName(shard).get();
            Map<String, String> identity = Map.of("namespace", SHARDS, "shard", shard, kind.lowerCaseKind(), RING);
            assertEquals(1.0, value(settled, "controller_sharding_shard_info", with(identity, "uid", lease.getMetadata().getUid())), 0);
            for (String state : REFERENCE_STATES) {
                assertEquals(kind + " " + shard + " " + state, "ready".equals(state) ? 1.0 : 0.0,
                        value(settled, "controller_sharding_shard_state", with(identity, "state", state)), 0);
            }
            assertEquals("one series per state", REFERENCE_STATES.size(), settled.named("controller_sharding_shard_state").stream()
                    .filter(sample -> sample.labels().get("shard").equals(shard)).count());
        }
    }

    /** The reference's counters, by ring, group and resource (the core group is empty, so absent once stored). */
    @Test
    public void theReferencesCountersCountEachRingsMoves() {
        for (RingKind kind : RingKind.values()) {
            Map<String, String> ring = ringLabels(kind, RING);
            Map<String, String> resource = with(with(ring, "group", ""), "resource", "configmaps");
            assertTrue(kind + ": every object assigned by the webhook",
                    value(settled, "controller_sharding_assignments_total", resource) >= OBJECTS);
            assertTrue(kind + ": the drains", value(settled, "controller_sharding_drains_total", resource) >= drainedObjects.get(kind));
            assertTrue(kind + ": the first shard's objects moved directly", value(settled, "controller_sharding_movements_total", resource) >= 1);
            assertTrue(kind + ": the ring calculated", value(settled, "controller_sharding_ring_calculations_total", ring) >= 2);
        }
    }

    /** Drains nobody acknowledges: counted as the API server has them, and aged by the wall clock. */
    @Test
    public void drainsNobodyAcknowledgesAreCountedAndTheirAgeGrows() {
        for (RingKind kind : RingKind.values()) {
            Map<String, String> ring = ringLabels(kind, RING);
            assertEquals(drainedObjects.get(kind), value(whileDraining, "ringmaster_ring_objects_in_drain", ring), 0);
            double age = value(whileDraining, "ringmaster_ring_oldest_drain_age_seconds", ring);
            // at least since a scrape first counted the drain, at most since the shard that caused it joined
            assertTrue(kind + " age " + age, age >= seconds(drainWatched.get(kind), drainAsked) - 0.5);
            assertTrue(kind + " age " + age, age <= seconds(joined, drainScraped) + 0.5);
            double later = value(laterWhileDraining, "ringmaster_ring_oldest_drain_age_seconds", ring);
            assertTrue(kind + " later age " + later, later >= seconds(drainWatched.get(kind), laterAsked) - 0.5);
            // grown by the time between the scrapes: at least from the first's answer to the second's question, at most
            // from the first's question to the second's answer
            double grown = later - age;
            assertTrue(kind + ": the age follows the clock, grown " + grown, grown >= seconds(drainScraped, laterAsked) - 0.05
                    && grown <= seconds(drainAsked, laterAnswered) + 0.05);
            assertEquals(kind + ": none left", 0, value(settled, "ringmaster_ring_objects_in_drain", ring), 0);
            assertEquals(kind + ": none left", 0, value(settled, "ringmaster_ring_oldest_drain_age_seconds", ring), 0);
        }
    }

    @Test
    public void objectsOfRingsWithoutShardsAreUnassigned() {
        for (RingKind kind : RingKind.values()) {
            long unlabelled = admin.configMaps().inNamespace(NO_SHARDS).list().getItems().stream()
                    .filter(object -> RingState.labels(object).keySet().stream().noneMatch(label -> label.startsWith("shard.alpha")))
                    .count();
            assertEquals(UNASSIGNED, unlabelled);
            assertEquals(kind + " " + NO_SHARDS, UNASSIGNED, value(settled, "ringmaster_ring_unassigned_objects",
                    ringLabels(kind, NO_SHARDS)), 0);
            assertEquals(kind + " " + RING, 0, value(settled, "ringmaster_ring_unassigned_objects", ringLabels(kind, RING)), 0);
        }
    }

    @Test
    public void readinessWithItsReasonIsTheRingsReadyCondition() {
        for (RingKind kind : RingKind.values()) {
            Map<String, Object> ready = readyCondition(kind, RING).orElseThrow();
            assertEquals(1.0, value(settled, "ringmaster_ring_ready", with(ringLabels(kind, RING), "reason",
                    (String) ready.get("reason"))), 0);
        }
        Map<String, Object> unready = readyCondition(RingKind.CLUSTER_RING, UNREADY).orElseThrow();
        assertEquals("False", unready.get("status"));
        assertEquals("StrategyUnavailable", unready.get("reason"));
        assertEquals(0.0, value(settled, "ringmaster_ring_ready", with(ringLabels(RingKind.CLUSTER_RING, UNREADY),
                "reason", "StrategyUnavailable")), 0);
    }

    @Test
    public void theLeaderSaysSoAndCountsItsPassesAndObjectsPerShard() {
        assertEquals(1.0, value(settled, "ringmaster_sharder_leader", Map.of()), 0);
        for (RingKind kind : RingKind.values()) {
            Map<String, String> ring = ringLabels(kind, RING);
            assertTrue(value(settled, "ringmaster_rebalance_passes_total", with(ring, "result", "completed")) >= 2);
            assertTrue(value(settled, "ringmaster_rebalance_pass_seconds_count", ring) >= 2);
            assertEquals(0.0, value(settled, "ringmaster_rebalance_moves_not_written_total", with(ring, "reason", "failed")), 0);
            // the drain pass listed every object on the first shard
            assertEquals(kind.toString(), OBJECTS, value(whileDraining, "ringmaster_ring_shard_objects",
                    Map.of(kind.lowerCaseKind(), RING, "shard", shard(kind, "a"), "resource", "configmaps")), 0);
        }
    }

    /** Every query of the dashboard and of the PrometheusRule names only series and labels the sharder exports. */
    @Test
    public void theDashboardAndTheAlertsAskOnlyForExportedSeries() throws IOException {
        List<Exposition.Sample> all = new ArrayList<>(whileDraining.samples());
        all.addAll(settled.samples());
        Exposition scraped = new Exposition(all);
        assertFalse("the check can fail", scraped.missingFor("max(ringmaster_no_such_series)").isEmpty());
        assertFalse("the check can fail", scraped.missingFor("max by (no_such_label) (ringmaster_sharder_leader)").isEmpty());

        List<String> expressions = new ArrayList<>();
        JsonNode dashboard = new ObjectMapper().readTree(RealCluster.manifests().resolve("monitoring/dashboards/ringmaster.json").toFile());
        dashboard.findValues("expr").forEach(expr -> expressions.add(expr.asText()));
        assertTrue(expressions.size() > 20);
        Map<?, ?> rule = admin.getKubernetesSerialization().unmarshal(Files.readString(
                RealCluster.manifests().resolve("monitoring/prometheusrule.yaml")), Map.class);
        for (Object group : (List<?>) ((Map<?, ?>) rule.get("spec")).get("groups")) {
            for (Object entry : (List<?>) ((Map<?, ?>) group).get("rules")) {
                expressions.add((String) ((Map<?, ?>) entry).get("expr"));
            }
        }
        List<String> missing = new ArrayList<>();
        for (String expression : expressions) {
            scraped.missingFor(expression).forEach(what -> missing.add(what + " (in " + expression.strip() + ")"));
        }
        assertEquals("what the queries ask for that /metrics does not have", List.of(), missing);
    }

    /** The leader's watches of drained and unassigned objects need no permission beyond manifests/. */
    @Test
    public void theSharderIsDeniedNothingUnderTheRbacOfTheManifests() {
        List<String> denied = cluster.server().audit().events().stream()
                .filter(event -> event.user().equals(SHARDER_USER) && event.code() == 403 && event.received().isAfter(started))
                .map(Object::toString).toList();
        assertEquals("requests the API server denied the sharder", List.of(), denied);
    }

    /**
     * docs/monitoring.md's alerts as shipped, on what Prometheus really stores of the scrape (the empty
     * label of the other ring kind dropped): each ring alerts alone, named by its kind's label, and healthy
     * rings stay quiet. Every {@code for} is 3 s and the drain threshold 3 s instead of 10 minutes.
     */
    @Test
    public void theShippedAlertsFireForEachRingOnARealPrometheus() {
        if (prometheus == null) {
            String why = "/usr/bin/prometheus is not installed (Debian's prometheus package)";
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError(why);
            }
            System.err.println("\n*** SKIPPED: the alerts on a real Prometheus: " + why + " ***\n");
            Assume.assumeTrue(why, false);
        }
        assertEquals(prometheus.describe(), EXPECTED_ALERTS, firedWhileDraining);
        assertEquals("a leader", List.of(), prometheus.firing("RingmasterNoLeader"));
        assertEquals("up", List.of(), prometheus.firing("RingmasterDown"));
        // the test's webhook certificate is valid for a day
        assertEquals(List.of(Map.of("instance", "127.0.0.1:" + replica.opsPort(), "job", "sharder", "namespace", "sharding-system")),
                prometheus.firing("RingmasterWebhookCertificateExpiring"));
    }

    /**
     * Waits (at most a minute) until the expected ring alerts fire, and keeps what fired for this class's
     * rings: the real API server is the test JVM's, and rings of classes before this one (their shards
     * gone) are the sharder's too.
     */
    private static void awaitAlertsWhileDraining() throws InterruptedException {
        if (prometheus == null) {
            return;
        }
        Instant deadline = Instant.now().plusSeconds(60);
        do {
            firedWhileDraining.clear();
            for (String alert : EXPECTED_ALERTS.keySet()) {
                Set<Map<String, String>> rings = new HashSet<>();
                prometheus.firing(alert).forEach(labels -> {
                    Map<String, String> ring = new TreeMap<>(labels);
                    ring.keySet().removeAll(Exposition.TARGET_LABELS);
                    if (ring.values().stream().anyMatch(name -> name.startsWith(RING))) {
                        rings.add(ring);
                    }
                });
                firedWhileDraining.put(alert, rings);
            }
            if (firedWhileDraining.equals(EXPECTED_ALERTS)) {
                return;
            }
            Thread.sleep(1000);
        } while (Instant.now().isBefore(deadline));
    }

    /** The PrometheusRule's groups as a rules file, every {@code for} 3 s and the drain threshold 3 s. */
    private static String scaledRules() {
        try {
            Map<String, Object> rule = admin.getKubernetesSerialization().unmarshal(Files.readString(
                    RealCluster.manifests().resolve("monitoring/prometheusrule.yaml")), Map.class);
            Map<String, Object> spec = (Map<String, Object>) rule.get("spec");
            for (Object group : (List<?>) spec.get("groups")) {
                for (Object entry : (List<?>) ((Map<?, ?>) group).get("rules")) {
                    Map<String, Object> alert = (Map<String, Object>) entry;
                    alert.put("for", "3s");
                    if ("RingmasterDrainStuck".equals(alert.get("alert"))) {
                        String expr = (String) alert.get("expr");
                        assertTrue(expr, expr.contains("> 600"));
                        alert.put("expr", expr.replace("> 600", "> 3"));
                    }
                }
            }
            return admin.getKubernetesSerialization().asYaml(spec);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    // ---- helpers

    private static String namespace(RingKind kind) {
        return RING + "-" + kind.lowerCaseKind();
    }

    private static String shard(RingKind kind, String suffix) {
        return kind.lowerCaseKind() + "-" + suffix;
    }

    private static Map<String, String> ringLabels(RingKind kind, String ring) {
        return Map.of(kind.lowerCaseKind(), ring);
    }

    private static Map<String, String> with(Map<String, String> labels, String name, String value) {
        Map<String, String> more = new HashMap<>(labels);
        more.put(name, value);
        return more;
    }

    private static double seconds(Instant from, Instant to) {
        return Duration.between(from, to).toMillis() / 1000.0;
    }

    /** The value of the series with exactly these labels; fails when there is none. */
    private static double value(Exposition scrape, String name, Map<String, String> labels) {
        return scrape.find(name, labels).orElseThrow(() -> new AssertionError("no " + name + labels + " in the scrape; "
                + name + " has " + scrape.named(name).stream().map(Exposition.Sample::labels).toList())).value();
    }

    /** Objects per shard of the ring's last pass, added up. */
    private static double listed(Exposition scrape, RingKind kind) {
        return scrape.named("ringmaster_ring_shard_objects").stream()
                .filter(sample -> RING.equals(sample.labels().get(kind.lowerCaseKind()))).mapToDouble(Exposition.Sample::value).sum();
    }

    private static long onShard(RingKind kind, String shard) {
        return admin.configMaps().inNamespace(namespace(kind)).withLabel(kind.shardLabel(RING), shard).list().getItems().size();
    }

    private static long inDrain(RingKind kind) {
        return admin.configMaps().inNamespace(namespace(kind)).withLabel(kind.drainLabel(RING)).list().getItems().size();
    }

    private static GenericKubernetesResource ring(RingKind kind, String name) {
        return admin.genericKubernetesResources("sharding.timebertt.dev/v1alpha1", kind.kind()).withName(name).get();
    }

    @SuppressWarnings("unchecked")
    private static Optional<Map<String, Object>> readyCondition(RingKind kind, String name) {
        Map<String, Object> status = ring(kind, name).get("status");
        if (status == null || status.get("conditions") == null) {
            return Optional.empty();
        }
        return ((List<Map<String, Object>>) status.get("conditions")).stream()
                .filter(condition -> "Ready".equals(condition.get("type"))).findFirst();
    }

    private static ConfigMap configMap(String name) {
        return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().addToData("k", "v").build();
    }
}
