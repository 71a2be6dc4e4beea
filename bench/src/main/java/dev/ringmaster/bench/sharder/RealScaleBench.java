package dev.ringmaster.bench.sharder;

import dev.ringmaster.bench.BenchCluster;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.testing.apiserver.AuditLog;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntSupplier;
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
 */
public final class RealScaleBench {

    private static final String RING = "bench";
    private static final String NAMESPACE = "bench";
    private static final String SHARD_LABEL = RingContract.shardLabel(RING);
    private static final String DRAIN_LABEL = RingContract.drainLabel(RING);
    private static final Pattern HEAP_USED = Pattern.compile("garbage-first heap\\s+total \\d+K, used (\\d+)K");
    private static final String SHARDER_USER = "system:serviceaccount:" + BenchCluster.SYSTEM_NAMESPACE + ":sharder";
    /** How the sharder logs a pass over the ring, a failed write of one, and a pass that failed. */
    private static final String PASS = "rebalanced ClusterRing/" + RING + ": ";
    private static final String FAILED_WRITE = "ClusterRing/" + RING + ": moving ";
    private static final String FAILED_PASS = "rebalancer: reconciling ClusterRing/" + RING + " failed";

    private final MockCluster.Args options;
    private final BenchCluster cluster;
    private final KubernetesClient admin;
    private final Map<Integer, Process> shards = new TreeMap<>();
    /** With {@code --shards bench}: the bench plays the shards (no processes, no Secrets). */
    private final BenchShards benchShards;
    private final StringBuilder details = new StringBuilder();
    /** The bench's view of every ConfigMap's shard and drain labels, from an informer. */
    private final Map<String, Map<String, String>> labels = new ConcurrentHashMap<>();
    /** The sharder replicas' names, for their logs. */
    private final List<String> sharders = new ArrayList<>();
    /** With {@code --outage}: when the API server came back during the change being timed, else null. */
    private Instant serverBack;
    private final StringBuilder outageRows = new StringBuilder();

    private RealScaleBench(MockCluster.Args options, BenchCluster cluster) {
        this.options = options;
        this.cluster = cluster;
        this.admin = cluster.admin();
        String shardKind = options.string("shards", "processes");
        if (!List.of("processes", "bench").contains(shardKind)) {
            throw new IllegalArgumentException("--shards processes|bench, not " + shardKind);
        }
        this.benchShards = shardKind.equals("bench")
                ? new BenchShards(cluster, RING, NAMESPACE, options.integer("hand-back-threads", 16)) : null;
    }

    public static void main(String[] args) throws Exception {
        MockCluster.Args options = new MockCluster.Args(args);
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
        String failover = options.string("failover", "none");
        if (!List.of("none", "after", "with").contains(failover)) {
            throw new IllegalArgumentException("--failover none|after|with, not " + failover);
        }
        cluster.configMapRing(RING, NAMESPACE);
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
        SharedIndexInformer<ConfigMap> informer = watchLabels();
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
        System.out.println("| change | moved | settled after s | moves/s | sharder writes/move | shard writes/move"
                + " | sharder CPU ms/move | sharder heap after GC MiB |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
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
        int toMove = misplaced(after);
        double cpuBefore = cpuSeconds(sharderPid);
        Instant start = Instant.now();
        change.run();
        details.append(name).append(": started at ").append(start).append('\n');
        boolean settled = BenchCluster.waitUntil(Duration.ofMinutes(options.integer("settle-minutes", 10)), () -> misplaced(after) == 0);
        Instant settledAt = Instant.now();
        double settleSeconds = seconds(start, settledAt);
        double cpu = cpuSeconds(sharderPid) - cpuBefore;
        Map<String, Long> writes = writesBetween(start, settledAt);
        System.out.printf(Locale.ROOT, "| %s | %,d | %.1f | %.0f | %.2f | %.2f | %.2f | %.1f |%n", name, toMove,
                settleSeconds, toMove / settleSeconds, (double) writesBy(writes, ":" + BenchCluster.SYSTEM_NAMESPACE + ":sharder ") / toMove,
                (double) writesBy(writes, ":" + NAMESPACE + ":shard-") / toMove, cpu * 1000 / toMove,
                heapAfterGcMiB(sharderPid));
        details.append(name).append(settled ? ": settled" : ": NOT settled, " + misplaced(after) + " misplaced")
                .append("; writes until then (user verb resource code: count):\n");
        writes.forEach((what, count) -> details.append(String.format(Locale.ROOT, "  %s: %,d%n", what, count)));
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
        int failedWrites = sharderLog(start, settledAt, FAILED_WRITE).size();
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

    private SharedIndexInformer<ConfigMap> watchLabels() {
        SharedIndexInformer<ConfigMap> informer = admin.configMaps().inNamespace(NAMESPACE).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap configMap) {
                record(configMap);
            }

            @Override
            public void onUpdate(ConfigMap before, ConfigMap configMap) {
                record(configMap);
            }

            @Override
            public void onDelete(ConfigMap configMap, boolean finalStateUnknown) {
                labels.remove(configMap.getMetadata().getName());
            }
        });
        return informer;
    }

    private void record(ConfigMap configMap) {
        Map<String, String> all = configMap.getMetadata().getLabels();
        Map<String, String> ours = new LinkedHashMap<>();
        if (all != null) {
            ours.put(SHARD_LABEL, all.get(SHARD_LABEL));
            ours.put(DRAIN_LABEL, all.get(DRAIN_LABEL));
        }
        labels.put(configMap.getMetadata().getName(), ours);
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

    /** Objects not (yet) on their shard of the placement, or still in drain; objects not seen yet count. */
    private int misplaced(Map<String, String> placement) {
        int misplaced = 0;
        for (Map.Entry<String, String> object : placement.entrySet()) {
            Map<String, String> current = labels.get(object.getKey());
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

    private static long writesBy(Map<String, Long> writes, String userPart) {
        return writes.entrySet().stream().filter(entry -> (entry.getKey()).contains(userPart))
                .mapToLong(Map.Entry::getValue).sum();
    }

    /** Heap in use right after a full collection, from jcmd. */
    private static double heapAfterGcMiB(long pid) throws Exception {
        BenchCluster.exec(List.of(jcmd(), Long.toString(pid), "GC.run"));
        Matcher used = HEAP_USED.matcher(BenchCluster.exec(List.of(jcmd(), Long.toString(pid), "GC.heap_info")));
        if (!used.find()) {
            throw new IllegalStateException("no G1 heap figure from jcmd GC.heap_info");
        }
        return Long.parseLong(used.group(1)) / 1024.0;
    }

    private static String jcmd() {
        return Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
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
