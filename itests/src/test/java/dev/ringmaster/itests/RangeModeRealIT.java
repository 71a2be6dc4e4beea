package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.examples.checksum.ReconcileLine;
import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.ShardFleet;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.apiserver.AuditLog;
import dev.ringmaster.testing.apiserver.Fnv1a;
import dev.ringmaster.testing.apiserver.HashRanges;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;

/**
 * Range mode (issue 27, KEP-5866) end to end with real processes: {@code bin/ringmaster run} and
 * three, then four, then three {@code bin/checksum-controller --range-mode} shards over the
 * ConfigMaps of one namespace, on kube-apiserver v1.36 with the {@code ShardedListAndWatch} gate
 * (the server filters the shards' lists and watches) and on v1.32 (it ignores the selector; the
 * shards filter). The test computes each object's owner itself, FNV-1a 64 of its uid against the
 * {@code served-ranges} on the Leases, and checks that every ConfigMap is reconciled by exactly its
 * owner, that no object is reconciled by two shards at overlapping times, and, from the audit log,
 * that neither the sharder nor a shard ever writes a ConfigMap. Each change prints one line
 * ({@code RANGE-MODE ...}, after the test, also when it failed): settled seconds, objects moved,
 * reconciles, writes by resource.
 *
 * <p>{@code -Drange.mode.objects=10000} for measured runs (default 300). The build runs v1.36 only:
 * the path where the server ignores the selector is the cluster tier's (ShardsInRangeModeClusterIT, on
 * v1.32 with shards as pods); {@code -Drange.mode.servers=v1.36,v1.32} (or {@code v1.32}) runs it here too.
 */
@RunWith(Parameterized.class)
public class RangeModeRealIT {

    private static final int OBJECTS = Integer.getInteger("range.mode.objects", 300);
    private static final int BUCKETS = 64;
    private static final List<String> RANGE_MODE = List.of("--range-mode");
    private static final String SHARDER_USER =
            "system:serviceaccount:" + RealCluster.SYSTEM_NAMESPACE + ":" + RealCluster.SHARDER_ACCOUNT;
    private static final BigInteger SPACE = BigInteger.ONE.shiftLeft(64);
    /** Every wait: generous for a loaded 2-core machine, longer with more objects. */
    private static final Duration SOON = Duration.ofSeconds(120 + OBJECTS / 25);
    private static final long POLL_MILLIS = OBJECTS > 1000 ? 500 : 200;

    @Parameterized.Parameters(name = "{0}")
    public static List<Object[]> servers() {
        String wanted = System.getProperty("range.mode.servers", "v1.36");
        List<Object[]> servers = new ArrayList<>();
        if (wanted.contains("v1.36")) {
            servers.add(new Object[] {"v1.36", true});
        }
        if (wanted.contains("v1.32")) {
            servers.add(new Object[] {"v1.32", false});
        }
        return servers;
    }

    private final String label;
    private final boolean serverFilters;
    private final String ring;
    private RealCluster cluster;
    private KubernetesClient admin;
    private Cli.Started sharder;
    private ShardFleet shards;
    private String shardUser;
    /** Each ConfigMap's name and FNV-1a 64 of its uid, unsigned. */
    private final Map<String, BigInteger> hashes = new TreeMap<>();
    private final List<String> summary = new ArrayList<>();

    public RangeModeRealIT(String label, boolean serverFilters) {
        this.label = label;
        this.serverFilters = serverFilters;
        this.ring = "range-mode-" + (serverFilters ? "136" : "132");
    }

    @Before
    public void start() {
        cluster = serverFilters ? RealCluster.shardedListAndWatch() : RealCluster.get();
        admin = cluster.admin();
        cluster.rangeModeConfigMapRing(ring, ring, "uid", BUCKETS);
        SharderHome replica = SharderHome.prepare(ring);
        sharder = cluster.runSharder(replica, cluster.sharderKubeconfig(replica));
        shards = new ShardFleet(cluster, replica.home(), ring, ring);
        shardUser = "system:serviceaccount:" + ring + ":checksum-controller";
    }

    @After
    public void stop() throws InterruptedException {
        if (shards != null) {
            shards.close();
        }
        if (admin != null) {
            cluster.stopSharderAndDeleteRing(sharder, ring);
        }
        summary.forEach(System.out::println);
    }

    @Test
    public void rangesMoveThroughTheLeasesOnlyAndEveryObjectIsReconciledByItsOwnerAlone() throws Exception {
        String version = cluster.server().gitVersion() + (serverFilters ? " (the server filters)" : " (the shards filter)");
        Set<String> three = Set.of("shard-0", "shard-1", "shard-2");
        Set<String> four = Set.of("shard-0", "shard-1", "shard-2", "shard-3");
        for (String shard : new TreeSet<>(three)) {
            shards.start(shard, RANGE_MODE);
        }
        Placement initial = Waiting.value(SOON, () -> "three shards serving their assigned ranges, now " + leases()
                + "\n" + sharder.err() + shards.logs(), () -> java.util.Optional.ofNullable(settledPlacement(three)));

        long createStart = System.nanoTime();
        createConfigMaps();
        double createSeconds = (System.nanoTime() - createStart) / 1e9;
        for (ConfigMap configMap : admin.configMaps().inNamespace(ring).list().getItems()) {
            hashes.put(configMap.getMetadata().getName(), HashRanges.unsigned(Fnv1a.fnv1a64(configMap.getMetadata().getUid())));
        }
        assertEquals("ConfigMaps created", OBJECTS, hashes.size());
        Map<String, String> owners = initial.owners(hashes);
        Waiting.until(SOON, () -> "every ConfigMap reconciled, by its owner only; "
                + notYet(initial, owners, 0) + "\n" + shards.logs(), () -> everyReconciledByOwnerAlone(owners));
        double reconciledSeconds = (System.nanoTime() - createStart) / 1e9;
        summary.add(String.format("RANGE-MODE %s N=%d: %d ConfigMaps created in %.1f s, all reconciled by their owner"
                        + " after %.1f s; objects per shard %s", version, OBJECTS, OBJECTS, createSeconds, reconciledSeconds,
                perShard(owners)));
        String filtering = serverFilters ? "the API server applies the shard selector"
                : "the API server ignores the shard selector";
        Waiting.until(Duration.ofSeconds(10), () -> "every shard logged '" + filtering + "'\n" + shards.logs(),
                () -> shards.logs().split(Pattern.quote(filtering), -1).length - 1 >= three.size());

        Placement scaledOut = change(version, "scale-out 3 -> 4", () -> shards.start("shard-3", RANGE_MODE), four, initial);
        Placement scaledIn = change(version, "scale-in 4 -> 3", () -> shards.stopGracefully("shard-3"), three, scaledOut);
        assertEquals("shard-3 released its Lease on the way out", "", holder(lease("shard-3")));
        assertTrue("shard-3 took ranges on scale-out", !scaledOut.served.get("shard-3").isEmpty());
        assertEquals("the placement after scale-in is the one before scale-out (rendezvous placement)",
                initial, scaledIn);

        List<AuditLog.Event> writes = cluster.server().audit().events();
        assertEquals("ConfigMap writes by the sharder or a shard (range mode writes Leases only)", List.of(),
                writes.stream().filter(e -> e.resource().equals("configmaps") && e.namespace().equals(ring)
                        && (e.user().equals(SHARDER_USER) || e.user().equals(shardUser))).toList());
        assertEquals("Secret writes by the sharder", List.of(), writes.stream().filter(e -> e.resource().equals("secrets")
                && e.namespace().equals(ring) && e.user().equals(SHARDER_USER)).toList());
        List<AuditLog.Event> secretWrites = writes.stream().filter(e -> e.resource().equals("secrets")
                && e.namespace().equals(ring) && e.user().equals(shardUser) && e.code() < 300).toList();
        assertEquals("successful Secret writes by the shards: one create per ConfigMap, none on a move "
                + secretWrites.stream().collect(Collectors.groupingBy(AuditLog.Event::verb, Collectors.counting())),
                OBJECTS, secretWrites.stream().filter(e -> e.verb().equals("create")).count());
        assertEquals("Secret updates by the shards", 0, secretWrites.size() - OBJECTS);
        String shardLabel = RingKind.CLUSTER_RING.shardLabel(ring);
        assertEquals("ConfigMaps labelled with a shard", 0, admin.configMaps().inNamespace(ring).list().getItems()
                .stream().filter(c -> RingState.labels(c).containsKey(shardLabel)).count());
        assertEquals("reconciles of one object by two shards at overlapping times", 0, shards.overlaps());
        summary.add(String.format("RANGE-MODE %s N=%d: overlapping reconciles %d, ConfigMap writes by sharder and shards"
                + " 0, Secret writes by the shards %d (creates), reconciles in all %d", version, OBJECTS,
                shards.overlaps(), secretWrites.size(), shards.reconciles().size()));
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    /**
     * Makes a change of the shards and waits until it settled: the running shards' Leases serve what
     * they are assigned, those ranges cover the space once, and every ConfigMap's last reconcile is by
     * its owner; then the placement must hold for 2 s and only owners reconcile meanwhile. Prints the
     * change's line.
     */
    private Placement change(String version, String name, Action action, Set<String> after, Placement before)
            throws Exception {
        long startMillis = System.currentTimeMillis();
        long start = System.nanoTime();
        Future<Void> doing = CompletableFuture.runAsync(() -> {
            try {
                action.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Placement placement = null;
        double leasesSettled = -1;
        double settled = -1;
        long deadline = start + SOON.toNanos();
        Map<String, String> owners = null;
        while (System.nanoTime() < deadline) {
            Placement now = settledPlacement(after);
            double elapsed = (System.nanoTime() - start) / 1e9;
            if (now == null) {
                leasesSettled = -1;
            } else {
                if (leasesSettled < 0 || !now.equals(placement)) {
                    leasesSettled = elapsed;
                    placement = now;
                    owners = now.owners(hashes);
                }
                if (lastReconcileByOwner(owners)) {
                    settled = elapsed;
                    break;
                }
            }
            Thread.sleep(POLL_MILLIS);
        }
        if (settled < 0) {
            Placement last = placement;
            throw new AssertionError(name + ": not settled within " + SOON + "; Leases " + leases() + "; "
                    + (last == null ? "" : notYet(last, last.owners(hashes), startMillis)) + "\n" + sharder.err()
                    + shards.logs());
        }
        doing.get(60, TimeUnit.SECONDS);
        Instant settledAt = Instant.ofEpochMilli(startMillis + Math.round(settled * 1000));
        Placement settledPlacement = placement;
        Waiting.throughout(Duration.ofSeconds(2), name + ": the placement stays")
                .until(() -> settledPlacement.equals(settledPlacement(after)));
        Map<String, String> finalOwners = owners;
        List<ReconcileLine> strays = shards.reconciles().stream().filter(line -> line.start() >= settledAt.toEpochMilli()
                && !line.shard().equals(finalOwners.get(line.name()))).toList();
        assertEquals(name + ": reconciles after settling by a shard that does not own the object", List.of(), strays);

        Map<String, String> previous = before.owners(hashes);
        long moved = hashes.keySet().stream().filter(object -> !previous.get(object).equals(finalOwners.get(object))).count();
        long reconciles = shards.reconciles().stream().filter(line -> line.start() >= startMillis
                && line.start() <= settledAt.toEpochMilli()).count();
        Instant from = Instant.ofEpochMilli(startMillis);
        List<AuditLog.Event> window = cluster.server().audit().events().stream()
                .filter(e -> !e.received().isBefore(from) && !e.received().isAfter(settledAt)).toList();
        // reads are in the audit log of the v1.36 server only (RealApiServer.shardedListAndWatch)
        List<AuditLog.Event> reads = cluster.server().audit().reads().stream()
                .filter(e -> !e.received().isBefore(from) && !e.received().isAfter(settledAt)).toList();
        String line = String.format("RANGE-MODE %s N=%d %s: moved %d, settled %.1f s (Leases %.1f s), reconciles %d,"
                        + " writes: sharder %s, shards %s, ConfigMap writes %d; reads: sharder %s, shards %s",
                version, OBJECTS, name, moved, settled, leasesSettled, reconciles,
                writesByResource(window, this::bySharder), writesByResource(window, e -> e.user().equals(shardUser)),
                window.stream().filter(e -> e.resource().equals("configmaps") && e.namespace().equals(ring)).count(),
                readsByVerb(reads, this::bySharder), readsByVerb(reads, e -> e.user().equals(shardUser)));
        summary.add(line);
        return placement;
    }

    /** The sharder's requests about this ring: its namespace, the ring itself, its election. */
    private boolean bySharder(AuditLog.Event e) {
        return e.user().equals(SHARDER_USER) && (e.namespace().equals(ring) || e.name().equals(ring)
                || e.namespace().equals(RealCluster.SYSTEM_NAMESPACE));
    }

    /** Reads by resource and verb, e.g. {@code {configmaps list=1, configmaps watch=1, secrets get=2389}}. */
    private static String readsByVerb(List<AuditLog.Event> events, Predicate<AuditLog.Event> whose) {
        return events.stream().filter(whose).collect(Collectors.groupingBy(e -> e.resource() + " " + e.verb(),
                TreeMap::new, Collectors.counting())).toString();
    }

    /** Writes (successful or not) by resource, e.g. {@code {leases=12}}; the sharder's election Lease counted apart. */
    private static String writesByResource(List<AuditLog.Event> events, Predicate<AuditLog.Event> whose) {
        Map<String, Long> counts = events.stream().filter(whose).collect(Collectors.groupingBy(
                e -> e.namespace().equals(RealCluster.SYSTEM_NAMESPACE) ? e.resource() + "(election)" : e.resource(),
                TreeMap::new, Collectors.counting()));
        return counts.toString();
    }

    private void createConfigMaps() throws Exception {
        ExecutorService creators = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> created = new ArrayList<>();
            for (int i = 0; i < OBJECTS; i++) {
                String name = "cm-" + i;
                String value = "value-" + i;
                created.add(creators.submit(() -> admin.configMaps().inNamespace(ring).resource(new ConfigMapBuilder()
                        .withNewMetadata().withName(name).endMetadata().addToData("key", value).build()).create()));
            }
            for (Future<?> future : created) {
                future.get(5, TimeUnit.MINUTES);
            }
        } finally {
            creators.shutdownNow();
        }
    }

    /** Every ConfigMap reconciled, and only by its owner. */
    private boolean everyReconciledByOwnerAlone(Map<String, String> owners) {
        Map<String, Set<String>> by = new HashMap<>();
        for (ReconcileLine line : shards.reconciles()) {
            by.computeIfAbsent(line.name(), n -> new TreeSet<>()).add(line.shard());
        }
        return owners.entrySet().stream().allMatch(o -> Set.of(o.getValue()).equals(by.get(o.getKey())));
    }

    /** Every ConfigMap's latest reconcile is by its owner. */
    private boolean lastReconcileByOwner(Map<String, String> owners) {
        Map<String, ReconcileLine> last = lastReconciles();
        return owners.entrySet().stream().allMatch(o -> last.get(o.getKey()) != null
                && last.get(o.getKey()).shard().equals(o.getValue()));
    }

    private Map<String, ReconcileLine> lastReconciles() {
        Map<String, ReconcileLine> last = new HashMap<>();
        for (ReconcileLine line : shards.reconciles()) {
            last.merge(line.name(), line, (a, b) -> Comparator.comparingLong(ReconcileLine::start)
                    .thenComparingLong(ReconcileLine::end).compare(a, b) >= 0 ? a : b);
        }
        return last;
    }

    /** For failure messages: a few objects whose latest reconcile (since {@code sinceMillis}) is not by their owner. */
    private String notYet(Placement placement, Map<String, String> owners, long sinceMillis) {
        Map<String, ReconcileLine> last = lastReconciles();
        return "not yet by their owner: " + owners.entrySet().stream()
                .filter(o -> last.get(o.getKey()) == null || !last.get(o.getKey()).shard().equals(o.getValue()))
                .limit(5).map(o -> o.getKey() + " owner " + o.getValue() + " last " + last.get(o.getKey()))
                .toList() + "; placement " + Placement.text(placement.served);
    }

    private static Map<String, Long> perShard(Map<String, String> owners) {
        return owners.values().stream().collect(Collectors.groupingBy(s -> s, TreeMap::new, Collectors.counting()));
    }

    private List<Lease> ringLeases() {
        return admin.leases().inNamespace(ring).withLabel(RingKind.CLUSTER_RING.leaseLabel(), ring).list().getItems();
    }

    private Lease lease(String shard) {
        return admin.leases().inNamespace(ring).withName(shard).get();
    }

    private static String holder(Lease lease) {
        return lease.getSpec().getHolderIdentity() == null ? "" : lease.getSpec().getHolderIdentity();
    }

    private static String annotation(Lease lease, String name) {
        Map<String, String> annotations = lease.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(name);
        return value == null ? "" : value.strip();
    }

    /** For failure messages: each ring Lease's holder, assigned and served ranges. */
    private String leases() {
        return ringLeases().stream().map(l -> l.getMetadata().getName() + "{holder=" + holder(l) + ", assigned="
                + annotation(l, RingContract.ASSIGNED_RANGES_ANNOTATION) + ", served="
                + annotation(l, RingContract.SERVED_RANGES_ANNOTATION) + "}").toList().toString();
    }

    /**
     * The placement if the ring is settled on {@code shards}: each holds its Lease and serves exactly
     * what it is assigned (key uid), every other ring Lease is assigned nothing, and the served ranges
     * cover the 64-bit space exactly once; else null.
     */
    private Placement settledPlacement(Set<String> shards) {
        Map<String, List<BigInteger[]>> served = new TreeMap<>();
        for (Lease lease : ringLeases()) {
            String name = lease.getMetadata().getName();
            String assigned = annotation(lease, RingContract.ASSIGNED_RANGES_ANNOTATION);
            if (!shards.contains(name)) {
                if (!assigned.isEmpty()) {
                    return null;
                }
                continue;
            }
            if (!name.equals(holder(lease)) || assigned.isEmpty()
                    || !assigned.equals(annotation(lease, RingContract.SERVED_RANGES_ANNOTATION))
                    || !"uid".equals(annotation(lease, RingContract.RANGE_KEY_ANNOTATION))) {
                return null;
            }
            served.put(name, HashRanges.parse(assigned));
        }
        if (!served.keySet().equals(shards)) {
            return null;
        }
        List<BigInteger[]> all = served.values().stream().flatMap(List::stream)
                .sorted(Comparator.comparing(range -> range[0])).toList();
        BigInteger next = BigInteger.ZERO;
        for (BigInteger[] range : all) {
            if (!range[0].equals(next)) {
                return null; // a gap or an overlap
            }
            next = range[1];
        }
        return next.equals(SPACE) ? new Placement(served) : null;
    }

    /** The served ranges by shard, as [start, end) pairs. */
    private record Placement(Map<String, List<BigInteger[]>> served) {

        String ownerOf(BigInteger hash) {
            for (Map.Entry<String, List<BigInteger[]>> shard : served.entrySet()) {
                for (BigInteger[] range : shard.getValue()) {
                    if (hash.compareTo(range[0]) >= 0 && hash.compareTo(range[1]) < 0) {
                        return shard.getKey();
                    }
                }
            }
            throw new AssertionError("no shard serves " + hash.toString(16));
        }

        Map<String, String> owners(Map<String, BigInteger> hashes) {
            Map<String, String> owners = new TreeMap<>();
            hashes.forEach((object, hash) -> owners.put(object, ownerOf(hash)));
            return owners;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Placement that && text(served).equals(text(that.served));
        }

        @Override
        public int hashCode() {
            return Objects.hash(text(served));
        }

        private static Map<String, List<String>> text(Map<String, List<BigInteger[]>> served) {
            Map<String, List<String>> text = new TreeMap<>();
            served.forEach((shard, ranges) -> text.put(shard, ranges.stream().map(Arrays::toString).toList()));
            return text;
        }
    }
}
