package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.examples.checksum.Cost;
import dev.ringmaster.examples.checksum.ReconcileLine;
import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.HashRanges;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.ShardFleet;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.testing.apiserver.AuditLog;
import dev.ringmaster.testing.apiserver.Fnv1a;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * Load-aware balancing (issue 33, docs/design.md section 10) end to end on kube-apiserver v1.36 with the
 * {@code ShardedListAndWatch} gate: {@code bin/ringmaster run} with the {@code load-aware} policy bundle, and three
 * {@code bin/checksum-controller --range-mode} shards that reconcile every ConfigMap every 2 s and publish their
 * load on their Leases every 3 s. Once the ring is placed (16 buckets, placed evenly by the policy, nothing
 * reported yet), the test makes the ConfigMaps of one shard twenty times as costly as the others'. The test measures
 * each shard's busy time itself, from the start and end of the reconciles the shards print: the busiest starts
 * above 1.6 times the mean, and must come within 1.25 of it through the leader's load steps, told in
 * {@code Balanced} Events on the ring. No object is reconciled by two shards at once, and neither the sharder nor a shard writes a
 * ConfigMap.
 */
public class BalancingRealIT {

    private static final String RING = "balancing";
    private static final int OBJECTS = 120;
    private static final Duration HOT = Duration.ofMillis(20);
    private static final Duration COLD = Duration.ofMillis(1);
    private static final List<String> SHARDS = List.of("shard-0", "shard-1", "shard-2");
    private static final List<String> SHARD_FLAGS = List.of("--range-mode", "--resync", "2s", "--load-report-period", "3s");
    private static final String SHARDER_USER =
            "system:serviceaccount:" + RealCluster.SYSTEM_NAMESPACE + ":" + RealCluster.SHARDER_ACCOUNT;
    private static final Duration SOON = Duration.ofMinutes(3);
    /** The span the test measures each shard's busy time over: several resyncs. */
    private static final Duration WINDOW = Duration.ofSeconds(10);

    private RealCluster cluster;
    private KubernetesClient admin;
    private Cli.Started sharder;
    private ShardFleet shards;
    /** Each ConfigMap's name and FNV-1a 64 of its uid, unsigned. */
    private final Map<String, BigInteger> hashes = new TreeMap<>();

    @Before
    public void start() {
        cluster = RealCluster.shardedListAndWatch();
        admin = cluster.admin();
        cluster.rangeModeConfigMapRing(RING, RING, "uid", 16, """
                    balancing:
                      maxImbalancePercent: 10
                      maxMovePercent: 50
                      intervalSeconds: 5
                      stabilizationSeconds: 20
                """);
        SharderHome replica = SharderHome.prepare(RING);
        sharder = cluster.runSharder(replica, cluster.sharderKubeconfig(replica));
        shards = new ShardFleet(cluster, replica.home(), RING, RING);
    }

    @After
    public void stop() throws InterruptedException {
        if (shards != null) {
            shards.close();
        }
        if (admin != null) {
            cluster.stopSharderAndDeleteRing(sharder, RING);
        }
    }

    @Test
    public void loadStepsMoveRangesFromTheBusyShardUntilTheLoadIsEvenWithoutAnOverlapOrAnObjectWrite() throws Exception {
        for (String shard : SHARDS) {
            shards.start(shard, SHARD_FLAGS);
        }
        for (int i = 0; i < OBJECTS; i++) {
            ConfigMap created = admin.configMaps().inNamespace(RING).resource(new ConfigMapBuilder().withNewMetadata()
                    .withName("cm-" + i).endMetadata().addToData("value", "v" + i).build()).create();
            hashes.put(created.getMetadata().getName(), HashRanges.unsigned(Fnv1a.fnv1a64(created.getMetadata().getUid())));
        }
        Map<String, String> placed = Waiting.value(SOON, () -> "three shards serving their assigned ranges, now "
                + leases() + "\n" + sharder.err(), this::settledOwners);
        for (Map.Entry<String, String> owner : placed.entrySet()) {
            Duration cost = owner.getValue().equals("shard-0") ? HOT : COLD;
            admin.configMaps().inNamespace(RING).withName(owner.getKey()).edit(configMap -> new ConfigMapBuilder(configMap)
                    .editMetadata().addToAnnotations(Cost.ANNOTATION, cost.toMillis() + "ms").endMetadata().build());
        }
        // the leader acts on an imbalance only after it lasted 20 s: meanwhile the test measures the one it made
        Thread.sleep(WINDOW.plusSeconds(4).toMillis());
        double before = busiestOverMean();
        assertTrue("the costs set make the load uneven: " + before + " " + busy(), before > 1.6);

        Map<String, String> balanced = Waiting.value(SOON, () -> "the busiest within 1.25 of the mean, now "
                + busy() + leases() + "\n" + sharder.err(), () -> settledOwners().filter(owners -> busiestOverMean() <= 1.25));
        List<Event> steps = admin.events().v1().events().inNamespace("default").list().getItems().stream()
                .filter(event -> "Balanced".equals(event.getReason()) && RING.equals(event.getRegarding().getName()))
                .toList();
        assertTrue("Balanced events on the ring: " + steps, !steps.isEmpty());
        assertTrue(steps.get(0).getNote(), steps.get(0).getNote().contains("imbalance"));
        System.out.printf("BALANCING v1.36 N=%d: busiest/mean %.2f by hash, %.2f after %d load steps: %s%n", OBJECTS,
                before, busiestOverMean(), steps.size(), steps.stream().map(Event::getNote).toList());
        assertEquals("every shard still serves", SHARDS.size(), balanced.values().stream().distinct().count());

        assertEquals("reconciles of one object by two shards at overlapping times", 0, shards.overlaps());
        String shardUser = "system:serviceaccount:" + RING + ":checksum-controller";
        List<AuditLog.Event> writes = cluster.server().audit().events();
        assertEquals("ConfigMap writes by the sharder or a shard", List.of(), writes.stream()
                .filter(e -> e.resource().equals("configmaps") && e.namespace().equals(RING)
                        && (e.user().equals(SHARDER_USER) || e.user().equals(shardUser))).toList());
    }

    /** Each ConfigMap's shard if every shard serves exactly what it is assigned and each ConfigMap is in one's. */
    private Optional<Map<String, String>> settledOwners() {
        Map<String, List<BigInteger[]>> served = new TreeMap<>();
        for (Lease lease : admin.leases().inNamespace(RING).list().getItems()) {
            Map<String, String> annotations = lease.getMetadata().getAnnotations();
            String assigned = annotations == null ? null : annotations.get(RingContract.ASSIGNED_RANGES_ANNOTATION);
            if (assigned == null || !assigned.equals(annotations.get(RingContract.SERVED_RANGES_ANNOTATION))) {
                return Optional.empty();
            }
            served.put(lease.getMetadata().getName(), HashRanges.parse(assigned));
        }
        Map<String, String> owners = new TreeMap<>();
        hashes.forEach((name, hash) -> served.forEach((shard, ranges) -> {
            if (ranges.stream().anyMatch(range -> hash.compareTo(range[0]) >= 0 && hash.compareTo(range[1]) < 0)) {
                owners.merge(name, shard, (first, second) -> "(two)");
            }
        }));
        boolean once = served.keySet().containsAll(SHARDS) && owners.size() == OBJECTS
                && !owners.containsValue("(two)");
        return once ? Optional.of(owners) : Optional.empty();
    }

    /**
     * Each shard's busy time per second over the last {@link #WINDOW}, from the reconcile lines the shards print
     * (start and end of each reconcile, the cost included): the test's own measure, not the shards' load reports.
     */
    private Map<String, Double> busy() {
        long to = System.currentTimeMillis();
        long from = to - WINDOW.toMillis();
        Map<String, Double> busy = new TreeMap<>();
        SHARDS.forEach(shard -> busy.put(shard, 0.0));
        for (ReconcileLine line : shards.reconciles()) {
            long overlap = Math.min(line.end(), to) - Math.max(line.start(), from);
            if (overlap > 0) {
                busy.merge(line.shard(), overlap / (double) WINDOW.toMillis(), Double::sum);
            }
        }
        return busy;
    }

    private double busiestOverMean() {
        Map<String, Double> busy = busy();
        double total = busy.values().stream().mapToDouble(Double::doubleValue).sum();
        double most = busy.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return total == 0 ? 1.0 : most / (total / busy.size());
    }

    private String leases() {
        StringBuilder text = new StringBuilder();
        for (Lease lease : admin.leases().inNamespace(RING).list().getItems()) {
            Map<String, String> annotations = lease.getMetadata().getAnnotations();
            text.append("\n  ").append(lease.getMetadata().getName()).append(": ").append(annotations);
        }
        return text.toString();
    }
}
