package dev.ringmaster.bench.sharder;

import dev.ringmaster.bench.BenchArgs;
import dev.ringmaster.bench.BenchCluster;
import dev.ringmaster.kubernetes.client.EventHandlers;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.testing.apiserver.AuditLog;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntSupplier;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Scale-out and scale-in on a real API server (docs/performance.md, "Scale-out on a real API
 * server"): kube-apiserver + etcd through kube-api-test, the distribution's {@code bin/ringmaster run}
 * with the API server calling its webhook, and {@code bin/checksum-controller} processes as shards,
 * each with a ServiceAccount token of its own so the audit log tells their writes apart. N ConfigMaps
 * are created (the webhook assigns each at creation) onto three shards; once every object is settled
 * and reconciled, a fourth shard starts, and once that settled it stops (SIGTERM). Each change is
 * timed until every object is on its shard of the new ring with no drain label. With
 * {@code --failover after} two sharder replicas run, and before the scale-in the leader is killed
 * (SIGKILL) and the standby awaited; {@code --failover with} stops the shard at the moment the leader
 * is killed, so the time includes the standby's takeover. Prints a Markdown table and the writes per
 * account; exits 1 if a change did not settle. With {@code --shards bench} the bench plays the
 * shards itself ({@link BenchShards}: Leases and drain hand-backs, no reconciles) and creates every
 * ConfigMap on its shard of three, so that 100,000 objects take about 2 minutes to set up, not 23.
 * With {@code --outage SECONDS} every sharder and shard reaches the API server through one
 * {@link dev.ringmaster.testing.apiserver.ApiServerLink}, which goes down for that long as soon as the
 * scale-out drains an object; a second table gives the time from the server's return until settled.
 * With {@code --controlled true} the ring has the Secrets the ConfigMaps control as controlled resources
 * (docs/install.md's ring), and a change has settled only once every Secret is on its ConfigMap's shard too.
 */
public final class RealScaleBench {

    private static final String RING = "bench";
    private static final String NAMESPACE = "bench";
    private static final String SHARD_LABEL = RingContract.shardLabel(RING);
    private static final String DRAIN_LABEL = RingContract.drainLabel(RING);
    private static final Pattern FAILED = Pattern.compile("failed=(\\d+)");
    private static final String SECRET_PREFIX = "checksums-";
    /** The heap's generations in jcmd GC.heap_info: G1's one line, or the serial and parallel collectors' two. */
    private static final Pattern HEAP_USED = Pattern.compile(
            "(?:garbage-first heap|def new generation|tenured generation|PSYoungGen|ParOldGen)\\s+total \\d+K, used (\\d+)K");
    private static final Pattern NMT_CATEGORY = Pattern.compile("-\\s+(\\S[^(]*?) \\(reserved=\\d+KB, committed=(\\d+)KB\\)");
    private static final String SHARDER_USER = "system:serviceaccount:" + BenchCluster.SYSTEM_NAMESPACE + ":sharder";
    /** How the sharder logs a pass over the ring (its failed writes in {@code failed=}), and a pass that failed. */
    private static final String PASS = "rebalanced ClusterRing/" + RING + ": ";
    private static final String FAILED_PASS = "rebalancer: reconciling ClusterRing/" + RING + " failed";

    private final BenchArgs options;
    private final BenchCluster cluster;
    private final KubernetesClient admin;
    private final Map<Integer, Process> shards = new TreeMap<>();
    /** With {@code --shards bench}: the bench plays the shards (no processes, no Secrets). */
    private final BenchShards benchShards;
    private final StringBuilder details = new StringBuilder();
    /** The bench's view of every ConfigMap's shard and drain labels, from an informer. */
    private final Map<String, Map<String, String>> labels = new ConcurrentHashMap<>();
    /** With {@code --controlled true}: the same of every Secret, by the name of the ConfigMap controlling it. */
    private final Map<String, Map<String, String>> controlledLabels = new ConcurrentHashMap<>();
    /** Whether the ring has the Secrets its ConfigMaps control as controlled resources (docs/install.md's ring). */
    private final boolean controlled;
    /** The sharder replicas' names, for their logs. */
    private final List<String> sharders = new ArrayList<>();
    /** With {@code --outage}: when the API server came back during the change being timed, else null. */
    private Instant serverBack;
    private final StringBuilder outageRows = new StringBuilder();

    private RealScaleBench(BenchArgs options, BenchCluster cluster) {
        this.options = options;
        this.cluster = cluster;
        this.admin = cluster.admin();
        String shardKind = options.oneOf("shards", "processes", "bench");
        this.benchShards = shardKind.equals("bench")
                ? new BenchShards(cluster, RING, NAMESPACE, options.integer("hand-back-threads", 16)) : null;
        this.controlled = Boolean.parseBoolean(options.string("controlled", "false"));
        if (controlled && benchShards != null) {
            throw options.usageError("--controlled true needs --shards processes (bench shards write no Secrets)");
        }
    }

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(RealScaleBench.class, args, "objects", "dist", "work", "sharder-set",
                "sharder-jvm", "shard-jvm", "create-threads", "settle-minutes", "failover", "shards", "hand-back-threads",
                "outage", "controlled");
        boolean settled = false;
        try (BenchCluster cluster = new BenchCluster(Path.of(options.string("dist", "distribution/target/ringmaster")),
                Path.of(options.string("work", "bench/target/real-scale")),
                BenchCluster.settings(options.string("sharder-set", "")))) {
            RealScaleBench bench = new RealScaleBench(options, cluster);
            settled = bench.run();
            System.out.println();
            System.out.print(bench.details);
        } catch (Exception | Error e) {
            e.printStackTrace();
        } finally {
            System.exit(settled ? 0 : 1); // a failed run too: no thread of the clients it started keeps the JVM
        }
    }

    private boolean run() throws Exception {
        int objects = options.integer("objects", 10_000);
        // none: one replica; after: two, the scale-in once the standby leads; with: two, the scale-in as the leader dies
        String failover = options.oneOf("failover", "none", "after", "with");
        cluster.configMapRing(RING, NAMESPACE, controlled);
        int outage = options.integer("outage", 0);
        if (outage > 0) {
            cluster.link(); // before any process starts: every one reaches the API server through it
        }
        String sharderJvm = options.string("sharder-jvm", "-Xmx256m");
        Map<String, Process> replicas = new TreeMap<>();
        if (!failover.equals("none")) {
            for (String identity : List.of("sharder-a", "sharder-b")) {
                replicas.put(identity, cluster.startReplica(identity, sharderJvm));
            }
        } else {
            replicas.put("sharder", cluster.startSharder(sharderJvm));
        }
        sharders.addAll(replicas.keySet());
        for (int shard = 0; shard < 3; shard++) {
            startShard(shard);
        }
        SharedIndexInformer<ConfigMap> informer = watchLabels(admin.configMaps(), labels, name -> name);
        SharedIndexInformer<Secret> controlledInformer = controlled ? watchLabels(admin.secrets(), controlledLabels,
                name -> name.startsWith(SECRET_PREFIX) ? name.substring(SECRET_PREFIX.length()) : null) : null;
        Map<String, String> onThree = placement(BenchRing.ring(3));
        // bench shards write no Secrets: their objects are created on their shard of three, as the webhook
        // would label them, without calling it
        SharedIndexInformer<Secret> secrets = benchShards == null ? admin.secrets().inNamespace(NAMESPACE).inform() : null;
        IntSupplier reconciled = () -> secrets == null ? objects : secrets.getStore().list().size();

        Instant createStart = Instant.now();
        createConfigMaps(objects, options.integer("create-threads", 8), benchShards == null ? Map.of() : onThree);
        double createSeconds = seconds(createStart, Instant.now());
        log("created %,d ConfigMaps in %.1f s", objects, createSeconds);
        // settled and reconciled: the shards' queues are empty (each ConfigMap has its Secret), so the
        // scale-out is measured alone
        boolean settledBefore = BenchCluster.waitUntil(Duration.ofMinutes(options.integer("settle-minutes", 10)),
                () -> misplaced(onThree) == 0 && reconciled.getAsInt() == objects);
        log("on three shards: %s; misplaced %,d, reconciled %,d", settledBefore ? "settled" : "NOT settled",
                misplaced(onThree), reconciled.getAsInt());
        if (secrets != null) {
            secrets.close();
        }
        long leaderPid = replicas.get(leader(replicas)).pid();
        double heapBefore = heapAfterGcMiB(leaderPid);

        System.out.println();
        System.out.printf(Locale.ROOT, "%,d ConfigMaps created at %.0f/s; sharder heap after GC before the changes:"
                + " %.1f MiB%n%n", objects, objects / createSeconds, heapBefore);
        System.out.println("| change | moved | controlled moved | settled after s | moves/s | sharder writes/move"
                + " | shard writes/move | sharder CPU ms/move | sharder heap after GC MiB | sharder resident MiB (peak)"
                + " | sharder passes | failed writes (sharder's passes) | writes answered ≥ 400 but 409, by cause |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        boolean scaledOut = outage > 0
                ? change("scale-out 3 → 4, API server away " + outage + " s once it drains", leaderPid, 4, () -> {
                    startShard(3);
                    outage(outage);
                })
                : change("scale-out 3 → 4", leaderPid, 4, () -> startShard(3));
        Change stopShard = () -> stopShard(3);
        boolean scaledIn = switch (failover) {
            case "after" -> {
                Process standby = failOver(replicas);
                yield change("scale-in 4 → 3 (SIGTERM) once the standby leads", standby.pid(), 3, stopShard);
            }
            case "with" -> {
                String standby = replicas.keySet().stream().filter(identity -> !identity.equals(cluster.electionHolder()))
                        .findFirst().orElseThrow();
                long standbyPid = replicas.get(standby).pid();
                yield change("scale-in 4 → 3 (SIGTERM) as the leader is killed", standbyPid, 3, () -> {
                    stopShard.run();
                    failOver(replicas);
                });
            }
            default -> change("scale-in 4 → 3 (SIGTERM)", leaderPid, 3, stopShard);
        };
        if (outage > 0) {
            System.out.println();
            System.out.println("| outage s | settled after the server's return s | sharder passes after it"
                    + " | sharder's failed writes | failed passes | writes answered ≥ 400 (audit log)"
                    + " | shard Leases the sharder acquired |");
            System.out.println("|---:|---:|---:|---:|---:|---:|---|");
            System.out.print(outageRows);
        }
        informer.close();
        if (controlledInformer != null) {
            controlledInformer.close();
        }
        if (benchShards != null) {
            details.append(String.format(Locale.ROOT, "bench shards: %d hand-backs failed%n", benchShards.failures()));
            benchShards.close();
        }
        return settledBefore && scaledOut && scaledIn;
    }

    /** The identity of the replica that leads, once one does. */
    private String leader(Map<String, Process> replicas) throws InterruptedException {
        if (!BenchCluster.waitUntil(Duration.ofSeconds(60), () -> replicas.containsKey(cluster.electionHolder()))) {
            throw new IllegalStateException("no sharder replica leads; holder: " + cluster.electionHolder());
        }
        return cluster.electionHolder();
    }

    /** Kills the leader (SIGKILL: its election Lease is not released) and returns the standby once it leads. */
    private Process failOver(Map<String, Process> replicas) throws InterruptedException {
        String killed = leader(replicas);
        Process leader = replicas.remove(killed);
        leader.destroyForcibly().waitFor();
        Instant killedAt = Instant.now();
        String standby = leader(replicas);
        details.append(String.format(Locale.ROOT, "failover: %s killed (SIGKILL) at %s, %s leads %.1f s later%n",
                killed, killedAt, standby, seconds(killedAt, Instant.now())));
        return replicas.get(standby);
    }

    /** Once an object carries the drain label, the API server goes away for {@code seconds}: the link is down. */
    private void outage(int seconds) throws InterruptedException {
        boolean drains = BenchCluster.waitUntil(Duration.ofMinutes(2),
                () -> labels.values().stream().anyMatch(object -> object.get(DRAIN_LABEL) != null));
        cluster.link().down();
        Instant down = Instant.now();
        Thread.sleep(Duration.ofSeconds(seconds).toMillis());
        cluster.link().up();
        serverBack = Instant.now();
        details.append(String.format(Locale.ROOT, "API server away from %s to %s (%s)%n", down, serverBack,
                drains ? "an object was in drain" : "no drain seen within 2 minutes"));
    }

    /** One change of the fleet, timed from {@code change} until every object is on its shard of the new ring. */
    private boolean change(String name, long sharderPid, int shardsAfter, Change change) throws Exception {
        Map<String, String> after = placement(BenchRing.ring(shardsAfter));
        int toMove = misplaced(after, labels);
        int controlledToMove = controlled ? misplaced(after, controlledLabels) : 0;
        double cpuBefore = cpuSeconds(sharderPid);
        Map<String, Double> cpuByProcessBefore = cpuByProcess();
        Instant start = Instant.now();
        change.run();
        details.append(name).append(": started at ").append(start).append('\n');
        boolean settled = BenchCluster.waitUntil(Duration.ofMinutes(options.integer("settle-minutes", 10)),
                () -> misplaced(after) == 0);
        Instant settledAt = Instant.now();
        double settleSeconds = seconds(start, settledAt);
        double cpu = cpuSeconds(sharderPid) - cpuBefore;
        Map<String, Double> cpuByProcess = cpuByProcess();
        cpuByProcess.replaceAll((process, seconds) -> seconds - cpuByProcessBefore.getOrDefault(process, 0.0));
        Map<String, Long> writes = writesBetween(start, settledAt);
        int moves = toMove + controlledToMove;
        // a pass logs its summary once its writes are answered and its listing done: a moment after settled
        Thread.sleep(Math.max(0, Duration.between(Instant.now(), settledAt.plusSeconds(5)).toMillis()));
        List<String> passes = sharderLog(start, settledAt.plusSeconds(5), PASS);
        System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %.1f | %.0f | %.2f | %.2f | %.2f | %.1f | %s | %d | %d | %s |%n", name,
                toMove, controlledToMove, settleSeconds, moves / settleSeconds,
                (double) writesBy(writes, ":" + BenchCluster.SYSTEM_NAMESPACE + ":sharder ") / moves,
                (double) writesBy(writes, ":" + NAMESPACE + ":shard-") / moves, cpu * 1000 / moves,
                heapAfterGcMiB(sharderPid), residentMiB(sharderPid), passes.size(),
                passes.stream().mapToLong(RealScaleBench::failedOf).sum(), failuresByCause(writes));
        String nativeMemory = nativeMemoryMiB(sharderPid);
        if (!nativeMemory.isEmpty()) {
            details.append("the sharder's committed memory after it, MiB (Native Memory Tracking): ").append(nativeMemory)
                    .append('\n');
        }
        details.append(name).append(settled ? ": settled" : ": NOT settled, " + misplaced(after) + " misplaced")
                .append("; writes until then (user verb resource code: count):\n");
        writes.forEach((what, count) -> details.append(String.format(Locale.ROOT, "  %s: %,d%n", what, count)));
        details.append(String.format(Locale.ROOT, "CPU seconds until then (%.1f s of wall time, %d cores): %s%n",
                settleSeconds, Runtime.getRuntime().availableProcessors(), cpuByProcess.entrySet().stream()
                        .map(entry -> String.format(Locale.ROOT, "%s %.1f", entry.getKey(), entry.getValue()))
                        .reduce((a, b) -> a + ", " + b).orElse("")));
        details.append("writes per 2 s since the change started (sharder ConfigMaps/Secrets, shards ConfigMaps/Secrets):\n");
        timeline(start, settledAt).forEach(line -> details.append("  ").append(line).append('\n'));
        details.append("the sharder's passes and warnings until then:\n");
        sharderLog(start, settledAt.plusSeconds(5), PASS, " WARN ").forEach(line -> details.append("  ").append(line).append('\n'));
        if (serverBack != null) {
            outageRow(start, settledAt);
            serverBack = null;
        }
        return settled;
    }

    /**
     * The outage's row: from the server's return until settled; the sharder's passes, failed writes
     * and failed passes (attempts) from its log; writes answered with an error and the sharder's
     * updates of shard Leases (acquisitions) from the audit log.
     */
    private void outageRow(Instant start, Instant settledAt) throws IOException {
        int passes = sharderLog(serverBack, settledAt, PASS).size();
        long failedWrites = sharderLog(start, settledAt.plusSeconds(5), PASS).stream().mapToLong(RealScaleBench::failedOf).sum();
        int failedPasses = sharderLog(start, settledAt, FAILED_PASS).size();
        long answeredError = 0; // conflicts (409), and requests the outage cut off (504)
        List<String> acquired = new ArrayList<>();
        for (AuditLog.Event event : cluster.server().audit().events()) {
            if (event.received().isBefore(start) || event.received().isAfter(settledAt)) {
                continue;
            }
            answeredError += event.code() >= 400 ? 1 : 0;
            if (event.user().equals(SHARDER_USER) && event.resource().equals("leases")
                    && event.namespace().equals(NAMESPACE) && event.verb().equals("update")) {
                acquired.add(event.name()); // its state labels are patches
            }
        }
        outageRows.append(String.format(Locale.ROOT, "| %d | %.1f | %d | %d | %d | %d | %s |%n", options.integer("outage", 0),
                seconds(serverBack, settledAt), passes, failedWrites, failedPasses, answeredError,
                acquired.isEmpty() ? "none" : acquired));
        details.append("the sharders' passes, leadership and membership changes since the change started:\n");
        sharderLog(start, settledAt, PASS, "leads the sharder", "stopped leading", "available shards now")
                .forEach(line -> details.append("  ").append(line).append('\n'));
    }

    /** The sharder replicas' log lines logged in [from, to] that contain one of {@code texts}. */
    private List<String> sharderLog(Instant from, Instant to, String... texts) throws IOException {
        List<String> lines = new ArrayList<>();
        for (String sharder : sharders) {
            for (String line : Files.readAllLines(cluster.log(sharder))) {
                Instant logged;
                try {
                    logged = OffsetDateTime.parse(line.substring(0, Math.max(0, line.indexOf(' ')))).toInstant();
                } catch (DateTimeParseException notALogLine) {
                    continue;
                }
                if (!logged.isBefore(from) && !logged.isAfter(to) && List.of(texts).stream().anyMatch(line::contains)) {
                    lines.add(line);
                }
            }
        }
        return lines;
    }

    @FunctionalInterface
    private interface Change {
        void run() throws Exception;
    }

    private void startShard(int index) throws IOException {
        if (benchShards != null) {
            benchShards.start(BenchRing.shardName(index));
            return;
        }
        shards.put(index, cluster.startShard(RING, NAMESPACE, BenchRing.shardName(index),
                options.string("shard-jvm", "-Xmx256m")));
    }

    /**
     * Keeps {@code into} current with the ring's labels of every object of the namespace, by the name
     * {@code owner} gives each (null: not an object of the ring).
     */
    private static <T extends HasMetadata> SharedIndexInformer<T> watchLabels(
            MixedOperation<T, ?, ?> objects, Map<String, Map<String, String>> into, UnaryOperator<String> owner) {
        return objects.inNamespace(NAMESPACE).inform(EventHandlers.handler(object -> {
            String name = owner.apply(object.getMetadata().getName());
            if (name != null) {
                Map<String, String> all = object.getMetadata().getLabels();
                Map<String, String> ours = new LinkedHashMap<>();
                if (all != null) {
                    ours.put(SHARD_LABEL, all.get(SHARD_LABEL));
                    ours.put(DRAIN_LABEL, all.get(DRAIN_LABEL));
                }
                into.put(name, ours);
            }
        }, object -> {
            String name = owner.apply(object.getMetadata().getName());
            if (name != null) {
                into.remove(name);
            }
        }));
    }

    /** Each object's shard on {@code ring}, computed once: the settle check polls every 100 ms. */
    private Map<String, String> placement(ShardRing ring) {
        Map<String, String> placement = new HashMap<>();
        for (int i = 0; i < options.integer("objects", 10_000); i++) {
            String name = BenchRing.objectName(i);
            placement.put(name, ring.shardFor(BenchRing.key(NAMESPACE, name)).orElseThrow());
        }
        return placement;
    }

    /**
     * ConfigMaps, and with {@code --controlled true} the Secrets they control, not (yet) on their shard of
     * the placement or still in drain; objects not seen yet count.
     */
    private int misplaced(Map<String, String> placement) {
        return misplaced(placement, labels) + (controlled ? misplaced(placement, controlledLabels) : 0);
    }

    /** Objects of {@code seen} (by their ConfigMap's name) not on their ConfigMap's shard of the placement, or in drain. */
    private static int misplaced(Map<String, String> placement, Map<String, Map<String, String>> seen) {
        int misplaced = 0;
        for (Map.Entry<String, String> object : placement.entrySet()) {
            Map<String, String> current = seen.get(object.getKey());
            if (current == null || !object.getValue().equals(current.get(SHARD_LABEL))
                    || current.get(DRAIN_LABEL) != null) {
                misplaced++;
            }
        }
        return misplaced;
    }

    /** Stops a shard as Kubernetes stops a pod (SIGTERM): it releases its Lease. */
    private void stopShard(int index) {
        if (benchShards != null) {
            benchShards.stop(BenchRing.shardName(index));
        } else {
            shards.get(index).destroy();
        }
    }

    /** Creates the ConfigMaps, each labelled with its shard in {@code shardOf} if there, else unlabelled. */
    private void createConfigMaps(int objects, int threads, Map<String, String> shardOf) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> created = new ArrayList<>();
            for (int i = 0; i < objects; i++) {
                String name = BenchRing.objectName(i);
                ConfigMapBuilder configMap = new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata()
                        .addToData("value", name);
                if (shardOf.containsKey(name)) {
                    configMap.editMetadata().addToLabels(SHARD_LABEL, shardOf.get(name)).endMetadata();
                }
                created.add(pool.submit(() -> admin.configMaps().inNamespace(NAMESPACE).resource(configMap.build()).create()));
            }
            for (Future<?> future : created) {
                future.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    /** Write requests by user, verb, resource and status code, from the audit log, received in [from, to]. */
    private Map<String, Long> writesBetween(Instant from, Instant to) {
        Map<String, Long> writes = new TreeMap<>();
        for (AuditLog.Event event : cluster.server().audit().events()) {
            if (!event.received().isBefore(from) && !event.received().isAfter(to)) {
                writes.merge(String.join(" ", event.user(), event.verb(), event.resource(), Integer.toString(event.code())),
                        1L, Long::sum);
            }
        }
        return writes;
    }

    /** The {@code failed=} count of a pass summary line. */
    private static long failedOf(String passLine) {
        Matcher failed = FAILED.matcher(passLine);
        return failed.find() ? Long.parseLong(failed.group(1)) : 0;
    }

    /**
     * Writes answered with an error other than 409 (a lost race the writer reads again for), by who
     * (sharder or shards), verb, resource and code, from {@link #writesBetween}'s keys; "none" if none.
     */
    private static String failuresByCause(Map<String, Long> writes) {
        Map<String, Long> causes = new TreeMap<>();
        writes.forEach((what, count) -> {
            String[] parts = what.split(" "); // user verb resource code
            int code = Integer.parseInt(parts[3]);
            if (code >= 400 && code != 409) {
                String who = parts[0].contains(":" + NAMESPACE + ":shard-") ? "shards" : parts[0].substring(parts[0].lastIndexOf(':') + 1);
                causes.merge(who + " " + parts[1] + " " + parts[2] + " " + code, count, Long::sum);
            }
        });
        return causes.isEmpty() ? "none" : causes.entrySet().stream().map(cause -> cause.getKey() + ": " + cause.getValue())
                .reduce((a, b) -> a + ", " + b).orElseThrow();
    }

    private static long writesBy(Map<String, Long> writes, String userPart) {
        return writes.entrySet().stream().filter(entry -> (entry.getKey()).contains(userPart))
                .mapToLong(Map.Entry::getValue).sum();
    }

    /** Heap in use right after a full collection, from jcmd (every generation's). */
    private static double heapAfterGcMiB(long pid) throws Exception {
        BenchCluster.exec(List.of(jcmd(), Long.toString(pid), "GC.run"));
        Matcher used = HEAP_USED.matcher(BenchCluster.exec(List.of(jcmd(), Long.toString(pid), "GC.heap_info")));
        long usedKiB = 0;
        boolean found = false;
        while (used.find()) {
            usedKiB += Long.parseLong(used.group(1));
            found = true;
        }
        if (!found) {
            throw new IllegalStateException("no heap figure from jcmd GC.heap_info");
        }
        return usedKiB / 1024.0;
    }

    /** Resident memory now and its peak so far ({@code VmRSS}, {@code VmHWM} of /proc), "now (peak)" in MiB. */
    private static String residentMiB(long pid) throws IOException {
        Map<String, Long> kiB = new TreeMap<>();
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            String[] field = line.split(":\\s+");
            if (field[0].equals("VmRSS") || field[0].equals("VmHWM")) {
                kiB.put(field[0], Long.parseLong(field[1].replace(" kB", "")));
            }
        }
        return String.format(Locale.ROOT, "%.0f (%.0f)", kiB.get("VmRSS") / 1024.0, kiB.get("VmHWM") / 1024.0);
    }

    /**
     * Committed memory by Native Memory Tracking's categories (heap, class metadata, threads, code cache,
     * GC, ...), in MiB, when the sharder runs with {@code -XX:NativeMemoryTracking=summary} (in
     * {@code --sharder-jvm}); empty otherwise.
     */
    private static String nativeMemoryMiB(long pid) throws Exception {
        Matcher category = NMT_CATEGORY.matcher(BenchCluster.exec(List.of(jcmd(), Long.toString(pid), "VM.native_memory", "summary")));
        List<String> committed = new ArrayList<>();
        while (category.find()) {
            long kiB = Long.parseLong(category.group(2));
            if (kiB >= 1024) {
                committed.add(String.format(Locale.ROOT, "%s %.1f", category.group(1).trim(), kiB / 1024.0));
            }
        }
        return String.join(", ", committed);
    }

    private static String jcmd() {
        return Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    }

    /**
     * CPU seconds used so far by this run's processes: the sharder replicas, the shards, kube-apiserver,
     * etcd and the bench itself; and by the whole machine ({@code /proc/stat}), whose difference to the
     * sum is what else ran meanwhile.
     */
    private Map<String, Double> cpuByProcess() throws IOException {
        for (ProcessHandle process : ProcessHandle.current().descendants().toList()) {
            String command = process.info().command().orElse("");
            String name = command.endsWith("/kube-apiserver") ? "kube-apiserver" : command.endsWith("/etcd") ? "etcd"
                    : shards.entrySet().stream().filter(shard -> shard.getValue().pid() == process.pid())
                            .map(shard -> BenchRing.shardName(shard.getKey())).findFirst()
                            .orElse(command.endsWith("/java") ? "sharder" : null);
            if (name != null) {
                try {
                    processCpu.put(process.pid(), Map.entry(name, cpuSeconds(process.pid())));
                } catch (IOException gone) {
                    // ended meanwhile: its last figure stays
                }
            }
        }
        Map<String, Double> cpu = new TreeMap<>();
        processCpu.values().forEach(last -> cpu.merge(last.getKey(), last.getValue(), Double::sum));
        cpu.put("bench", cpuSeconds(ProcessHandle.current().pid()));
        String[] total = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        double busy = 0; // user nice system irq softirq steal, not idle or iowait
        for (int field : new int[] {1, 2, 3, 6, 7, 8}) {
            busy += Long.parseLong(total[field]) / 100.0;
        }
        cpu.put("machine", busy);
        return cpu;
    }

    /** The last CPU seconds seen of each process {@link #cpuByProcess} counted, by pid, with its group's name. */
    private final Map<Long, Map.Entry<String, Double>> processCpu = new ConcurrentHashMap<>();

    /** The writes of the change in 2 s steps: the sharder's and the shards', on ConfigMaps and Secrets. */
    private List<String> timeline(Instant from, Instant to) {
        TreeMap<Long, long[]> steps = new TreeMap<>();
        for (AuditLog.Event event : cluster.server().audit().events()) {
            if (event.received().isBefore(from) || event.received().isAfter(to) || event.code() >= 300) {
                continue;
            }
            int column = (event.user().equals(SHARDER_USER) ? 0 : event.user().contains(":" + NAMESPACE + ":shard-") ? 2 : -1);
            int resource = event.resource().equals("configmaps") ? 0 : event.resource().equals("secrets") ? 1 : -1;
            if (column >= 0 && resource >= 0) {
                steps.computeIfAbsent(Duration.between(from, event.received()).toSeconds() / 2 * 2, step -> new long[4])
                        [column + resource]++;
            }
        }
        return steps.entrySet().stream().map(step -> String.format(Locale.ROOT, "%3d s: %4d %4d %4d %4d", step.getKey(),
                step.getValue()[0], step.getValue()[1], step.getValue()[2], step.getValue()[3])).toList();
    }

    /** User + system CPU time of a process (Linux /proc, in clock ticks of 1/100 s). */
    private static double cpuSeconds(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
    }

    private static double seconds(Instant from, Instant to) {
        return Duration.between(from, to).toMillis() / 1000.0;
    }

    private static void log(String format, Object... args) {
        System.out.println(Instant.now() + " " + String.format(Locale.ROOT, format, args));
    }
}
