package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.Distribution;
import dev.ringmaster.itests.support.Json;
import dev.ringmaster.itests.support.Waiting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code bin/ringmaster sandbox} of the unpacked distribution, as an operator runs it: one process
 * per scenario with its embedded API server, the sharder in Felix and three checksum shards. Each
 * scenario must end with every object on an available shard, no object reconciled by two shards at
 * overlapping times, and the moves the scenario implies. kill-shard waits for a real Lease to expire
 * (15 s lease, 15 s grace), so it dominates the run time. The scenario processes are independent (each
 * has its own API server on a free port and its own files) and mostly wait, so the class starts them
 * {@link #AT_ONCE} at a time before its tests, longest first; each test checks its own.
 *
 * <p>Each branch of a scenario runs once, and the variants share a process: the ControllerRing and the
 * JOSDK shards play scale-in together. What the scenarios show of the sharder and the shards is proven
 * on the real API server and the cluster (DrainHandoverRealIT, RingKindsRealIT, JosdkHandoverRealIT,
 * RangeModeRealIT, BalancingRealIT, HotSwapClusterIT); here it is the sandbox's own code that is run. The
 * flags' usage errors are SandboxOptionsTest's; here one goes through the script.
 */
public class SandboxCliIT {

    private static final int SHARDS = 3;
    private static final int OBJECTS = 60;
    /** The sandbox's own timeout is 120 s per phase; this only guards against a hung process. */
    private static final Duration PROCESS_TIMEOUT = Duration.ofSeconds(200);
    /**
     * Scenario processes running at once: they wait on Leases far more than they compute, but each runs an
     * API server, a sharder and three shards, and three at once beside the other tiers starved a leader's
     * renewals past their deadline on a two-core machine.
     */
    private static final int AT_ONCE = 2;
    private static final int RANGE_OBJECTS = 100;

    /** The README's example, verbatim. */
    private static final List<String> KILL_SHARD = scenarioArgs("kill-shard");
    private static final List<String> RANGE_SCALE_OUT = List.of("sandbox", "--ranges", "--shards", String.valueOf(SHARDS),
            "--objects", String.valueOf(RANGE_OBJECTS), "--scenario", "scale-out", "--exit", "--json");
    private static final List<String> RANGE_BALANCE = List.of("sandbox", "--ranges", "--shards", String.valueOf(SHARDS),
            "--objects", String.valueOf(RANGE_OBJECTS), "--scenario", "balance", "--exit", "--json");
    private static final List<String> SWAP_STRATEGY = scenarioArgs("swap-strategy");
    /** The README's first command with fewer objects: the result as text. */
    private static final List<String> SCALE_OUT_TEXT = List.of("sandbox", "--shards", String.valueOf(SHARDS), "--objects",
            String.valueOf(OBJECTS), "--scenario", "scale-out", "--exit");
    private static final List<String> SCALE_IN_JOSDK_CONTROLLER_RING = scenarioArgs("scale-in", "--ring-kind", "controllerring",
            "--shard-impl", "josdk");

    private static ExecutorService runner;
    private static final Map<List<String>, Future<Cli.Result>> RUNS = new HashMap<>();

    @BeforeClass
    public static void startTheScenarios() {
        runner = Executors.newFixedThreadPool(AT_ONCE);
        for (List<String> args : List.of(KILL_SHARD, RANGE_BALANCE, RANGE_SCALE_OUT, SWAP_STRATEGY, SCALE_IN_JOSDK_CONTROLLER_RING,
                SCALE_OUT_TEXT)) {
            RUNS.put(args, runner.submit(() -> Cli.run(Distribution.home(), args, PROCESS_TIMEOUT)));
        }
    }

    /** Every test has had its scenario's end; where only some ran (-Dit.test=…#name) the others are stopped. */
    @AfterClass
    public static void stopTheScenarios() throws InterruptedException {
        runner.shutdownNow();
        runner.awaitTermination(PROCESS_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    /** The text an operator reads: the new shard took objects over, and what moved is exactly what it holds. */
    @Test
    public void scaleOutDrainsObjectsToTheNewShard() {
        Cli.Result result = result(SCALE_OUT_TEXT);
        assertEquals(result.toString(), 0, result.exit());
        assertNoErrors(result);
        // the live view comes first on stdout; the result is the text from its first line on
        int start = result.out().lastIndexOf("\nscenario scale-out (");
        assertTrue(result.toString(), start >= 0);
        String text = result.out().substring(start + 1);
        Matcher newShard = Pattern.compile("shard-3\\s+ready\\s+running\\s+(\\d+)").matcher(text);
        assertTrue("the new shard is ready and running: " + text, newShard.find());
        int taken = Integer.parseInt(newShard.group(1));
        assertTrue("the new shard took objects over: " + text, taken > 0);
        for (String shard : List.of("shard-0", "shard-1", "shard-2")) {
            assertTrue(text, Pattern.compile(shard + "\\s+ready\\s+running\\s+\\d+").matcher(text).find());
        }
        // each object that moved left its old shard once, for the new one
        assertTrue(text, text.contains("unassigned 0, draining 0, moves " + taken + ", overlapping reconciles 0 (of "));
        assertTrue(text, text.contains("OK: every object is on an available shard"));
    }

    /**
     * Range mode (--ranges): the ring has spec.ranges, the shards serve the hash ranges on their Leases
     * (client-side filtering: the mock server ignores the shardSelector), nothing is labelled and no
     * ConfigMap is written; the new shard takes ranges, and the objects that moved are exactly its own.
     */
    @Test
    public void rangeModeScaleOutHandsRangesToTheNewShardWithoutWritingAConfigMap() {
        Cli.Result result = result(RANGE_SCALE_OUT);
        assertEquals(result.toString(), 0, result.exit());
        assertNoErrors(result);
        Json json = Json.parse(result.out());
        String text = json.toString();
        assertEquals(text, "scale-out", json.string("scenario"));
        assertEquals(text, "ranges", json.string("mode"));
        assertEquals(text, 64, json.integer("buckets"));
        Map<String, Integer> perShard = json.counts("perShard");
        assertEquals(text, List.of("shard-0", "shard-1", "shard-2", "shard-3"), new ArrayList<>(perShard.keySet()));
        assertEquals("every object is owned by a shard serving its hash: " + text, RANGE_OBJECTS,
                perShard.values().stream().mapToInt(Integer::intValue).sum());
        // a joining shard takes ranges only from the others: what moved is exactly what it holds
        assertEquals(text, (int) perShard.get("shard-3"), json.integer("moves"));
        assertTrue("the new shard serves ranges: " + text, !text.contains("\"shard-3\":{\"ranges\":0,"));
        assertTrue("the shards serve the whole space: " + text, text.contains("\"servedShare\":1.0000"));
        assertEquals(text, 0, json.integer("configMapWrites"));
        assertEquals(text, 0, json.integer("labelledObjects"));
        assertEquals(text, 0, json.integer("notReconciledByOwner"));
        assertEquals(text, 0, json.integer("unassigned"));
        assertEquals(text, 0, json.integer("onUnavailableShards"));
        assertEquals(text, 0, json.integer("overlappingReconciles"));
        assertTrue(text, text.contains("\"ok\":true"));
    }

    /**
     * Range mode's balance scenario: costly ConfigMaps (zipf:1.1), placed by hash first, then the ring gets
     * spec.ranges.balancing and the leader's load steps even the busy times the shards report; still no
     * overlap and no ConfigMap written.
     */
    @Test
    public void rangeModeBalanceMovesRangesByLoadWithoutWritingAConfigMap() {
        Cli.Result result = result(RANGE_BALANCE);
        assertEquals(result.toString(), 0, result.exit());
        assertNoErrors(result);
        Json json = Json.parse(result.out());
        String text = json.toString();
        assertEquals(text, "balance", json.string("scenario"));
        assertEquals(text, "ranges", json.string("mode"));
        assertEquals("every object is owned by a shard serving its hash: " + text, RANGE_OBJECTS,
                json.counts("perShard").values().stream().mapToInt(Integer::intValue).sum());
        assertTrue("a load step moved objects: " + text, json.integer("moves") > 0);
        assertTrue("the leader told its steps: " + text, text.matches("(?s).*\"balancedEvents\":\\[\"moved .*"));
        assertTrue(text, text.contains("\"balanced\":true"));
        Map<String, Double> busy = json.numbers("busy");
        double mean = busy.values().stream().mapToDouble(Double::doubleValue).sum() / SHARDS;
        assertEquals("a report from each shard: " + text, SHARDS, busy.size());
        assertTrue("the busiest shard reports at most 1.25 times the mean busy time: " + text,
                busy.values().stream().allMatch(shardBusy -> shardBusy <= 1.25 * mean));
        assertEquals("what each shard's objects cost: " + text, SHARDS, json.numbers("load").size());
        assertTrue("the shards serve the whole space: " + text, text.contains("\"servedShare\":1.0000"));
        assertEquals(text, 0, json.integer("configMapWrites"));
        assertEquals(text, 0, json.integer("labelledObjects"));
        assertEquals(text, 0, json.integer("notReconciledByOwner"));
        assertEquals(text, 0, json.integer("overlappingReconciles"));
        assertTrue(text, text.contains("\"ok\":true"));
    }

    /**
     * scale-in on a ControllerRing with JOSDK shards: the sandbox counts objects by that kind's labels
     * only, and the JOSDK shard that leaves hands its objects over like a checksum shard.
     */
    @Test
    public void scaleInOfAJosdkShardOnAControllerRing() {
        Json json = scenario(SCALE_IN_JOSDK_CONTROLLER_RING);
        assertOneShardLeft(json);
    }

    @Test
    public void killShardMovesTheObjectsOfTheDeadShardOnceItsLeaseHasExpired() {
        Json json = scenario(KILL_SHARD);
        assertOneShardLeft(json);
        assertTrue("the lease expired (15 s) and went uncertain (another 15 s) first: " + json,
                json.number("scenarioSeconds") >= 30);
    }

    @Test
    public void swapStrategyRebalancesThroughDrainsToRendezvous() {
        Json json = scenario(SWAP_STRATEGY);
        Map<String, Integer> perShard = json.counts("perShard");
        assertEquals(json.toString(), List.of("shard-0", "shard-1", "shard-2"), new ArrayList<>(perShard.keySet()));
        assertTrue("consistent hashing and rendezvous place most objects differently: " + json,
                json.integer("moves") >= OBJECTS / 3);
        assertTrue(json.toString(), perShard.values().stream().allMatch(count -> count > 0));
    }

    /** Through the script: a usage error exits 2 with one line (SandboxOptionsTest has every message), and --help. */
    @Test
    public void badArgumentsAreUsageErrors() {
        Path home = Distribution.home();
        Cli.run(home, List.of("sandbox", "--scenario", "explode"))
                .assertUsageError("unknown scenario 'explode'; scenarios: scale-out|scale-in|kill-shard|swap-strategy|balance");
        Cli.Result help = Cli.run(home, List.of("sandbox", "--shards=2", "--help"));
        help.assertSucceeded();
        assertTrue(help.toString(), help.out().startsWith("usage: ringmaster sandbox"));
    }

    /**
     * bin/ringmaster sandbox runs on lib/, lib/checksum-controller/ and lib/sandbox/; the build drops from
     * the last what the second holds, so every artifact must be there once, in one version. Except flags, the
     * command-line parser, which both class paths the sandbox joins need on their own: lib/ (the launcher's, alone
     * in the sharder's image) and lib/checksum-controller/ (the example's, alone in its image) hold the same jar.
     */
    @Test
    public void theSandboxClassPathHoldsEveryArtifactOnce() throws IOException {
        Path lib = Distribution.home().resolve("lib");
        Map<String, List<String>> byArtifact = new TreeMap<>();
        for (Path folder : List.of(lib, lib.resolve("checksum-controller"), lib.resolve("sandbox"))) {
            try (Stream<Path> jars = Files.list(folder)) {
                jars.map(jar -> jar.getFileName().toString()).filter(name -> name.endsWith(".jar"))
                        .forEach(name -> byArtifact.computeIfAbsent(name.replaceFirst("-\\d.*\\.jar$", ""),
                                artifact -> new ArrayList<>()).add(folder.getFileName() + "/" + name));
            }
        }
        assertTrue(byArtifact.toString(), byArtifact.containsKey("vertx-core") && byArtifact.containsKey("sandbox"));
        Map<String, List<String>> repeated = new TreeMap<>(byArtifact);
        repeated.values().removeIf(jars -> jars.size() == 1);
        String parser = byArtifact.get("flags").get(0).replaceFirst("^lib/", "");
        assertEquals(List.of("lib/" + parser, "checksum-controller/" + parser), repeated.remove("flags"));
        assertEquals("artifacts on the sandbox's class path more than once", Map.of(), repeated);
    }

    /** Without --exit the sandbox runs, with its live view, until SIGTERM, and then takes itself down. */
    @Test
    public void withoutExitItRunsUntilSigterm() throws InterruptedException {
        Cli.Started sandbox = Cli.start(Distribution.home(), List.of("sandbox", "--shards", "2", "--objects", "20"));
        try {
            Waiting.until(Duration.ofSeconds(120),
                    () -> "the sandbox at rest, running\n" + sandbox.out() + sandbox.err(),
                    () -> sandbox.out().contains("running; stop with Ctrl-C"));
            assertTrue(sandbox.out(), sandbox.out().contains("every object is assigned and reconciled"));
            assertTrue(sandbox.out(), sandbox.out().matches("(?s).*SHARD\\s+LEASE STATE\\s+PROCESS\\s+OBJECTS.*"));
            sandbox.process().destroy();
            assertTrue("the sandbox ends within 60 s of SIGTERM", sandbox.process().waitFor(60, TimeUnit.SECONDS));
            assertNoErrors(sandbox.result());
        } finally {
            if (sandbox.process().isAlive()) {
                sandbox.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static List<String> scenarioArgs(String name, String... moreFlags) {
        List<String> args = new ArrayList<>(List.of("sandbox", "--shards", String.valueOf(SHARDS), "--objects",
                String.valueOf(OBJECTS), "--scenario", name, "--exit", "--json"));
        args.addAll(List.of(moreFlags));
        return List.copyOf(args);
    }

    /** The process of one scenario, once it has ended. */
    private static Cli.Result result(List<String> args) {
        try {
            return RUNS.get(args).get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof AssertionError failed ? failed : new AssertionError(args + " failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + args, e);
        }
    }

    /** One scenario's JSON, checked for what every scenario must show. */
    private static Json scenario(List<String> args) {
        String name = args.get(args.indexOf("--scenario") + 1);
        Cli.Result result = result(args);
        assertEquals(result.toString(), 0, result.exit());
        assertNoErrors(result);
        Json json = Json.parse(result.out());
        assertEquals(json.toString(), name, json.string("scenario"));
        assertEquals(json.toString(), SHARDS, json.integer("shards"));
        assertEquals(json.toString(), OBJECTS, json.integer("objects"));
        assertEquals("every object is on a shard: " + json, OBJECTS,
                json.counts("perShard").values().stream().mapToInt(Integer::intValue).sum());
        assertEquals(json.toString(), 0, json.integer("unassigned"));
        assertEquals(json.toString(), 0, json.integer("draining"));
        assertEquals(json.toString(), 0, json.integer("onUnavailableShards"));
        assertEquals(json.toString(), 0, json.integer("overlappingReconciles"));
        assertTrue("every object was reconciled: " + json, json.integer("reconciles") >= OBJECTS);
        assertTrue(json.toString(), json.integer("moves") > 0);
        assertTrue(json.toString(), json.toString().contains("\"ok\":true"));
        return json;
    }

    /** One of the three shards left and holds nothing; the others hold everything and are ready. */
    private static void assertOneShardLeft(Json json) {
        Map<String, Integer> perShard = json.counts("perShard");
        assertEquals(json.toString(), List.of("shard-0", "shard-1", "shard-2"), new ArrayList<>(perShard.keySet()));
        List<String> empty = perShard.entrySet().stream().filter(entry -> entry.getValue() == 0)
                .map(Map.Entry::getKey).toList();
        assertEquals("exactly the shard that left holds nothing: " + json, 1, empty.size());
        assertTrue("its lease ends dead: " + json, json.toString().contains("\"" + empty.get(0) + "\":\"dead\""));
        assertEquals("the two other shards are ready: " + json, 2,
                json.toString().split("\":\"ready\"", -1).length - 1);
        assertTrue(json.toString(), json.integer("moves") <= OBJECTS);
    }

    /** Warnings may appear on stderr (a shard announces that it gives its Lease up); errors may not. */
    private static void assertNoErrors(Cli.Result result) {
        assertFalse(result.toString(), result.err().contains("ERROR"));
        assertFalse(result.toString(), result.err().contains("Exception"));
    }
}
