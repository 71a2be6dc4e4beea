package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.Distribution;
import dev.ringmaster.itests.support.Json;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code bin/ringmaster simulate --ring} as an operator runs it against a cluster, here the real API
 * server: a ClusterRing and a ControllerRing named {@code preview} over the ConfigMaps of one
 * namespace (each of the first ten controlling a Secret), four shard Leases carrying both rings' labels
 * (two live, one expired, one taken by the sharder: dead), the ConfigMaps labelled by hand for the
 * ClusterRing only. No sharder runs.
 *
 * <p>What the labels say is counted here from the API server; where each strategy puts each object
 * comes from {@code python3 testing/placement-vectors/placements.py ring-preview-real}, an
 * implementation of the strategies independent of the product's.
 */
public class SimulateRingRealIT {

    private static final String RING = "preview";
    private static final String NAMESPACE = "preview-ring";
    private static final String OUTSIDE = "preview-outside";
    private static final int OBJECTS = 40;
    private static final int CONTROLLING = 10;

    /** placements.py ring-preview-real: main objects per shard where consistent-hash and rendezvous put them. */
    private static final Map<String, Integer> CONSISTENT_HASH = Map.of("shard-0", 14, "shard-1", 14, "shard-2", 12,
            "shard-3", 0);
    private static final Map<String, Integer> RENDEZVOUS = Map.of("shard-0", 12, "shard-1", 14, "shard-2", 14,
            "shard-3", 0);
    private static final int MOVED = 27;
    private static final int CONTROLLED_MOVED = 8;
    /** Labelled with another shard than consistent-hash's, not in drain (placements.py). */
    private static final int ELSEWHERE = 20;
    /** placements.py: objects consistent-hash puts elsewhere with 7 tokens per shard than with 100. */
    private static final int MOVED_BY_SEVEN_TOKENS = 28;
    /** placements.py: objects the example plug-in jump-hash puts elsewhere than rendezvous. */
    private static final int MOVED_TO_JUMP_HASH = 31;

    private static RealCluster cluster;

    @BeforeClass
    public static void createTheRings() {
        cluster = RealCluster.get();
        KubernetesClient admin = cluster.admin();
        cluster.configMapRing(RingKind.CLUSTER_RING, RING, NAMESPACE, true);
        cluster.configMapRing(RingKind.CONTROLLER_RING, RING, NAMESPACE, true);
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        Duration live = Duration.ofHours(1);
        Duration expiredFor = Duration.ofMinutes(10);
        shardLease("shard-0", "shard-0", now, live);
        shardLease("shard-1", "shard-1", now, live);
        // renewed 15 min ago for 10 min: expired for the next 5 min (uncertain after), still available
        shardLease("shard-2", "shard-2", now.minus(expiredFor.multipliedBy(3).dividedBy(2)), expiredFor);
        // held by the sharder after the shard failed: dead
        shardLease("shard-3", "shardlease-controller", now, live);
        for (int i = 0; i < OBJECTS; i++) {
            ConfigMap owner = admin.configMaps().inNamespace(NAMESPACE).resource(labelledAsPlacementsPy(i)).create();
            if (i < CONTROLLING) {
                admin.secrets().inNamespace(NAMESPACE).resource(new SecretBuilder().withNewMetadata()
                        .withName("checksums-cm-" + i).addNewOwnerReference().withApiVersion("v1").withKind("ConfigMap")
                        .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid())
                        .withController(true).endOwnerReference().endMetadata().build()).create();
            }
        }
        // a controlled object without a controller gets no key; objects outside the rings' namespace are not theirs
        admin.secrets().inNamespace(NAMESPACE).resource(new SecretBuilder().withNewMetadata().withName("loose")
                .endMetadata().build()).create();
        cluster.namespace(OUTSIDE);
        admin.configMaps().inNamespace(OUTSIDE).resource(new ConfigMapBuilder().withNewMetadata().withName("cm-0")
                .addToLabels(RingKind.CLUSTER_RING.shardLabel(RING), "shard-0").endMetadata().build()).create();
    }

    /** cm-i labelled as placements.py's {@code preview_label}, for the ClusterRing. */
    private static ConfigMap labelledAsPlacementsPy(int i) {
        ConfigMapBuilder configMap = new ConfigMapBuilder().withNewMetadata().withName("cm-" + i).endMetadata();
        if (i % 10 != 9) {
            configMap.editMetadata().addToLabels(RingKind.CLUSTER_RING.shardLabel(RING),
                    i == 37 ? "shard-gone" : "shard-" + (i % 4)).endMetadata();
        }
        if (i % 10 == 8) {
            configMap.editMetadata().addToLabels(RingKind.CLUSTER_RING.drainLabel(RING), "true").endMetadata();
        }
        return configMap.build();
    }

    private static void shardLease(String shard, String holder, ZonedDateTime renewed, Duration duration) {
        cluster.admin().leases().inNamespace(NAMESPACE).resource(new LeaseBuilder().withNewMetadata().withName(shard)
                .addToLabels(RingKind.CLUSTER_RING.leaseLabel(), RING)
                .addToLabels(RingKind.CONTROLLER_RING.leaseLabel(), RING).endMetadata()
                .withNewSpec().withHolderIdentity(holder).withLeaseDurationSeconds((int) duration.toSeconds())
                .withAcquireTime(renewed).withRenewTime(renewed).endSpec().build()).forceConflicts().serverSideApply();
    }

    @Test
    public void previewsAStrategyChangeOfTheClusterRing() {
        Cli.Result result = simulate(cluster.server().adminKubeconfig(), "clusterring/" + RING, "--strategy", "rendezvous",
                "--json");
        result.assertSucceeded();
        Json json = Json.parse(result.out());
        assertEquals("ClusterRing/" + RING, json.string("ring"));
        // no sharder ever reported on the ring and it names no strategy: the built-in default
        assertEquals("consistent-hash", json.string("currentStrategy"));
        assertEquals("rendezvous", json.string("strategy"));
        assertEquals(4, json.integer("shards"));
        assertEquals(3, json.integer("availableShards"));

        List<ConfigMap> configMaps = cluster.admin().configMaps().inNamespace(NAMESPACE).list().getItems();
        assertEquals(configMaps.size(), json.integer("objects"));
        assertEquals(CONTROLLING, json.integer("controlledObjects"));
        assertEquals(1, json.integer("unkeyedObjects"));
        assertEquals(MOVED, json.integer("moved"));
        assertEquals(CONTROLLED_MOVED, json.integer("controlledMoved"));
        assertEquals(Map.of("elsewhere", ELSEWHERE, "draining", count(configMaps, RingKind.CLUSTER_RING.drainLabel(RING)),
                "unassigned", configMaps.size() - count(configMaps, RingKind.CLUSTER_RING.shardLabel(RING))),
                json.counts("notWhereCurrentPuts"));

        Map<String, Json> perShard = json.members("perShard");
        assertEquals(List.of("shard-0", "shard-1", "shard-2", "shard-3", "shard-gone"), new ArrayList<>(perShard.keySet()));
        Map<String, Integer> labelled = labelledPerShard(configMaps, RingKind.CLUSTER_RING);
        perShard.forEach((shard, counts) -> {
            assertEquals(shard + " " + json, (int) labelled.get(shard), counts.integer("labelled"));
            assertEquals(shard + " " + json, (int) CONSISTENT_HASH.getOrDefault(shard, 0), counts.integer("current"));
            assertEquals(shard + " " + json, (int) RENDEZVOUS.getOrDefault(shard, 0), counts.integer("candidate"));
        });
        assertEquals(List.of("ready", "ready", "expired", "dead", "no-lease"),
                perShard.values().stream().map(counts -> counts.string("state")).toList());
    }

    @Test
    public void theStrategyInForceIsTheSharderDefaultTheReadyConditionNames() {
        reportReady(RingKind.CONTROLLER_RING, "sharding with strategy \"rendezvous\" (the sharder's default)");
        Cli.Result result = simulate(cluster.server().adminKubeconfig(), "controllerring/" + RING, "--strategy",
                "consistent-hash");
        result.assertSucceeded();
        List<String> lines = result.out().lines().toList();
        assertEquals(result.toString(), "ring      ControllerRing/preview: 4 shards, 3 available; " + OBJECTS
                + " objects, " + CONTROLLING + " controlled objects follow their owners; 1 without a key", lines.get(0));
        assertEquals(result.toString(), "current   rendezvous (in force, as the ring's Ready condition says)",
                lines.get(1));
        assertEquals(result.toString(), "candidate consistent-hash", lines.get(2));
        assertTrue(result.toString(), lines.get(3).startsWith("moved     " + MOVED + " of " + OBJECTS + " objects ("));
        assertTrue(result.toString(), lines.get(3).endsWith("and " + CONTROLLED_MOVED + " controlled objects with them"));
        // the objects carry the ClusterRing's labels only
        assertEquals(result.toString(), "labels    " + OBJECTS + " objects not where rendezvous puts them: 0 on another"
                + " shard, 0 in drain, " + OBJECTS + " unassigned", lines.get(4));
        Map<String, String> rows = new TreeMap<>();
        lines.stream().filter(line -> line.startsWith("shard-"))
                .forEach(line -> rows.put(line.split("\\s+")[0], line.replaceAll("\\s+", " ")));
        RENDEZVOUS.forEach((shard, current) -> assertTrue(result.toString(), rows.get(shard).endsWith(
                " 0 " + current + " " + CONSISTENT_HASH.get(shard))));
    }

    @Test
    public void tokensPerShardAreTheCandidatesOnly() {
        Cli.Result result = simulate(cluster.server().adminKubeconfig(), "clusterring/" + RING,
                "--strategy", "consistent-hash", "--tokens", "7", "--json");
        result.assertSucceeded();
        Json json = Json.parse(result.out());
        assertEquals("consistent-hash", json.string("currentStrategy"));
        assertEquals(MOVED_BY_SEVEN_TOKENS, json.integer("moved"));
    }

    @Test
    public void aStrategyPlugInInDeployIsPreviewed() throws IOException {
        Path home = Distribution.copy("simulate-ring-plug-in");
        Files.copy(Distribution.jumpHashPlugin(), home.resolve("deploy").resolve(Distribution.jumpHashPlugin().getFileName()));
        Cli.Result result = Cli.run(home, List.of("simulate", "--kubeconfig", cluster.server().adminKubeconfig().toString(),
                "--ring", "clusterring/" + RING, "--current-strategy", "rendezvous", "--strategy", "jump-hash", "--json"));
        result.assertSucceeded();
        Json json = Json.parse(result.out());
        assertEquals("rendezvous", json.string("currentStrategy"));
        assertEquals("--current-strategy", json.string("currentStrategySource"));
        assertEquals("jump-hash", json.string("strategy"));
        assertEquals(MOVED_TO_JUMP_HASH, json.integer("moved"));
    }

    @Test
    public void badInputIsOneLineAndAnExitCode() throws IOException {
        Path admin = cluster.server().adminKubeconfig();
        assertFailure(simulate(admin, "clusterring/no-such-ring", "--strategy", "rendezvous"),
                "ringmaster simulate: there is no ClusterRing named no-such-ring");

        Path nobody = cluster.server().serviceAccountKubeconfig(NAMESPACE, "nobody",
                cluster.server().workFolder("simulate-ring").resolve("nobody.kubeconfig"));
        assertFailure(simulate(nobody, "clusterring/" + RING, "--strategy", "rendezvous"),
                "ringmaster simulate: cannot read ClusterRing/preview: the API server at ", "answered HTTP 403 (forbidden");

        Path unreachable = cluster.server().workFolder("simulate-ring").resolve("unreachable.kubeconfig");
        Files.writeString(unreachable, Files.readString(admin).replaceAll("server: \\S+", "server: https://127.0.0.1:1"));
        assertFailure(simulate(unreachable, "clusterring/" + RING, "--strategy", "rendezvous"),
                "ringmaster simulate: cannot read ClusterRing/preview: cannot reach the API server at https://127.0.0.1:1/: connection refused");

        simulate(admin, "clusterring/" + RING, "--strategy", "no-such-strategy")
                .assertUsageError("unknown strategy 'no-such-strategy'; available: consistent-hash, rendezvous");
    }

    /** Exit code 1 and one line on stderr containing each of {@code parts}, nothing on stdout. */
    private static void assertFailure(Cli.Result result, String... parts) {
        assertEquals(result.toString(), 1, result.exit());
        assertEquals(result.toString(), 1, result.err().lines().count());
        for (String part : parts) {
            assertTrue(result.toString(), result.err().contains(part));
        }
        assertEquals(result.toString(), "", result.out());
    }

    private static Cli.Result simulate(Path kubeconfig, String ring, String... args) {
        List<String> command = new ArrayList<>(List.of("simulate", "--kubeconfig", kubeconfig.toString(), "--ring", ring));
        command.addAll(List.of(args));
        return Cli.run(Distribution.home(), command);
    }

    /** Writes the ring's status as a sharder would once Ready: the condition for the current generation. */
    private static void reportReady(RingKind kind, String message) {
        var rings = cluster.admin().genericKubernetesResources("sharding.timebertt.dev/v1alpha1", kind.kind());
        GenericKubernetesResource ring = rings.withName(RING).get();
        ring.setAdditionalProperty("status", Map.of("observedGeneration", ring.getMetadata().getGeneration(),
                "conditions", List.of(Map.of("type", "Ready", "status", "True", "reason", "ReconciliationSucceeded",
                        "message", message, "lastTransitionTime", ZonedDateTime.now(ZoneOffset.UTC).withNano(0).toString()))));
        rings.resource(ring).updateStatus();
    }

    private static int count(List<ConfigMap> configMaps, String label) {
        return (int) configMaps.stream().filter(configMap -> RingState.labels(configMap).containsKey(label)).count();
    }

    private static Map<String, Integer> labelledPerShard(List<ConfigMap> configMaps, RingKind kind) {
        Map<String, Integer> labelled = new TreeMap<>();
        configMaps.stream().map(configMap -> RingState.labels(configMap).get(kind.shardLabel(RING)))
                .filter(shard -> shard != null)
                .forEach(shard -> labelled.merge(shard, 1, Integer::sum));
        return labelled;
    }
}
