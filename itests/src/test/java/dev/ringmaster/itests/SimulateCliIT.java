package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * Runs the unpacked distribution's {@code bin/ringmaster simulate} as an operator would: one JVM
 * and one Felix framework per call (about a second each, so the calls are few).
 */
public class SimulateCliIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** The reference run: 10 shards plus one, 100 000 objects, consistent hashing with its defaults. */
    private static final List<String> ADD_ONE_SHARD = List.of(
            "--strategy", "consistent-hash", "--shards", "10", "--objects", "100000", "--add", "1", "--json");

    private static Result addOneShard;

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
        Result result = ringmaster(Distribution.home(),
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

    @Test
    public void anUnknownStrategyIsAUsageError() {
        ringmaster(Distribution.home(), "simulate", "--strategy", "no-such-strategy", "--shards", "3", "--objects", "10")
                .assertUsageError("unknown strategy 'no-such-strategy'");
    }

    @Test
    public void aShardCountThatIsNoNumberIsAUsageError() {
        ringmaster(Distribution.home(), "simulate", "--strategy", "consistent-hash", "--shards", "abc", "--objects", "10")
                .assertUsageError("--shards must be a whole number");
    }

    @Test
    public void malformedWeightsAreAUsageError() {
        ringmaster(Distribution.home(), "simulate", "--strategy", "rendezvous", "--shards", "3", "--objects", "10",
                "--weights", "shard-0")
                .assertUsageError("--weights entries are NAME=WEIGHT");
    }

    /** --tokens goes through Config Admin to the strategy service: the placement must change. */
    @Test
    public void tokensReconfigureConsistentHashing() {
        List<String> args = new ArrayList<>(List.of("simulate"));
        args.addAll(ADD_ONE_SHARD);
        args.addAll(List.of("--tokens", "5"));
        Result fiveTokens = ringmaster(Distribution.home(), args);
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
        Path home = copyOfDistribution("with-jump-hash");
        Path plugin = Distribution.jumpHashPlugin();
        Files.copy(plugin, home.resolve("deploy").resolve(plugin.getFileName()));

        // shard-4 sorts last among shard-0 … shard-4, so jump hashing has to move only its share
        Result result = ringmaster(home, "simulate", "--strategy", "jump-hash", "--shards", "4", "--objects", "20000",
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

    private static synchronized Result addOneShard() {
        if (addOneShard == null) {
            List<String> args = new ArrayList<>(List.of("simulate"));
            args.addAll(ADD_ONE_SHARD);
            addOneShard = ringmaster(Distribution.home(), args);
        }
        addOneShard.assertSucceeded();
        return addOneShard;
    }

    /** A fresh copy of the unpacked distribution under target/, so that tests do not share deploy/. */
    private static Path copyOfDistribution(String name) throws IOException {
        Path source = Distribution.home();
        Path target = Distribution.work("cli").resolve(name);
        deleteRecursively(target);
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : files.toList()) {
                Path copy = target.resolve(source.relativize(file).toString());
                if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectories(copy);
                } else {
                    Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return target;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }

    private static Result ringmaster(Path home, String... args) {
        return ringmaster(home, List.of(args));
    }

    private static Result ringmaster(Path home, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin/ringmaster").toString());
        command.addAll(args);
        Path output = Distribution.work("cli");
        Path stdout;
        Path stderr;
        try {
            stdout = Files.createTempFile(output, "stdout-", ".txt");
            stderr = Files.createTempFile(output, "stderr-", ".txt");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile());
        // the JDK running the tests, whatever JAVA_HOME the build was started with
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().remove("RINGMASTER_JAVA_OPTS");
        try {
            Process process = builder.start();
            if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                fail(String.join(" ", command) + " did not finish within " + TIMEOUT.toSeconds() + " s; stderr: "
                        + Files.readString(stderr));
            }
            return new Result(command, process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
                    Files.readString(stderr, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + command, e);
        }
    }

    private record Result(List<String> command, int exit, String out, String err) {

        void assertSucceeded() {
            assertEquals(this.toString(), 0, exit);
            assertEquals(this.toString(), "", err);
        }

        /** Exit code 2 and exactly one line on stderr, which names the command and says what is wrong. */
        void assertUsageError(String message) {
            assertEquals(this.toString(), 2, exit);
            List<String> lines = err.lines().toList();
            assertEquals(this.toString(), 1, lines.size());
            assertTrue(this.toString(), lines.get(0).startsWith("ringmaster simulate:"));
            assertTrue(this.toString(), lines.get(0).contains(message));
            assertEquals(this.toString(), "", out);
        }

        @Override
        public String toString() {
            return String.join(" ", command) + " -> exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }
}
