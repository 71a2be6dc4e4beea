package dev.ringmaster.bench.sharder;

import dev.ringmaster.bench.BenchArgs;
import dev.ringmaster.bench.BenchCluster;
import dev.ringmaster.bench.Workloads;
import dev.ringmaster.examples.checksum.Cost;
import dev.ringmaster.flags.Durations;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.shard.client.RangeInformer;
import dev.ringmaster.shard.client.ShardedReconciler;
import dev.ringmaster.shard.client.Sharding;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Load-aware balancing on a real API server (docs/performance.md, "Balancing by load"): kube-apiserver v1.36
 * with KEP-5866's gate, the distribution's {@code bin/ringmaster run} (with the {@code load-aware} policy
 * bundle), and range-mode shards ({@code --mode label}: label-mode shards, placed by {@code --strategy}) played by
 * the bench with shard-client itself (their Leases, informers, {@code ShardedReconciler}s and load reports are the
 * library's), each as its own ServiceAccount.
 * The ConfigMaps carry per-object costs ({@link CostDistribution}) in the examples' cost annotation, each
 * reconcile waits that long, and every shard reconciles all its objects again every {@code --resync}, so
 * the load is continuous.
 *
 * <p>First the ring runs placed by hash alone for {@code --baseline}; then {@code spec.ranges.balancing} (label
 * mode: {@code spec.balancing}) is set and the run goes on for {@code --measure}. Every {@code --sample} the bench
 * prints, from its own accounting (not the shards' reports): each shard's busy time over the last {@code --window},
 * the busiest over the mean, and the objects moved since the last settled placement (every object in exactly one
 * shard's assigned ranges, from the Leases; label mode: every object labelled and in no drain). Overlapping
 * reconciles (one object in two shards' reconciles at once) and, in range mode, ConfigMap writes after the set-up
 * (audit log) are counted and must be 0; exits 1 if not.
 */
public final class BalancingBench {

    private static final String RING = "balance";
    private static final String NAMESPACE = "balance";

    private final BenchArgs options;
    private final BenchCluster cluster;
    private final KubernetesClient admin;
    private final Cost cost = new Cost(Cost.Mode.WAIT);
    private final List<BenchShard> shards = new ArrayList<>();
    /** Busy nanoseconds spent per shard, as the bench measured them around its reconciles. */
    private final Map<String, LongAdder> busy = new ConcurrentHashMap<>();
    /** Objects being reconciled now, to the shard reconciling them. */
    private final Map<String, String> inFlight = new ConcurrentHashMap<>();
    private final AtomicLong overlaps = new AtomicLong();
    /** Every ConfigMap's uid hash, by name. */
    private final Map<String, Long> hashes = new TreeMap<>();
    /** Whether the ring labels its objects ({@code --mode label}) instead of placing ranges. */
    private boolean labelMode;

    private record BenchShard(String name, KubernetesClient client, Sharding sharding, Runnable closeInformer,
                              ShardedReconciler<ConfigMap> reconciler) {
    }

    private BalancingBench(BenchArgs options, BenchCluster cluster) {
        this.options = options;
        this.cluster = cluster;
        this.admin = cluster.admin();
    }

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(BalancingBench.class, args, "objects", "shards", "costs", "mean-cost",
                "resync", "buckets", "baseline", "measure", "sample", "window", "report-period", "interval",
                "stabilization", "max-imbalance", "max-move", "seed", "dist", "work", "sharder-jvm", "mode", "strategy");
        boolean clean = false;
        try (BenchCluster cluster = new BenchCluster(RealApiServer.shardedListAndWatch(),
                Path.of(options.string("dist", "distribution/target/ringmaster")),
                Path.of(options.string("work", "bench/target/balancing")), Map.of())) {
            clean = new BalancingBench(options, cluster).run();
        } catch (Exception | Error e) {
            e.printStackTrace();
        } finally {
            System.exit(clean ? 0 : 1); // no client thread keeps the JVM
        }
    }

    private boolean run() throws Exception {
        int objects = options.integer("objects", 10_000);
        int shardCount = options.integer("shards", 6);
        String costs = options.string("costs", "zipf:1.1");
        Duration resync = duration("resync", "2s");
        Duration sample = duration("sample", "10s");
        Duration window = duration("window", "60s");
        labelMode = switch (options.string("mode", "range")) {
            case "range" -> false;
            case "label" -> true;
            default -> throw options.usageError("--mode: range or label");
        };
        cluster.clusterRing(RING, ringSpec(null));
        Workloads.Workload workload;
        try {
            workload = Workloads.of(costs, options.integer("seed", 1), objects, duration("mean-cost", "1ms"), NAMESPACE);
        } catch (IllegalArgumentException e) {
            throw options.usageError("--costs: " + e.getMessage());
        }
        Instant created = createConfigMaps(workload);
        cluster.startSharder(options.string("sharder-jvm", "-Xmx256m"));
        ScheduledExecutorService resyncs = Executors.newSingleThreadScheduledExecutor();
        for (int shard = 0; shard < shardCount; shard++) {
            startShard("shard-" + shard);
        }
        resyncs.scheduleAtFixedRate(() -> shards.forEach(shard -> shard.reconciler().onAcquired()),
                resync.toMillis(), resync.toMillis(), TimeUnit.MILLISECONDS);

        System.out.printf(Locale.ROOT, "%n%,d ConfigMaps, costs %s (mean %s, resync %s), %d shards, %s%n%n",
                objects, costs, options.string("mean-cost", "1ms"), resync, shardCount,
                labelMode ? "label mode (shard weights, " + options.string("strategy", "consistent-hash") + ")"
                        : options.integer("buckets", 64) + " buckets");
        System.out.println("| s | phase | busiest / mean | busy per shard (s/s) | moved since last settled |");
        System.out.println("|---:|---|---:|---|---:|");
        Instant start = Instant.now();
        Samples samples = new Samples(window);
        Map<String, String> settled = owners();
        Instant baselineEnd = start.plus(duration("baseline", "120s"));
        Instant end = baselineEnd.plus(duration("measure", "240s"));
        boolean balancing = false;
        double baseline = 0;
        long moved = 0;
        List<Double> steps = new ArrayList<>();
        while (Instant.now().isBefore(end)) {
            Thread.sleep(sample.toMillis());
            Instant now = Instant.now();
            if (!balancing && !now.isBefore(baselineEnd)) {
                baseline = samples.imbalance();
                cluster.clusterRing(RING, ringSpec(options));
                balancing = true;
            }
            Map<String, String> owners = owners();
            long changed = 0;
            if (owners.size() == objects && settled.size() == objects) {
                for (Map.Entry<String, String> owner : owners.entrySet()) {
                    changed += owner.getValue().equals(settled.get(owner.getKey())) ? 0 : 1;
                }
                if (changed > 0) {
                    steps.add(100.0 * changed / objects);
                    moved += changed;
                }
            }
            if (owners.size() == objects) {
                settled = owners;
            }
            samples.add(now, busyNow());
            System.out.printf(Locale.ROOT, "| %d | %s | %.2f | %s | %s |%n", Duration.between(start, now).toSeconds(),
                    balancing ? "balancing" : "hash", samples.imbalance(), samples.perShard(),
                    owners.size() == objects ? String.format(Locale.ROOT, "%,d", changed) : "(handing over)");
        }
        resyncs.shutdownNow();
        long writes = configMapWritesSince(created);
        System.out.printf(Locale.ROOT, "%nhash placement: busiest %.2f× the mean; balanced: %.2f× after %s;"
                        + " steps moved %s%% of the objects (%.1f%% in all); overlapping reconciles %d;"
                        + " ConfigMap writes after the set-up %d%n", baseline, samples.imbalance(),
                Duration.between(baselineEnd, Instant.now()).toSeconds() + " s",
                steps.stream().map(share -> String.format(Locale.ROOT, "%.1f", share)).toList(),
                100.0 * moved / objects, overlaps.get(), writes);
        shards.forEach(shard -> {
            shard.reconciler().close();
            shard.closeInformer().run();
            shard.sharding().close();
            shard.client().close();
        });
        // in label mode the moves are label writes
        return overlaps.get() == 0 && (labelMode || writes == 0);
    }

    /**
     * The ring's spec over the ConfigMaps of the namespace, in range mode or label mode, balanced as the flags say if
     * given ({@code spec.ranges.balancing} or {@code spec.balancing}).
     */
    private String ringSpec(BenchArgs balancing) {
        String spec = "  resources:\n  - group: \"\"\n    resource: configmaps\n"
                + "  namespaceSelector:\n    matchLabels:\n      kubernetes.io/metadata.name: " + NAMESPACE + "\n";
        String indent = labelMode ? "  " : "    ";
        if (labelMode) {
            spec += "  strategy: " + options.string("strategy", "consistent-hash") + "\n";
        } else {
            spec += "  ranges:\n    buckets: " + options.integer("buckets", 64) + "\n";
        }
        if (balancing == null) {
            return spec;
        }
        return spec + indent + "balancing:\n"
                + indent + "  maxImbalancePercent: " + balancing.integer("max-imbalance", 10) + "\n"
                + indent + "  maxMovePercent: " + balancing.integer("max-move", 10) + "\n"
                + indent + "  intervalSeconds: " + balancing.integer("interval", 30) + "\n"
                + indent + "  stabilizationSeconds: " + balancing.integer("stabilization", 20) + "\n";
    }

    private Instant createConfigMaps(Workloads.Workload workload) throws Exception {
        admin.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
                .withName(NAMESPACE).endMetadata().build()).serverSideApply();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<ConfigMap>> created = new ArrayList<>();
            for (int i = 0; i < workload.objects(); i++) {
                String name = BenchRing.objectName(i);
                ConfigMap configMap = new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace(NAMESPACE)
                        .addToAnnotations(workload.annotations(i)).endMetadata().addToData("value", name).build();
                created.add(pool.submit(() -> admin.configMaps().inNamespace(NAMESPACE).resource(configMap).create()));
            }
            for (Future<ConfigMap> future : created) {
                ConfigMap configMap = future.get();
                hashes.put(configMap.getMetadata().getName(), RangeKey.UID.hash(configMap.getMetadata().getUid(), NAMESPACE));
            }
        } finally {
            pool.shutdown();
        }
        return Instant.now();
    }

    private void startShard(String name) {
        KubernetesClient client = cluster.clientAs(NAMESPACE, name);
        Sharding.Builder builder = Sharding.forRing(RING).shard(name).namespace(NAMESPACE).client(client)
                .loadReportPeriod(duration("report-period", "15s")).listener(() -> { });
        Sharding sharding = labelMode ? builder.build() : builder.rangeMode().build();
        busy.put(name, new LongAdder());
        ShardedReconciler<ConfigMap> reconciler;
        Runnable closeInformer;
        if (labelMode) {
            SharedIndexInformer<ConfigMap> informer = sharding.informers()
                    .runnableInformer(client.configMaps().inNamespace(NAMESPACE));
            reconciler = ShardedReconciler.builder(sharding, informer).reconciler(configMap -> reconcile(name, configMap))
                    .build();
            reconciler.start();
            informer.start();
            closeInformer = informer::close;
        } else {
            RangeInformer<ConfigMap> informer = sharding.rangeInformer(ConfigMap.class,
                    c -> c.configMaps().inNamespace(NAMESPACE));
            reconciler = ShardedReconciler.builder(sharding, informer).reconciler(configMap -> reconcile(name, configMap))
                    .build();
            reconciler.start();
            closeInformer = informer::close;
        }
        sharding.lease().start();
        shards.add(new BenchShard(name, client, sharding, closeInformer, reconciler));
    }

    private void reconcile(String shard, ConfigMap configMap) {
        String key = configMap.getMetadata().getName();
        String other = inFlight.putIfAbsent(key, shard);
        if (other != null) {
            overlaps.incrementAndGet();
        }
        long started = System.nanoTime();
        try {
            cost.spend(configMap);
        } finally {
            busy.get(shard).add(System.nanoTime() - started);
            if (other == null) {
                inFlight.remove(key, shard);
            }
        }
    }

    private Map<String, Long> busyNow() {
        Map<String, Long> now = new TreeMap<>();
        busy.forEach((shard, nanos) -> now.put(shard, nanos.sum()));
        return now;
    }

    /**
     * Each object's shard: in label mode by its shard label, if it is in no drain; in range mode by the Leases' assigned
     * ranges, if it is in exactly one. Objects without one are left out.
     */
    private Map<String, String> owners() {
        if (labelMode) {
            Map<String, String> owners = new HashMap<>();
            for (ConfigMap configMap : admin.configMaps().inNamespace(NAMESPACE).list().getItems()) {
                Map<String, String> labels = configMap.getMetadata().getLabels() == null ? Map.of()
                        : configMap.getMetadata().getLabels();
                String shard = labels.get(RingContract.shardLabel(RING));
                if (shard != null && !labels.containsKey(RingContract.drainLabel(RING))) {
                    owners.put(configMap.getMetadata().getName(), shard);
                }
            }
            return owners;
        }
        Map<String, RangeSet> assigned = new TreeMap<>();
        for (Lease lease : admin.leases().inNamespace(NAMESPACE).list().getItems()) {
            Map<String, String> annotations = lease.getMetadata().getAnnotations();
            String ranges = annotations == null ? null : annotations.get(RingContract.ASSIGNED_RANGES_ANNOTATION);
            if (ranges != null) {
                assigned.put(lease.getMetadata().getName(), RangeSet.parse(ranges));
            }
        }
        Map<String, String> owners = new HashMap<>();
        hashes.forEach((name, hash) -> {
            List<String> holders = assigned.entrySet().stream().filter(entry -> entry.getValue().contains(hash))
                    .map(Map.Entry::getKey).toList();
            if (holders.size() == 1) {
                owners.put(name, holders.get(0));
            }
        });
        return owners;
    }

    private long configMapWritesSince(Instant since) {
        return cluster.server().audit().events().stream()
                .filter(event -> !event.received().isBefore(since) && event.resource().equals("configmaps")).count();
    }

    private Duration duration(String name, String fallback) {
        try {
            return Durations.parse(options.string(name, fallback));
        } catch (IllegalArgumentException e) {
            throw options.usageError("--" + name + ": " + e.getMessage());
        }
    }

    /** The bench's busy counters over time, for the busy rate of each shard over the last window. */
    private static final class Samples {

        private final Duration window;
        private final List<Instant> times = new ArrayList<>();
        private final List<Map<String, Long>> counters = new ArrayList<>();

        Samples(Duration window) {
            this.window = window;
        }

        void add(Instant time, Map<String, Long> busy) {
            times.add(time);
            counters.add(busy);
        }

        /** Each shard's busy seconds per second over the last window (or since the first sample). */
        Map<String, Double> rates() {
            Map<String, Double> rates = new TreeMap<>();
            if (times.size() < 2) {
                return rates;
            }
            int last = times.size() - 1;
            int first = last;
            while (first > 0 && Duration.between(times.get(first - 1), times.get(last)).compareTo(window) <= 0) {
                first--;
            }
            double seconds = Duration.between(times.get(first), times.get(last)).toNanos() / 1e9;
            Map<String, Long> from = counters.get(first);
            counters.get(last).forEach((shard, nanos) -> rates.put(shard,
                    (nanos - from.getOrDefault(shard, 0L)) / 1e9 / seconds));
            return rates;
        }

        double imbalance() {
            Map<String, Double> rates = rates();
            double total = rates.values().stream().mapToDouble(Double::doubleValue).sum();
            double most = rates.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
            return total <= 0 ? 1.0 : most / (total / rates.size());
        }

        String perShard() {
            return rates().values().stream().map(rate -> String.format(Locale.ROOT, "%.2f", rate)).toList().toString();
        }
    }
}
