package dev.ringmaster.bench.sharder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ringmaster.bench.BenchArgs;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs the sharder scale benchmark: for each size, a {@link MockCluster} JVM (large heap) and a
 * {@link SharderRun} JVM (capped heap) against it; prints a table and exits 0 only if every run
 * settled (checked by the cluster: every object on its desired shard, no drain left) and the sharder's
 * heap after the largest and the smallest size differ by at most {@code --goal-mib} (default 16).
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.ringmaster.bench.sharder.ScaleBench
 *     [--sizes 10000,100000] [--sharder-heap 96m] [--cluster-heap 2g] [--goal-mib 16]
 *     [--move-budget N] [--pending-retry-ms 5000] [--concurrent-moves 100] [--page-size 500]
 *     [--ack-delay-ms 0] [--initial 3-shards|unlabelled] [--logs DIR] [--max-seconds 600] [--cluster-minutes 15]
 *     [--sharder-jvm "extra JVM options"] [--cluster-jvm "extra JVM options"] [--http1 true]
 *     [--sharder-cp-prefix DIR] (class path entries ahead of the jar, e.g. to try a patched sharder class)
 * </pre>
 * Without {@code --move-budget} the budget is the number of objects, so one pass drains everything.
 * Logs of both processes go to {@code --logs} (default: {@code sharder-bench/} next to the jar).
 */
public final class ScaleBench {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ScaleBench() {
    }

    private record Run(int objects, JsonNode cluster, JsonNode sharder, JsonNode verify) {
    }

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(ScaleBench.class, args, "sizes", "sharder-heap", "cluster-heap", "goal-mib",
                "move-budget", "pending-retry-ms", "concurrent-moves", "page-size", "ack-delay-ms", "initial", "logs",
                "max-seconds", "cluster-minutes", "sharder-jvm", "cluster-jvm", "http1", "sharder-cp-prefix");
        List<Integer> sizes = new ArrayList<>();
        for (String size : options.string("sizes", "10000,100000").split(",")) {
            sizes.add(Integer.parseInt(size.trim().replace("_", "")));
        }
        String sharderHeap = options.string("sharder-heap", "96m");
        String clusterHeap = options.string("cluster-heap", "2g");
        double goal = options.decimal("goal-mib", 16);
        Path jarDirectory = Path.of(ScaleBench.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParent();
        Path logs = Path.of(options.string("logs", jarDirectory.resolve("sharder-bench").toString()));
        Files.createDirectories(logs);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = System.getProperty("java.class.path");

        List<Run> runs = new ArrayList<>();
        for (int objects : sizes) {
            System.out.printf(Locale.ROOT, "== %,d objects (load average: %s)%n", objects, loadAverage());
            List<String> clusterCommand = new ArrayList<>(List.of(java, "-Xmx" + clusterHeap, "-XX:+UseG1GC",
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
            clusterCommand.addAll(jvmOptions(options.string("cluster-jvm", ""), objects));
            clusterCommand.addAll(List.of("-cp", classPath, MockCluster.class.getName(),
                    "--objects", Integer.toString(objects), "--minutes", options.string("cluster-minutes", "15"),
                    "--ack-delay-ms", options.string("ack-delay-ms", "0"), "--initial", options.string("initial", "3-shards")));
            Process cluster = new ProcessBuilder(clusterCommand)
                    .redirectError(logs.resolve("cluster-" + objects + ".log").toFile()).start();
            try {
                BlockingQueue<String> clusterLines = lines(cluster);
                Writer clusterCommands = new OutputStreamWriter(cluster.getOutputStream(), StandardCharsets.UTF_8);
                JsonNode ready = JSON.readTree(next(cluster, clusterLines, 300, "the mock cluster to start"));
                System.out.println("cluster: " + ready);

                List<String> sharderCommand = new ArrayList<>(List.of(java, "-Xmx" + sharderHeap, "-XX:+UseG1GC",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=info"));
                sharderCommand.addAll(jvmOptions(options.string("sharder-jvm", ""), objects));
                String prefix = options.string("sharder-cp-prefix", "");
                sharderCommand.addAll(List.of("-cp", prefix.isEmpty() ? classPath : prefix + File.pathSeparator + classPath,
                        SharderRun.class.getName(),
                        "--url", ready.get("url").asText(),
                        "--move-budget", options.string("move-budget", Integer.toString(objects)),
                        "--pending-retry-ms", options.string("pending-retry-ms", "5000"),
                        "--concurrent-moves", options.string("concurrent-moves", "100"),
                        "--page-size", options.string("page-size", "500"),
                        "--max-seconds", options.string("max-seconds", "600"),
                        "--http1", options.string("http1", "false")));
                Process sharder = new ProcessBuilder(sharderCommand)
                        .redirectError(logs.resolve("sharder-" + objects + ".log").toFile()).start();
                String line;
                try {
                    line = next(sharder, lines(sharder), 660, "the sharder to settle");
                    sharder.waitFor(30, TimeUnit.SECONDS);
                } finally {
                    sharder.destroy();
                }
                JsonNode result = JSON.readTree(line);
                System.out.println("sharder: " + line);

                clusterCommands.write("verify\n");
                clusterCommands.flush();
                JsonNode verify = JSON.readTree(next(cluster, clusterLines, 60, "the cluster's verification"));
                System.out.println("verify: " + verify);
                clusterCommands.close();
                cluster.waitFor(30, TimeUnit.SECONDS);
                runs.add(new Run(objects, ready, result, verify));
                System.out.println("load average after the run: " + loadAverage());
            } finally {
                cluster.destroy();
                cluster.waitFor(30, TimeUnit.SECONDS);
            }
        }

        System.out.println();
        System.out.println("| objects | moved (drain + assign) | first pass s | first pass writes/s | settle s | writes/s | passes"
                + " | heap before MiB | heap after MiB | max after GC during passes MiB | GCs | sharder CPU s"
                + " | cluster CPU s | machine busy % | settled |");
        System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|");
        for (Run run : runs) {
            JsonNode s = run.sharder();
            System.out.printf(Locale.ROOT, "| %,d | %,d + %,d | %.1f | %,d | %.1f | %,d | %d | %.1f | %.1f | %.1f | %d | %.1f | %.1f | %s | %s |%n",
                    run.objects(), s.get("drained").asLong(), s.get("assigned").asLong(),
                    s.get("firstPassSeconds").asDouble(), s.get("firstPassWritesPerSecond").asLong(),
                    s.get("settleSeconds").asDouble(), s.get("writesPerSecond").asLong(), s.get("passes").size(),
                    s.get("heapBeforeMiB").asDouble(), s.get("heapAfterMiB").asDouble(),
                    s.get("maxHeapAfterGcDuringPassesMiB").asDouble(), s.get("gcCount").asLong(),
                    s.get("sharderCpuSeconds").asDouble(), run.verify().get("clusterCpuSecondsSinceReady").asDouble(),
                    s.path("machineBusyPercent").asText("?"),
                    run.verify().get("settled").asBoolean() && s.get("settled").asBoolean() ? "yes" : "NO");
        }
        boolean allSettled = runs.stream().allMatch(run -> run.verify().get("settled").asBoolean()
                && run.sharder().get("settled").asBoolean());
        Run smallest = runs.stream().min(Comparator.comparingInt(Run::objects)).orElseThrow();
        Run largest = runs.stream().max(Comparator.comparingInt(Run::objects)).orElseThrow();
        double difference = largest.sharder().get("heapAfterMiB").asDouble() - smallest.sharder().get("heapAfterMiB").asDouble();
        boolean withinGoal = Math.abs(difference) <= goal;
        System.out.printf(Locale.ROOT, "%nheap after %,d objects minus after %,d: %.1f MiB (goal: at most %.0f MiB) -> %s%n",
                largest.objects(), smallest.objects(), difference, goal, withinGoal ? "met" : "MISSED");
        System.out.println("every run settled: " + (allSettled ? "yes" : "NO") + "; logs in " + logs);
        System.exit(withinGoal && allSettled ? 0 : 1);
    }

    /** The 1, 5 and 15 minute load averages (Linux), to judge how busy the machine was. */
    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (Exception e) {
            return "unknown";
        }
    }

    /** Extra JVM options, space-separated; {@code {n}} stands for the number of objects (e.g. in a JFR file name). */
    private static List<String> jvmOptions(String options, int objects) {
        List<String> list = new ArrayList<>();
        for (String option : options.trim().split("\\s+")) {
            if (!option.isEmpty()) {
                list.add(option.replace("{n}", Integer.toString(objects)));
            }
        }
        return list;
    }

    /** The process's stdout, line by line, read on a daemon thread. */
    private static BlockingQueue<String> lines(Process process) {
        BlockingQueue<String> lines = new ArrayBlockingQueue<>(64);
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (line.startsWith("{")) {
                        lines.put(line);
                    } else {
                        System.out.println("  " + line);
                    }
                }
            } catch (Exception e) {
                // the process ended
            }
        }, "bench-output");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    /** The next JSON line of the process; fails once it has exited without one or after {@code seconds}. */
    private static String next(Process process, BlockingQueue<String> lines, int seconds, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line != null) {
                return line;
            }
            if (!process.isAlive()) {
                line = lines.poll(1, TimeUnit.SECONDS);
                if (line != null) {
                    return line;
                }
                throw new IllegalStateException("the process ended (exit " + process.exitValue() + ") before " + what
                        + "; see its log");
            }
        }
        throw new IllegalStateException("gave up waiting " + seconds + " s for " + what);
    }
}
