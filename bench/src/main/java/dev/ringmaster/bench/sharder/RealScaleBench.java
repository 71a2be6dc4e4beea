package dev.ringmaster.bench.sharder;

import dev.ringmaster.bench.BenchCertificate;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.testing.apiserver.AuditLog;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Scale-out on a real API server (docs/performance.md, "Scale-out on a real API server"):
 * kube-apiserver + etcd through kube-api-test, the distribution's {@code bin/ringmaster run} with
 * the API server calling its webhook, and {@code bin/checksum-controller} processes as shards, each
 * with a ServiceAccount token of its own so the audit log tells their writes apart. N ConfigMaps are
 * created (the webhook assigns each at creation) onto three shards; once every object is settled, a
 * fourth shard starts and the clock runs until every object is on its shard of the four-shard ring
 * with no drain label. Prints one Markdown table row and the details; exits 1 if it did not settle.
 */
public final class RealScaleBench {

    private static final String RING = "bench";
    private static final String NAMESPACE = "bench";
    private static final String SYSTEM_NAMESPACE = "sharding-system";
    private static final String SHARD_LABEL = RingContract.shardLabel(RING);
    private static final String DRAIN_LABEL = RingContract.drainLabel(RING);
    private static final String CRD = "manifests/crd/clusterrings.sharding.timebertt.dev-v1.yml";
    private static final Pattern HEAP_USED = Pattern.compile("garbage-first heap\\s+total \\d+K, used (\\d+)K");

    private final MockCluster.Args options;
    private final RealApiServer server;
    private final KubernetesClient admin;
    private final Path work;
    private final List<Process> processes = new ArrayList<>();
    /** The bench's view of every ConfigMap's shard and drain labels, from an informer. */
    private final Map<String, Map<String, String>> labels = new ConcurrentHashMap<>();

    private RealScaleBench(MockCluster.Args options) throws IOException {
        this.options = options;
        this.work = Files.createDirectories(Path.of(options.string("work", "bench/target/real-scale")));
        this.server = RealApiServer.shared();
        this.admin = server.admin();
    }

    public static void main(String[] args) throws Exception {
        RealScaleBench bench = new RealScaleBench(new MockCluster.Args(args));
        boolean settled;
        try {
            settled = bench.run();
        } finally {
            bench.processes.forEach(process -> process.destroy());
            for (Process process : bench.processes) {
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
        System.exit(settled ? 0 : 1);
    }

    private boolean run() throws Exception {
        int objects = options.integer("objects", 10_000);
        Path home = copyDistribution(Path.of(options.string("dist", "distribution/target/ringmaster")));
        install(home);
        long sharderPid = startSharder(home);
        for (int shard = 0; shard < 3; shard++) {
            startShard(home, shard);
        }
        SharedIndexInformer<ConfigMap> informer = watchLabels();
        SharedIndexInformer<Secret> secrets = admin.secrets().inNamespace(NAMESPACE).inform();

        Instant createStart = Instant.now();
        createConfigMaps(objects, options.integer("create-threads", 8));
        double createSeconds = seconds(createStart, Instant.now());
        log("created %,d ConfigMaps in %.1f s", objects, createSeconds);
        // settled and reconciled: the shards' queues are empty (each ConfigMap has its Secret), so the
        // scale-out is measured alone
        boolean settledBefore = waitUntil(Duration.ofMinutes(options.integer("settle-minutes", 10)),
                () -> misplaced(BenchRing.ring(3)) == 0 && secrets.getStore().list().size() == objects);
        log("on three shards: %s; misplaced %,d, Secrets %,d", settledBefore ? "settled" : "NOT settled",
                misplaced(BenchRing.ring(3)), secrets.getStore().list().size());
        secrets.close();
        double heapBefore = heapAfterGcMiB(sharderPid);
        double cpuBefore = cpuSeconds(sharderPid);

        Instant scaleOut = Instant.now();
        ShardRing after = BenchRing.ring(4);
        int toMove = misplaced(after);
        startShard(home, 3);
        boolean settled = waitUntil(Duration.ofMinutes(options.integer("settle-minutes", 10)), () -> misplaced(after) == 0);
        Instant settledAt = Instant.now();
        double settleSeconds = seconds(scaleOut, settledAt);
        double cpu = cpuSeconds(sharderPid) - cpuBefore;
        double heapAfter = heapAfterGcMiB(sharderPid);
        informer.close();

        Map<String, Long> writes = writesBetween(scaleOut, settledAt);
        long sharderWrites = writesBy(writes, ":" + SYSTEM_NAMESPACE + ":sharder ");
        long shardWrites = writesBy(writes, ":" + NAMESPACE + ":shard-");
        System.out.println();
        System.out.println("| objects | moved | settled after s | moves/s | sharder writes/move | shard writes/move"
                + " | sharder CPU ms/move | sharder heap after GC MiB (3 shards → 4) | created/s |");
        System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        System.out.printf(Locale.ROOT, "| %,d | %,d | %.1f | %.0f | %.2f | %.2f | %.2f | %.1f → %.1f | %.0f |%n",
                objects, toMove, settleSeconds, toMove / settleSeconds, (double) sharderWrites / toMove,
                (double) shardWrites / toMove, cpu * 1000 / toMove, heapBefore, heapAfter, objects / createSeconds);
        System.out.println("writes from the fourth shard's start until settled (user verb resource code: count):");
        writes.forEach((what, count) -> System.out.printf(Locale.ROOT, "  %s: %,d%n", what, count));
        System.out.println(settled ? "settled" : "NOT settled: " + misplaced(after) + " objects misplaced");
        return settledBefore && settled;
    }

    /** A copy of the distribution whose ops and webhook servers listen on free ports of 127.0.0.1. */
    private Path copyDistribution(Path dist) throws Exception {
        Path home = work.resolve("ringmaster");
        exec(List.of("rm", "-rf", home.toString()));
        exec(List.of("cp", "-a", dist.toAbsolutePath().toString(), home.toString()));
        Files.writeString(home.resolve("etc/dev.ringmaster.ops.http.cfg"), "host = 127.0.0.1\nport = " + freePort() + "\n");
        Path webhook = home.resolve("etc/dev.ringmaster.webhook.cfg");
        Files.writeString(webhook, Files.readString(webhook).replace("host = 0.0.0.0", "host = 127.0.0.1")
                .replace("port = 9443", "port = " + freePort()));
        // --sharder-set moveBudget=5000,...: keys of etc/dev.ringmaster.sharder.cfg
        Path sharder = home.resolve("etc/dev.ringmaster.sharder.cfg");
        String config = Files.readString(sharder);
        for (String setting : options.string("sharder-set", "").split(",")) {
            if (!setting.isBlank()) {
                String[] keyValue = setting.split("=", 2);
                config = config.replaceAll("(?m)^" + Pattern.quote(keyValue[0].trim()) + " =.*$",
                        Matcher.quoteReplacement(keyValue[0].trim() + " = " + keyValue[1].trim()));
            }
        }
        Files.writeString(sharder, config);
        return home;
    }

    /** The CRD, the namespaces, the ring over the ConfigMaps of {@value #NAMESPACE}. */
    private void install(Path home) throws IOException, InterruptedException {
        try (InputStream crd = Files.newInputStream(home.resolve(CRD))) {
            for (HasMetadata resource : admin.load(crd).items()) {
                admin.resource(resource).forceConflicts().serverSideApply();
            }
        }
        for (String namespace : List.of(SYSTEM_NAMESPACE, NAMESPACE)) {
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
                    .serverSideApply();
        }
        waitUntil(Duration.ofSeconds(30), () -> {
            try {
                admin.genericKubernetesResources("sharding.timebertt.dev/v1alpha1", "ClusterRing").list();
                return true;
            } catch (RuntimeException notYet) {
                return false;
            }
        });
        admin.resource(admin.getKubernetesSerialization().unmarshal("""
                apiVersion: sharding.timebertt.dev/v1alpha1
                kind: ClusterRing
                metadata:
                  name: %s
                spec:
                  resources:
                  - group: ""
                    resource: configmaps
                  namespaceSelector:
                    matchLabels: {kubernetes.io/metadata.name: %s}
                """.formatted(RING, NAMESPACE), GenericKubernetesResource.class)).forceConflicts().serverSideApply();
    }

    /**
     * A kubeconfig for a ServiceAccount of its own, bound to cluster-admin: the benchmark measures
     * speed, and the audit log tells the accounts apart (RBAC as shipped is tested in itests).
     */
    private Path kubeconfig(String namespace, String account) {
        Path file = server.serviceAccountKubeconfig(namespace, account, work.resolve(account + ".kubeconfig"));
        admin.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata()
                .withName("bench-" + namespace + "-" + account).endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "cluster-admin")
                .addNewSubject().withKind("ServiceAccount").withNamespace(namespace).withName(account).endSubject()
                .build()).serverSideApply();
        return file;
    }

    private long startSharder(Path home) throws Exception {
        BenchCertificate certificate = BenchCertificate.create(work.resolve("tls"));
        String webhookPort = Files.readAllLines(home.resolve("etc/dev.ringmaster.webhook.cfg")).stream()
                .filter(line -> line.startsWith("port = ")).findFirst().orElseThrow().substring("port = ".length());
        ProcessBuilder sharder = new ProcessBuilder(home.resolve("bin/ringmaster").toString(), "run",
                "--kubeconfig", kubeconfig(SYSTEM_NAMESPACE, "sharder").toString(), "--namespace", SYSTEM_NAMESPACE,
                "--tls-dir", certificate.directory().toString(),
                "--webhook-url", "https://127.0.0.1:" + webhookPort,
                "--webhook-ca", certificate.directory().resolve("tls.crt").toString());
        sharder.environment().put("RINGMASTER_JAVA_OPTS", options.string("sharder-jvm", "-Xmx256m"));
        Process process = start(sharder, "sharder");
        String opsPort = Files.readString(home.resolve("etc/dev.ringmaster.ops.http.cfg")).replaceAll("(?s).*port = (\\d+).*", "$1");
        if (!waitUntil(Duration.ofSeconds(90), () -> ready("http://127.0.0.1:" + opsPort + "/readyz"))) {
            throw new IllegalStateException("the sharder did not become ready; see " + work.resolve("sharder.log"));
        }
        return process.pid();
    }

    private void startShard(Path home, int index) throws IOException {
        String shard = BenchRing.shardName(index);
        ProcessBuilder builder = new ProcessBuilder(home.resolve("bin/checksum-controller").toString(),
                "--kubeconfig", kubeconfig(NAMESPACE, shard).toString(), "--ring", RING, "--shard-name", shard,
                "--namespace", NAMESPACE, "--watch-namespace", NAMESPACE);
        builder.environment().put("CHECKSUM_CONTROLLER_JAVA_OPTS", options.string("shard-jvm", "-Xmx256m"));
        start(builder, shard);
    }

    private Process start(ProcessBuilder builder, String name) throws IOException {
        Process process = builder.redirectOutput(work.resolve(name + ".out").toFile())
                .redirectError(work.resolve(name + ".log").toFile()).start();
        processes.add(process);
        return process;
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

    /** Objects not (yet) on their shard of {@code ring}, or still in drain; objects not seen yet count. */
    private int misplaced(ShardRing ring) {
        int objects = options.integer("objects", 10_000);
        int misplaced = objects - labels.size();
        for (Map.Entry<String, Map<String, String>> object : labels.entrySet()) {
            String desired = ring.shardFor(BenchRing.key(NAMESPACE, object.getKey())).orElseThrow();
            Map<String, String> current = object.getValue();
            if (!desired.equals(current.get(SHARD_LABEL)) || current.get(DRAIN_LABEL) != null) {
                misplaced++;
            }
        }
        return misplaced;
    }

    private void createConfigMaps(int objects, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> created = new ArrayList<>();
            for (int i = 0; i < objects; i++) {
                String name = BenchRing.objectName(i);
                created.add(pool.submit(() -> admin.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder()
                        .withNewMetadata().withName(name).endMetadata().addToData("value", name).build()).create()));
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
        for (AuditLog.Event event : server.audit().events()) {
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
        exec(List.of(jcmd(), Long.toString(pid), "GC.run"));
        Matcher used = HEAP_USED.matcher(exec(List.of(jcmd(), Long.toString(pid), "GC.heap_info")));
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

    private static boolean ready(String url) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2))
                    .build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static boolean waitUntil(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(100);
        }
        return condition.getAsBoolean();
    }

    private static String exec(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(command + " failed: " + output);
        }
        return output;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static double seconds(Instant from, Instant to) {
        return Duration.between(from, to).toMillis() / 1000.0;
    }

    private static void log(String format, Object... args) {
        System.out.println(Instant.now() + " " + String.format(Locale.ROOT, format, args));
    }
}
