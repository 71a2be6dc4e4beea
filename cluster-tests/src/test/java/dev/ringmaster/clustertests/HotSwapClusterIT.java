package dev.ringmaster.clustertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.clustertests.support.Sharder;
import dev.ringmaster.clustertests.support.StatefulSetScenarios;
import dev.ringmaster.clustertests.support.Waiting;
import dev.ringmaster.ring.XxHash64;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.example.ringmaster.jumphash.JumpHashStrategy;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Hot swap where the sharder runs (docs/operating.md, "Configuration and plug-ins through the
 * cluster"): configuration and a plug-in strategy delivered with {@code kubectl} only, as labelled
 * ConfigMaps of {@code sharding-system}, applied by both running replicas with no container restart;
 * the ring switched to the plug-in's strategy under the delivered move budget with no overlapping
 * reconciles; a replica started afterwards comes up with the plug-in; a broken jar and a bad strategy
 * name refused where an operator looks (Events, the ring's Ready condition) while what ran goes on.
 * The scenario leaves the ring on its default strategy and removes what it delivered.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HotSwapClusterIT extends StatefulSetScenarios {

    private static final String SETTINGS = "hot-swap-settings";
    private static final String PLUG_IN = "jump-hash-strategy";
    private static final String BROKEN = "broken-plug-in";
    private static final int MOVE_BUDGET = 10;
    private static final Duration SETTLE = Duration.ofSeconds(180);

    /**
     * (a) The move budget and the jump-hash strategy's jar delivered by {@code kubectl create configmap}
     * and {@code kubectl label}: both replicas report the bundle active within 30 s; the ring switched
     * to it reassigns through drains, never more than the delivered budget at once; no sharder
     * container restarted; a replica that replaces a deleted one comes up with the bundle.
     */
    @Test
    @Order(1)
    void aPlugInStrategyDeliveredWithKubectlIsUsedByBothReplicasWithoutARestart() throws Exception {
        Set<String> ready = shards.settledWithObjects("hot-swap", SETTLE);
        Map<String, Integer> restarts = sharder.restarts();

        deliver(SETTINGS, "--from-literal=dev.ringmaster.sharder.cfg=moveBudget = " + MOVE_BUDGET);
        sharder.awaitDelivered(Duration.ofSeconds(30));
        long started = System.nanoTime();
        deliver(PLUG_IN, "--from-file=jump-hash.jar=" + jumpHashJar());
        Waiting.until(Duration.ofSeconds(30), () -> "both replicas report the plug-in active: " + pluginEvents(),
                () -> restarts.keySet().stream().allMatch(this::reportsJumpHashActive));
        System.out.printf("cluster-tests: the plug-in active on both replicas %.1f s after kubectl label%n",
                (System.nanoTime() - started) / 1e9);

        Map<String, String> before = assignments();
        try (DrainCounter drains = new DrainCounter()) {
            shards.patchRing("merge", "{\"spec\":{\"strategy\":\"" + JumpHashStrategy.NAME + "\"}}");
            Waiting.until(Duration.ofSeconds(60), () -> "the ring Ready on " + JumpHashStrategy.NAME + ": "
                    + shards.readyCondition(), () -> readyWith(JumpHashStrategy.NAME));
            // in waves of at most the budget: settled only once every object is where jump-hash puts it
            Waiting.until(SETTLE, () -> "every object on its jump-hash shard of " + ready + ", none in drain: "
                    + misplaced(ready), () -> misplaced(ready).isEmpty());
            shards.awaitSettledOn(ready, SETTLE);
            Map<String, String> after = assignments();
            long moved = before.keySet().stream().filter(name -> !before.get(name).equals(after.get(name))).count();
            System.out.printf("cluster-tests: the switch to %s moved %d of %d objects, at most %d in drain at once%n",
                    JumpHashStrategy.NAME, moved, before.size(), drains.most());
            assertThat(moved).as("objects the new strategy placed elsewhere").isPositive();
            assertThat(drains.most()).as("objects in drain at once, under moveBudget = %d", MOVE_BUDGET)
                    .isBetween(1, MOVE_BUDGET);
        }
        assertThat(sharder.restarts()).as("sharder pods and their restart counts").isEqualTo(restarts);
        shards.assertNoOverlappingReconciles();

        String leader = sharder.awaitLeader(Duration.ofSeconds(30));
        String standby = restarts.keySet().stream().filter(pod -> !pod.equals(leader)).findFirst().orElseThrow();
        cluster.kubectl("-n", Sharder.NAMESPACE, "delete", "pod", standby, "--wait=true", "--timeout=120s").orThrow();
        Waiting.until(Duration.ofSeconds(120), () -> "a replacement sharder pod reporting the plug-in active: "
                + pluginEvents() + "\n" + sharder.diagnostics(), () -> sharder.pods().stream()
                .map(pod -> pod.getMetadata().getName())
                .anyMatch(pod -> !restarts.containsKey(pod) && reportsJumpHashActive(pod)));
        assertThat(readyWith(JumpHashStrategy.NAME)).as("the ring on %s: %s", JumpHashStrategy.NAME, shards.readyCondition())
                .isTrue();
    }

    /**
     * (b) A jar that is no bundle is refused by each replica with a Warning Event on its ConfigMap, and
     * the strategy in use goes on assigning; a strategy name nobody provides makes the ring Ready=False
     * with reason StrategyUnavailable while it goes on with the strategy in force: nothing moves, and
     * new objects are assigned. The ring back on its default strategy, and the delivered ConfigMaps
     * deleted.
     */
    @Test
    @Order(2)
    void aBrokenJarAndABadStrategyNameAreRefusedVisibly() throws IOException {
        Path garbage = cluster.work().resolve("broken.jar");
        Files.writeString(garbage, "not a jar", StandardCharsets.UTF_8);
        deliver(BROKEN, "--from-file=broken.jar=" + garbage);
        Waiting.until(Duration.ofSeconds(30), () -> "every replica refuses broken.jar: " + events(BROKEN),
                () -> sharder.podNames().stream().allMatch(pod -> sharder.deliveryEvents(pod, BROKEN).stream()
                        .anyMatch(event -> event.startsWith("Refused: ") && event.contains("broken.jar"))));
        ConfigMap created = shards.createConfigMap("after-broken-jar");
        assertThat(created.getMetadata().getLabels()).as("labelled at create by the strategy in use")
                .containsKey(shards.shardLabel());
        assertThat(readyWith(JumpHashStrategy.NAME)).isTrue();

        Map<String, String> before = assignments();
        shards.patchRing("merge", "{\"spec\":{\"strategy\":\"jump-hsh\"}}");
        Waiting.until(Duration.ofSeconds(30), () -> "the ring Ready=False StrategyUnavailable, on jump-hash still: "
                + shards.readyCondition(), () -> {
                    Map<String, Object> condition = shards.readyCondition();
                    return "False".equals(condition.get("status")) && "StrategyUnavailable".equals(condition.get("reason"))
                            && String.valueOf(condition.get("message")).contains("\"jump-hsh\"")
                            && String.valueOf(condition.get("message")).contains("still sharding with strategy \""
                                    + JumpHashStrategy.NAME + "\"");
                });
        ConfigMap duringTypo = shards.createConfigMap("during-typo");
        assertThat(duringTypo.getMetadata().getLabels()).as("assigned at create by the strategy in force")
                .containsKey(shards.shardLabel());
        assertThat(assignments()).as("nothing moves").containsAllEntriesOf(before);

        // the budget back to the image's, so that the way back is one wave, then the default strategy
        cluster.kubectl("-n", Sharder.NAMESPACE, "patch", "configmap", SETTINGS, "--type=merge",
                "-p", "{\"data\":{\"dev.ringmaster.sharder.cfg\":\"# nothing set\"}}").orThrow();
        sharder.awaitDelivered(Duration.ofSeconds(30));
        Map<String, String> onJumpHash = assignments();
        shards.patchRing("merge", "{\"spec\":{\"strategy\":null}}");
        Waiting.until(Duration.ofSeconds(60), () -> "the ring Ready on its default strategy: " + shards.readyCondition(),
                () -> readyWith("consistent-hash"));
        // Ready comes with the status write, before the leader's pass has drained anything: settled is only
        // worth waiting for once objects move (jump-hash put most of them elsewhere), or it may hold for a
        // moment before the pass and then lapse
        Waiting.until(SETTLE, () -> "objects moving onto consistent-hash: " + shards.diagnostics(),
                () -> shards.anyDraining() || !assignments().equals(onJumpHash));
        shards.awaitSettledOn(shards.readyPods(), SETTLE);
        cluster.kubectl("-n", Sharder.NAMESPACE, "delete", "configmap", BROKEN, PLUG_IN, SETTINGS).orThrow();
        shards.assertNoOverlappingReconciles();
    }

    /** {@code kubectl create configmap NAME SOURCE} and {@code kubectl label} it for delivery. */
    private static void deliver(String name, String source) {
        cluster.kubectl("-n", Sharder.NAMESPACE, "create", "configmap", name, source).orThrow();
        cluster.kubectl("-n", Sharder.NAMESPACE, "label", "configmap", name, Sharder.DELIVERY_LABEL + "=true").orThrow();
    }

    /** The example plug-in's jar as Maven built it. */
    static Path jumpHashJar() throws URISyntaxException {
        Path jar = Path.of(JumpHashStrategy.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertThat(jar.toString()).as("the example-jump-hash-strategy jar").endsWith(".jar");
        return jar;
    }

    private boolean reportsJumpHashActive(String pod) {
        return sharder.deliveryEvents(pod, PLUG_IN).stream().anyMatch(event -> event.startsWith("Applied: ")
                && event.contains("bundle org.example.ringmaster.jumphash") && event.contains(", active)"));
    }

    private static String pluginEvents() {
        return events(PLUG_IN);
    }

    private static String events(String configMap) {
        return sharder.podNames().stream().collect(Collectors.toMap(Function.identity(),
                pod -> sharder.deliveryEvents(pod, configMap), (a, b) -> a, TreeMap::new)).toString();
    }

    private static boolean readyWith(String strategy) {
        return shards.isReady() && String.valueOf(shards.readyCondition().get("message")).contains("\"" + strategy + "\"");
    }

    /**
     * The ConfigMaps not on the shard jump-hash gives their key among {@code shards}, or in drain. The
     * expected shard is computed here: the key as docs/design.md (section 4) defines it for a main object of the
     * core group ({@code /ConfigMap/<namespace>/<name>}), XXH64 of it, and the jump consistent hash of
     * Lamping and Veach (arXiv:1406.2294, their listing) over the shards sorted by name.
     */
    private static List<String> misplaced(Set<String> shards) {
        List<String> sorted = new ArrayList<>(new TreeSet<>(shards));
        List<String> misplaced = new ArrayList<>();
        for (ConfigMap configMap : shards.isEmpty() ? List.<ConfigMap>of() : HotSwapClusterIT.shards.configMaps()) {
            String name = configMap.getMetadata().getName();
            if (name.startsWith("kube-")) {
                continue;
            }
            Map<String, String> labels = configMap.getMetadata().getLabels() == null ? Map.of() : configMap.getMetadata().getLabels();
            long hash = XxHash64.hash("/ConfigMap/" + configMap.getMetadata().getNamespace() + "/" + name);
            String expected = sorted.get(jump(hash, sorted.size()));
            if (!expected.equals(labels.get(HotSwapClusterIT.shards.shardLabel()))
                    || labels.containsKey(HotSwapClusterIT.shards.drainLabel())) {
                misplaced.add(name + " on " + labels.get(HotSwapClusterIT.shards.shardLabel()) + ", not " + expected
                        + (labels.containsKey(HotSwapClusterIT.shards.drainLabel()) ? " (in drain)" : ""));
            }
        }
        return misplaced;
    }

    /** Written here from the paper's listing, not taken from the plug-in: the test's own expectation. */
    private static int jump(long key, int buckets) {
        long b = -1;
        long j = 0;
        while (j < buckets) {
            b = j;
            key = key * 2862933555777941757L + 1;
            j = (long) ((b + 1) * ((double) (1L << 31) / (double) ((key >>> 33) + 1)));
        }
        return (int) b;
    }

    /** Each ConfigMap's shard label value, by name. */
    private static Map<String, String> assignments() {
        return shards.configMaps().stream().filter(configMap -> !configMap.getMetadata().getName().startsWith("kube-"))
                .collect(Collectors.toMap(configMap -> configMap.getMetadata().getName(),
                        configMap -> String.valueOf(configMap.getMetadata().getLabels().get(shards.shardLabel())),
                        (a, b) -> a, TreeMap::new));
    }

    /** The most ConfigMaps of the ring that carried the drain label at the same time, from an informer. */
    private static final class DrainCounter implements AutoCloseable {

        private final SharedIndexInformer<ConfigMap> informer;
        private final AtomicInteger most = new AtomicInteger();

        DrainCounter() {
            informer = cluster.admin().configMaps().inNamespace(shards.objectsNamespace()).runnableInformer(0);
            informer.addEventHandler(Sharder.handler(this::count));
            informer.start().toCompletableFuture().join();
        }

        private void count() {
            int draining = (int) informer.getStore().list().stream().filter(configMap -> configMap.getMetadata().getLabels() != null
                    && configMap.getMetadata().getLabels().containsKey(shards.drainLabel())).count();
            most.accumulateAndGet(draining, Math::max);
        }

        int most() {
            return most.get();
        }

        @Override
        public void close() {
            informer.stop();
        }
    }
}
