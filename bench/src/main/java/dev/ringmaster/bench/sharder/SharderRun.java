package dev.ringmaster.bench.sharder;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.GarbageCollectionNotificationInfo;
import dev.ringmaster.bench.BenchArgs;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.consistent.ConsistentHashStrategy;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.kube.LabelWriter;
import dev.ringmaster.sharder.kube.ObjectPages;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.lease.DefaultLeaseDetector;
import dev.ringmaster.sharder.lease.ShardLeaseController;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ranges.LabelHolds;
import dev.ringmaster.sharder.ranges.RangeReturns;
import dev.ringmaster.sharder.ring.Move;
import dev.ringmaster.sharder.rebalance.MoveRecorder;
import dev.ringmaster.sharder.rebalance.NamespaceScope;
import dev.ringmaster.sharder.rebalance.RebalanceLimits;
import dev.ringmaster.sharder.rebalance.Rebalancer;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.ring.StrategyBinding;
import dev.ringmaster.sharder.runtime.Reconciler.Result;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The benchmark's sharder: a separate JVM (run it with a capped heap) that connects to
 * {@link MockCluster}'s URL and does what the leading sharder does after a scale-out from 3 to 4
 * shards, with the sharder bundle's own public classes, wired as {@code LeaderControllers} wires them:
 * informers for Namespaces and ClusterRings, the {@link ShardLeaseController} feeding a
 * {@link RingRegistry} (consistent hashing, the default strategy), and the {@link Rebalancer} with
 * {@link ResourceCatalog}, {@link ObjectPages}, {@link LabelWriter} and {@link NamespaceScope}.
 *
 * <p>It calls {@link Rebalancer#reconcile} directly, pass after pass, until the ring has settled: a
 * pass wrote nothing, left nothing pending and no object of the ring carries the drain label. The
 * first pass drains every main object that belongs on the new shard (one write each); the cluster
 * acknowledges the drains (the shard lets go: both labels removed); the next pass assigns those now
 * unassigned objects (one write each) — in the product the unassigned-object watch does that second
 * write within seconds, here the next pass does it, so no ConfigMap watch is needed. Between passes it
 * waits {@code pendingRetry} if the pass reported pending work (move budget exhausted, conflicts), as
 * the product's controller does, else starts the next pass at once.
 *
 * <p>Not run: leader election, the ClusterRing controller (status, webhook configuration), the
 * unassigned-object watch and metrics; none of them holds sharded objects either.
 *
 * <p>Then it forces garbage collection (with the informers still running) and prints one JSON line:
 * heap used after GC before the first and after the last pass, the largest heap any collection left
 * during the passes, what the passes allocated, every pass's duration, writes and allocation, the
 * write rates and the CPU time of this process and of the whole machine while the passes ran.
 */
public final class SharderRun {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final RingKey RING = RingKey.clusterRing(BenchRing.RING);

    private SharderRun() {
    }

    /** Counts every move the rebalancer wrote, by kind. */
    private static final class Counter implements MoveRecorder {
        final AtomicLong drained = new AtomicLong();
        final AtomicLong assigned = new AtomicLong();
        final AtomicLong reassigned = new AtomicLong();

        @Override
        public void written(RingKey ring, ResolvedResource resource, Move move) {
            if (move instanceof Move.Drain) {
                drained.incrementAndGet();
            } else if (move instanceof Move.Assign) {
                assigned.incrementAndGet();
            } else if (move instanceof Move.Reassign) {
                reassigned.incrementAndGet();
            }
        }

        long total() {
            return drained.get() + assigned.get() + reassigned.get();
        }
    }

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(SharderRun.class, args, "url", "move-budget", "page-size", "concurrent-moves",
                "pending-retry-ms", "max-seconds", "http1");
        String url = options.required("url");
        int moveBudget = options.integer("move-budget", Integer.MAX_VALUE);
        RebalanceLimits limits = new RebalanceLimits(options.integer("page-size", RebalanceLimits.DEFAULT.pageSize()),
                options.integer("concurrent-moves", RebalanceLimits.DEFAULT.concurrentMoves()), moveBudget,
                Duration.ofHours(1), options.millis("pending-retry-ms", RebalanceLimits.DEFAULT.pendingRetry().toMillis()));
        Duration maxRun = Duration.ofSeconds(options.integer("max-seconds", 600));
        GcWatch gc = new GcWatch();

        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(url).withTrustCerts(true)
                .withDisableHostnameVerification(true).withHttp2Disable(options.string("http1", "false").equals("true"))
                .build();
        // As KubernetesClientProvider builds it: the JDK HTTP client.
        KubernetesClient client = new KubernetesClientBuilder().withConfig(config)
                .withHttpClientFactory(new JdkHttpClientFactory()).build();

        SharedIndexInformer<Namespace> namespaces = client.namespaces().runnableInformer(0);
        SharedIndexInformer<ClusterRing> rings = client.resources(ClusterRing.class).runnableInformer(0);
        RingRegistry registry = new RingRegistry();
        registry.update(inputs -> inputs.withDefaultStrategy(ConsistentHashStrategy.NAME)
                .withStrategies(Map.of(ConsistentHashStrategy.NAME, new StrategyBinding(new ConsistentHashStrategy(), Map.of())))
                .withInterpreters(Map.of(DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter())));
        LeaseDetector detector = new DefaultLeaseDetector();
        ShardLeaseController leases = new ShardLeaseController(client, () -> detector, Clock.systemUTC(), () -> true);
        leases.addListener(membership -> registry.update(inputs -> inputs.withMembership(membership)));
        namespaces.start().toCompletableFuture().get();
        rings.start().toCompletableFuture().get();
        leases.start();
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, rings.getStore().list()));

        long deadline = System.nanoTime() + maxRun.toNanos();
        while (registry.view(RING).map(view -> view.availableShards().size()).orElse(0) < BenchRing.SHARDS_AFTER) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no ring of " + BenchRing.SHARDS_AFTER + " shards: "
                        + registry.view(RING));
            }
            Thread.sleep(50);
        }

        ResourceCatalog catalog = new ResourceCatalog(client);
        ObjectPages pages = new ObjectPages(client, limits.pageSize());
        Counter counter = new Counter();
        Rebalancer rebalancer = new Rebalancer(registry, RingView.InvalidKeys.IGNORE, catalog, pages, new LabelWriter(client), new NamespaceScope(() -> namespaces.getStore().list()), limits, counter,
                new LabelHolds(Clock.systemUTC()), new RangeReturns());
        ResolvedResource configMaps = catalog.resolve("", "configmaps").orElseThrow();

        double heapBefore = mib(heapAfterFullGc());
        gc.reset();
        long cpuBefore = processCpuNanos();
        long[] machineBefore = machineCpuTicks();
        List<Map<String, Object>> passes = new ArrayList<>();
        long errors = 0;
        long start = System.nanoTime();
        boolean settled = false;
        while (System.nanoTime() < deadline) {
            long writesBefore = counter.total();
            long drainedBefore = counter.drained.get();
            long assignedBefore = counter.assigned.get();
            long reassignedBefore = counter.reassigned.get();
            long passStart = System.nanoTime();
            long allocatedBefore = gc.allocated();
            Result result;
            try {
                result = rebalancer.reconcile(RING);
            } catch (Exception e) {
                // the product's controller retries with backoff
                errors++;
                System.err.println("sharder bench: pass failed: " + e);
                Thread.sleep(200);
                continue;
            }
            long passNanos = System.nanoTime() - passStart;
            boolean pending = result.requeueAfter() != null && result.requeueAfter().equals(limits.pendingRetry());
            long written = counter.total() - writesBefore;
            Map<String, Object> pass = new LinkedHashMap<>();
            pass.put("seconds", MockCluster.seconds(passNanos));
            pass.put("drained", counter.drained.get() - drainedBefore);
            pass.put("assigned", counter.assigned.get() - assignedBefore);
            pass.put("reassigned", counter.reassigned.get() - reassignedBefore);
            pass.put("pending", pending);
            pass.put("allocatedMiB", mib(gc.allocated() - allocatedBefore));
            passes.add(pass);
            System.err.println("sharder bench: pass " + passes.size() + " " + pass);
            if (written == 0 && !pending) {
                AtomicLong draining = new AtomicLong();
                pages.forEachPage(configMaps, BenchRing.DRAIN_LABEL, page -> draining.addAndGet(page.size()));
                if (draining.get() == 0) {
                    settled = true;
                    break;
                }
                Thread.sleep(50); // drains not acknowledged yet
            } else if (pending) {
                Thread.sleep(limits.pendingRetry().toMillis());
            }
        }
        long settleNanos = System.nanoTime() - start;
        long cpuNanos = processCpuNanos() - cpuBefore;
        long[] machineAfter = machineCpuTicks();
        GcWatch.Totals during = gc.totals();
        long allocatedDuring = gc.allocated();
        double heapAfter = mib(heapAfterFullGc());

        double writeSeconds = passes.stream().mapToDouble(pass -> (double) pass.get("seconds")).sum();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("settled", settled);
        out.put("heapMaxMiB", mib(Runtime.getRuntime().maxMemory()));
        out.put("heapBeforeMiB", heapBefore);
        out.put("heapAfterMiB", heapAfter);
        out.put("maxHeapAfterGcDuringPassesMiB", mib(during.maxAfterGc()));
        out.put("gcCount", during.count());
        out.put("gcPauseMs", during.pauseMillis());
        // what the collections freed during the passes: about what the passes allocated
        out.put("allocatedMiB", mib(allocatedDuring));
        out.put("settleSeconds", MockCluster.seconds(settleNanos));
        out.put("firstPassSeconds", passes.isEmpty() ? 0 : passes.get(0).get("seconds"));
        out.put("drained", counter.drained.get());
        out.put("assigned", counter.assigned.get());
        out.put("reassigned", counter.reassigned.get());
        out.put("writes", counter.total());
        long firstPassWrites = passes.isEmpty() ? 0
                : (long) passes.get(0).get("drained") + (long) passes.get(0).get("assigned") + (long) passes.get(0).get("reassigned");
        out.put("firstPassWritesPerSecond", passes.isEmpty() ? 0
                : Math.round(firstPassWrites / Math.max(1e-3, (double) passes.get(0).get("seconds"))));
        out.put("writesPerSecond", Math.round(counter.total() / Math.max(1e-3, writeSeconds)));
        out.put("sharderCpuSeconds", MockCluster.seconds(cpuNanos));
        out.put("sharderCpuMsPerWrite", counter.total() == 0 ? 0 : Math.round(cpuNanos / 1e4 / counter.total()) / 100.0);
        if (machineBefore != null && machineAfter != null) {
            // share of all cores busy (any process) while the passes ran, from /proc/stat
            double busy = machineAfter[0] - machineBefore[0];
            double total = machineAfter[1] - machineBefore[1];
            out.put("machineBusyPercent", total > 0 ? Math.round(1000 * busy / total) / 10.0 : null);
        }
        out.put("passErrors", errors);
        out.put("passes", passes);
        out.put("limits", Map.of("pageSize", limits.pageSize(), "concurrentMoves", limits.concurrentMoves(),
                "moveBudget", limits.moveBudget(), "pendingRetryMs", limits.pendingRetry().toMillis()));
        System.out.println(JSON.writeValueAsString(out));
        System.out.flush();

        rebalancer.close();
        leases.close();
        rings.close();
        namespaces.close();
        client.close();
        System.exit(settled ? 0 : 1);
    }

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** Busy and total jiffies of all cores (Linux /proc/stat), or null elsewhere. */
    static long[] machineCpuTicks() {
        try {
            String[] fields = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            long idle = 0;
            for (int i = 1; i < fields.length && i <= 8; i++) {
                long value = Long.parseLong(fields[i]);
                total += value;
                if (i == 4 || i == 5) { // idle, iowait
                    idle += value;
                }
            }
            return new long[] {total - idle, total};
        } catch (Exception e) {
            return null;
        }
    }

    /** Heap used after several full collections (System.gc() is a full, compacting GC with G1). */
    static long heapAfterFullGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    static double mib(long bytes) {
        return Math.round(bytes / 1024.0 / 1024.0 * 10) / 10.0;
    }

    /** Watches every collection: how many, how long, and the most heap any left behind. */
    static final class GcWatch {

        record Totals(long count, long pauseMillis, long maxAfterGc, long reclaimed) {
        }

        private final Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(pool -> pool.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName)
                .collect(Collectors.toSet());
        private final AtomicLong count = new AtomicLong();
        private final AtomicLong pauseMillis = new AtomicLong();
        private final AtomicLong maxAfterGc = new AtomicLong();
        private final AtomicLong reclaimed = new AtomicLong();
        private volatile long usedAtReset;

        GcWatch() {
            for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
                ((NotificationEmitter) collector).addNotificationListener((notification, handback) -> {
                    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
                        return;
                    }
                    GarbageCollectionNotificationInfo info =
                            GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
                    if (info.getGcAction().contains("concurrent") || info.getGcName().contains("Concurrent")) {
                        return; // G1's concurrent cycle notifications are not pauses
                    }
                    count.incrementAndGet();
                    pauseMillis.addAndGet(info.getGcInfo().getDuration());
                    long after = heapUsed(info.getGcInfo().getMemoryUsageAfterGc());
                    reclaimed.addAndGet(Math.max(0, heapUsed(info.getGcInfo().getMemoryUsageBeforeGc()) - after));
                    maxAfterGc.accumulateAndGet(after, Math::max);
                }, null, null);
            }
        }

        private long heapUsed(Map<String, MemoryUsage> pools) {
            long used = 0;
            for (Map.Entry<String, MemoryUsage> pool : pools.entrySet()) {
                if (heapPools.contains(pool.getKey())) {
                    used += pool.getValue().getUsed();
                }
            }
            return used;
        }

        /** Bytes allocated since the last reset: what collections freed plus what the heap grew by. */
        long allocated() {
            return reclaimed.get() + ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() - usedAtReset;
        }

        void reset() {
            usedAtReset = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            reclaimed.set(0);
            count.set(0);
            pauseMillis.set(0);
            maxAfterGc.set(0);
        }

        Totals totals() {
            return new Totals(count.get(), pauseMillis.get(), maxAfterGc.get(), reclaimed.get());
        }
    }
}
