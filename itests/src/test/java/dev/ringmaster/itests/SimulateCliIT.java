package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.Distribution;
import dev.ringmaster.itests.support.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.Test;

/**
 * Runs the unpacked distribution's {@code bin/ringmaster simulate} as an operator would: one JVM
 * and one Felix framework per call (about a second each, so the calls are few).
 */
public class SimulateCliIT {

    /** The reference run: 10 shards plus one, 100 000 objects, consistent hashing with its defaults. */
    private static final List<String> ADD_ONE_SHARD = List.of(
            "--strategy", "consistent-hash", "--shards", "10", "--objects", "100000", "--add", "1", "--json");

    private static Cli.Result addOneShard;

    @Test
    public void addingAShardReportsBalanceAndMovementAsJson() {
        Json json = Json.parse(addOneShard().out());
        assertEquals("consistent-hash", json.string("strategy"));
        assertEquals(10, json.integer("shardsBefore"));
        assertEquals(11, json.integer("shardsAfter"));
        assertEquals(100_000, json.integer("objects"));
        Map<String, Integer> perShard = json.counts("perShard");
        assertEquals(11, perShard.size());
        for (int i = 0; i < 11; i++) {
            assertTrue(json.toString(), perShard.containsKey("shard-" + i));
        }
        assertEquals(100_000, perShard.values().stream().mapToInt(Integer::intValue).sum());
        double peakToMean = json.number("peakToMean");
        double minToMean = json.number("minToMean");
        assertTrue(json.toString(), peakToMean >= 1.0 && peakToMean < 2.0);
        assertTrue(json.toString(), minToMean > 0.0 && minToMean <= 1.0);
        double moved = json.number("movedFraction");
        assertTrue("about 1/11 of the objects move, got " + moved, moved >= 0.07 && moved <= 0.11);
        assertEquals(1.0 / 11, json.number("optimalMovedFraction"), 1e-6);
    }

    @Test
    public void withoutJsonATableIsPrinted() {
        Cli.Result result = ringmaster(Distribution.home(),
                "simulate", "--strategy", "rendezvous", "--shards", "4", "--objects", "10000");
        result.assertSucceeded();
        List<String> lines = result.out().lines().toList();
        assertTrue(result.toString(), lines.get(0).startsWith("strategy rendezvous: 4 -> 4 shards, 10000 objects"));
        int header = lines.indexOf(lines.stream()
                .filter(line -> line.matches("SHARD\\s+OBJECTS\\s+SHARE"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no SHARD/OBJECTS/SHARE header in\n" + result)));
        Pattern row = Pattern.compile("(shard-\\d+)\\s+(\\d+)\\s+(\\d+\\.\\d{2})%");
        Map<String, Integer> rows = new LinkedHashMap<>();
        for (String line : lines.subList(header + 1, lines.size())) {
            Matcher matcher = row.matcher(line);
            assertTrue("table row: '" + line + "'", matcher.matches());
            rows.put(matcher.group(1), Integer.valueOf(matcher.group(2)));
        }
        assertEquals(List.of("shard-0", "shard-1", "shard-2", "shard-3"), new ArrayList<>(rows.keySet()));
        assertEquals(10_000, rows.values().stream().mapToInt(Integer::intValue).sum());
    }

    /**
     * A usage error, end to end: exit code and message. The flags' own checks (numbers, weights, ranges) are
     * SimulationOptionsTest's; the errors here need the framework (which strategies are deployed, their settings).
     */
    @Test
    public void anUnknownStrategyIsAUsageError() {
        ringmaster(Distribution.home(), "simulate", "--strategy", "no-such-strategy", "--shards", "3", "--objects", "10")
                .assertUsageError("unknown strategy 'no-such-strategy'");
    }

    @Test
    public void flagsTakeTheirValueAfterAnEqualsSignAndHelpPrintsTheUsage() {
        Cli.Result result = ringmaster(Distribution.home(), "simulate", "--strategy=rendezvous", "--shards=4",
                "--objects=1000", "--json");
        result.assertSucceeded();
        assertEquals(1000, Json.parse(result.out()).integer("objects"));
        ringmaster(Distribution.home(), "simulate", "--strategy=rendezvous", "--shards=4", "--objects=lots")
                .assertUsageError("--objects must be a whole number from 1 to 100000000, not 'lots'"
                        + " (see ringmaster simulate --help)");
        Cli.Result help = ringmaster(Distribution.home(), "simulate", "--shards=4", "-h");
        help.assertSucceeded();
        assertTrue(help.toString(), help.out().startsWith("usage: ringmaster simulate"));
    }

    /** --tokens goes through Config Admin to the strategy service: the placement must change. */
    @Test
    public void tokensReconfigureConsistentHashing() {
        List<String> args = new ArrayList<>(List.of("simulate"));
        args.addAll(ADD_ONE_SHARD);
        args.addAll(List.of("--tokens", "5"));
        Cli.Result fiveTokens = ringmaster(Distribution.home(), args);
        fiveTokens.assertSucceeded();
        Json json = Json.parse(fiveTokens.out());
        assertEquals("consistent-hash", json.string("strategy"));
        assertEquals(100_000, json.counts("perShard").values().stream().mapToInt(Integer::intValue).sum());
        Json defaults = Json.parse(addOneShard().out());
        assertNotEquals("5 tokens per shard distribute differently from the default 100",
                defaults.counts("perShard"), json.counts("perShard"));
        assertTrue("5 tokens per shard balance worse than 100: " + json + " vs " + defaults,
                json.number("peakToMean") > defaults.number("peakToMean"));
    }

    @Test
    public void tokensOnAStrategyWithoutThatSettingIsAUsageError() {
        ringmaster(Distribution.home(), "simulate", "--strategy", "rendezvous", "--shards", "3", "--objects", "10",
                "--tokens", "5")
                .assertUsageError("has no tokensPerShard setting");
    }

    /** A third-party strategy dropped into deploy/ of (a copy of) the distribution can be simulated. */
    @Test
    public void aStrategyPluginInDeployIsSimulated() throws IOException {
        Path home = Distribution.copy("with-jump-hash");
        Path plugin = Distribution.jumpHashPlugin();
        Files.copy(plugin, home.resolve("deploy").resolve(plugin.getFileName()));

        // shard-4 sorts last among shard-0 … shard-4, so jump hashing has to move only its share
        Cli.Result result = ringmaster(home, "simulate", "--strategy", "jump-hash", "--shards", "4", "--objects", "20000",
                "--add", "1", "--json");
        result.assertSucceeded();
        Json json = Json.parse(result.out());
        assertEquals("jump-hash", json.string("strategy"));
        assertEquals(4, json.integer("shardsBefore"));
        assertEquals(5, json.integer("shardsAfter"));
        assertEquals(20_000, json.counts("perShard").values().stream().mapToInt(Integer::intValue).sum());
        double moved = json.number("movedFraction");
        assertTrue("jump hash moves about 1/5 when a fifth shard is added, got " + moved, moved >= 0.17 && moved <= 0.23);
        assertTrue("the shipped distribution itself stays without plug-ins",
                Distribution.jarsInDeployOfShippedDistribution().isEmpty());
    }

    private static synchronized Cli.Result addOneShard() {
        if (addOneShard == null) {
            List<String> args = new ArrayList<>(List.of("simulate"));
            args.addAll(ADD_ONE_SHARD);
            addOneShard = ringmaster(Distribution.home(), args);
        }
        addOneShard.assertSucceeded();
        return addOneShard;
    }

    private static Cli.Result ringmaster(Path home, String... args) {
        return Cli.run(home, List.of(args));
    }

    private static Cli.Result ringmaster(Path home, List<String> args) {
        return Cli.run(home, args);
    }
}
