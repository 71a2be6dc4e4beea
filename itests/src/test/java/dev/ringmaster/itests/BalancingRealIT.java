package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.examples.checksum.Cost;
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
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * Load-aware balancing (issue 33, docs/design.md sections 10 and 10.2) end to end on kube-apiserver v1.36 with the
 * {@code ShardedListAndWatch} gate: {@code bin/ringmaster run} with the {@code load-aware} policy bundle, and three
 * {@code bin/checksum-controller} shards that reconcile every ConfigMap every 10 s and publish their load on their
 * Leases every 30 s (whole resyncs: a report window holds the same number of each object's reconciles). Once the
 * ring is placed (range mode: 16 buckets, placed evenly by the policy, nothing reported yet; label mode: labelled by
 * consistent hashing at creation), the test makes the ConfigMaps of one shard a hundred times as costly as the
 * others'. The test measures each shard's load itself: how long each object's reconciles take (from the start and
 * end the shards print), once per resync, summed over the objects the shard holds. The busiest starts above 1.5
 * times the mean (less than the costs alone say: each reconcile also does its own work, slower on a loaded machine)
 * and must come within 1.25 of it through the leader's load steps, told in {@code Balanced} Events on the ring: in
 * range mode ranges move, with no ConfigMap written by the sharder or a shard; in label mode shard weights change
 * and objects move through the drain handover. No object is reconciled by two shards at once.
 */
public class BalancingRealIT {

    private static final int OBJECTS = 45;
    /**
     * Large beside a reconcile's own work (about 0.1 s on a loaded machine: at 300 ms the busiest shard, with fewer
     * objects than the others, measured only 1.45 times the mean), small enough that the hot shard's one worker keeps
     * up with its resyncs.
     */
    private static final Duration HOT = Duration.ofMillis(500);
    private static final Duration COLD = Duration.ofMillis(5);
    private static final List<String> SHARDS = List.of("shard-0", "shard-1", "shard-2");
    private static final Duration RESYNC = Duration.ofSeconds(10);
    private static final List<String> SHARD_FLAGS = List.of("--range-mode", "--resync", RESYNC.toSeconds() + "s",
            "--load-report-period", RESYNC.multipliedBy(3).toSeconds() + "s");
    private static final String SHARDER_USER =
            "system:serviceaccount:" + RealCluster.SYSTEM_NAMESPACE + ":" + RealCluster.SHARDER_ACCOUNT;
    private static final Duration SOON = Duration.ofMinutes(4);

    private RealCluster cluster;
    private KubernetesClient admin;
    /** The ring of the test running, and its namespace: each test has its own, as the server outlives them. */
    private String ring;
    private SharderHome replica;
    private Cli.Started sharder;
    private ShardFleet shards;
    /** When the test set the costs: reconciles that started before are not measured. */
    private long costsSet;
    /** Each ConfigMap's name and FNV-1a 64 of its uid, unsigned. */
    private final Map<String, BigInteger> hashes = new TreeMap<>();

    @Before
    public void start() {
        cluster = RealCluster.shardedListAndWatch();
        admin = cluster.admin();
        replica = SharderHome.prepare("balancing");
        sharder = cluster.runSharder(replica, cluster.sharderKubeconfig(replica));
    }

    /** The ring's namespace and shards' fleet: the test makes the ring itself. */
    private void ring(String name) {
        ring = name;
        cluster.namespace(name);
        shards = new ShardFleet(cluster, replica.home(), name, name);
    }

    @After
    public void stop() throws InterruptedException {
        if (shards != null) {
            shards.close();
        }
        if (admin != null) {
            cluster.stopSharderAndDeleteRing(sharder, ring);
        }
    }

    @Test
    public void loadStepsMoveRangesFromTheBusyShardUntilTheLoadIsEvenWithoutAnOverlapOrAnObjectWrite() throws Exception {
        ring("balancing");
        cluster.rangeModeConfigMapRing(ring, ring, "uid", 16, """
                    balancing:
                      maxImbalancePercent: 10
                      maxMovePercent: 50
                      intervalSeconds: 30
                      stabilizationSeconds: 20
                """);
        List<Event> steps = balance(SHARD_FLAGS, this::settledRanges, "three shards serving their assigned ranges");
        assertTrue(steps.get(0).getNote(), steps.get(0).getNote().contains("imbalance"));

        String shardUser = "system:serviceaccount:" + ring + ":checksum-controller";
        List<AuditLog.Event> writes = cluster.server().audit().events();
        assertEquals("ConfigMap writes by the sharder or a shard", List.of(), writes.stream()
                .filter(e -> e.resource().equals("configmaps") && e.namespace().equals(ring)
                        && (e.user().equals(SHARDER_USER) || e.user().equals(shardUser))).toList());
    }

    /**
     * Label mode: the leader lowers the busy shard's weight ({@code status.balancing}) and raises the others', and the
     * objects the new weights move go through the drain handover.
     */
    @Test
    public void labelModeLoadStepsChangeShardWeightsUntilTheLoadIsEvenWithoutAnOverlap() throws Exception {
        ring("weights");
        cluster.clusterRing(ring, """
                  resources:
                  - group: ""
                    resource: configmaps
                  namespaceSelector:
                    matchLabels: {kubernetes.io/metadata.name: %s}
                  balancing:
                    maxImbalancePercent: 10
                    maxMovePercent: 50
                    intervalSeconds: 30
                    stabilizationSeconds: 20
                """.formatted(ring));
        List<Event> steps = balance(List.of("--resync", RESYNC.toSeconds() + "s", "--load-report-period",
                RESYNC.multipliedBy(3).toSeconds() + "s"), this::settledLabels, "every ConfigMap labelled, none in drain");
        assertTrue(steps.get(0).getNote(), steps.get(0).getNote().contains("shard weights"));
        Map<String, Object> weights = storedRing().get("status", "balancing", "weightPercent");
        int busy = ((Number) weights.get("shard-0")).intValue();
        assertTrue("the busy shard weighs least: " + weights, weights.values().stream()
                .allMatch(percent -> ((Number) percent).intValue() >= busy) && weights.values().stream()
                .anyMatch(percent -> ((Number) percent).intValue() > busy));
    }

    /**
     * Starts the shards with {@code flags}, creates the ConfigMaps, waits until {@code owners} says where each is,
     * makes those of shard-0 costly and waits until the busiest shard is within 1.25 of the mean; checks for overlaps
     * and answers the ring's Balanced Events.
     */
    private List<Event> balance(List<String> flags, Supplier<Optional<Map<String, String>>> owners, String settled)
            throws InterruptedException {
        for (String shard : SHARDS) {
            shards.start(shard, flags);
        }
        // objects created before every shard is available would move once more when the last one is
        Waiting.until(SOON, () -> "three shards available, now " + leases() + "\n" + sharder.err(),
                () -> Integer.valueOf(SHARDS.size()).equals(storedRing().get("status", "availableShards")));
        for (int i = 0; i < OBJECTS; i++) {
            ConfigMap created = admin.configMaps().inNamespace(ring).resource(new ConfigMapBuilder().withNewMetadata()
                    .withName("cm-" + i).endMetadata().addToData("value", "v" + i).build()).create();
            hashes.put(created.getMetadata().getName(), HashRanges.unsigned(Fnv1a.fnv1a64(created.getMetadata().getUid())));
        }
        Map<String, String> placed = Waiting.value(SOON, () -> settled + ", now " + leases() + "\n" + sharder.err(),
                owners::get);
        for (Map.Entry<String, String> owner : placed.entrySet()) {
            Duration cost = owner.getValue().equals("shard-0") ? HOT : COLD;
            // a merge patch, not locked to a version: the sharder may be writing the labels meanwhile
            admin.configMaps().inNamespace(ring).withName(owner.getKey()).patch(PatchContext.of(PatchType.JSON_MERGE),
                    "{\"metadata\":{\"annotations\":{\"" + Cost.ANNOTATION + "\":\"" + cost.toMillis() + "ms\"}}}");
        }
        costsSet = System.currentTimeMillis();
        // every object reconciled at its cost a few times before the test measures
        Thread.sleep(RESYNC.multipliedBy(3).toMillis());
        double before = busiestOverMean(placed);
        assertTrue("the costs set make the load uneven: " + before + " " + load(placed), before > 1.5);

        Map<String, String> balanced = Waiting.value(SOON, () -> "the busiest within 1.25 of the mean, now "
                + leases() + "\n" + sharder.err(), () -> owners.get().filter(now -> busiestOverMean(now) <= 1.25));
        List<Event> steps = admin.events().v1().events().inNamespace("default").list().getItems().stream()
                .filter(event -> "Balanced".equals(event.getReason()) && ring.equals(event.getRegarding().getName()))
                .toList();
        assertTrue("Balanced events on the ring: " + steps, !steps.isEmpty());
        System.out.printf("BALANCING v1.36 N=%d: busiest/mean %.2f by hash, %.2f after %d load steps: %s%n", OBJECTS,
                before, busiestOverMean(balanced), steps.size(), steps.stream().map(Event::getNote).toList());
        assertEquals("every shard still serves", SHARDS.size(), balanced.values().stream().distinct().count());
        assertEquals("reconciles of one object by two shards at overlapping times", 0, shards.overlaps());
        return steps;
    }

    private GenericKubernetesResource storedRing() {
        return admin.genericKubernetesResources(RingContract.API_GROUP + "/" + RingContract.API_VERSION,
                RingKind.CLUSTER_RING.kind()).withName(ring).get();
    }

    /** Each ConfigMap's shard if every one is labelled with one and none is in drain. */
    private Optional<Map<String, String>> settledLabels() {
        Map<String, String> owners = new TreeMap<>();
        for (ConfigMap configMap : admin.configMaps().inNamespace(ring).list().getItems()) {
            Map<String, String> labels = Optional.ofNullable(configMap.getMetadata().getLabels()).orElse(Map.of());
            String shard = labels.get(RingContract.shardLabel(ring));
            if (shard == null || labels.containsKey(RingContract.drainLabel(ring))) {
                return Optional.empty();
            }
            owners.put(configMap.getMetadata().getName(), shard);
        }
        return owners.size() == OBJECTS ? Optional.of(owners) : Optional.empty();
    }

    /** Each ConfigMap's shard if every shard serves exactly what it is assigned and each ConfigMap is in one's. */
    private Optional<Map<String, String>> settledRanges() {
        Map<String, List<BigInteger[]>> served = new TreeMap<>();
        for (Lease lease : admin.leases().inNamespace(ring).list().getItems()) {
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
     * Each shard's load, by the test's own measure: for each object it is assigned, how long the object's reconciles
     * take on average since the costs were set (the start and end of every reconcile the shards printed, the cost
     * included), once per resync.
     * Not the shards' load reports, and free of when a window starts.
     */
    private Map<String, Double> load(Map<String, String> owners) {
        Map<String, double[]> took = new TreeMap<>();
        for (ReconcileLine line : shards.reconciles()) {
            if (line.start() < costsSet + 1000) {
                continue; // at its old cost, or may be
            }
            double[] sumAndCount = took.computeIfAbsent(line.name(), name -> new double[2]);
            sumAndCount[0] += (line.end() - line.start()) / 1000.0;
            sumAndCount[1]++;
        }
        Map<String, Double> load = new TreeMap<>();
        SHARDS.forEach(shard -> load.put(shard, 0.0));
        owners.forEach((name, shard) -> {
            double[] sumAndCount = took.get(name);
            if (sumAndCount != null) {
                load.merge(shard, sumAndCount[0] / sumAndCount[1] / RESYNC.toSeconds(), Double::sum);
            }
        });
        return load;
    }

    private double busiestOverMean(Map<String, String> owners) {
        Map<String, Double> load = load(owners);
        double total = load.values().stream().mapToDouble(Double::doubleValue).sum();
        double most = load.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return total == 0 ? 1.0 : most / (total / load.size());
    }

    private String leases() {
        StringBuilder text = new StringBuilder();
        for (Lease lease : admin.leases().inNamespace(ring).list().getItems()) {
            Map<String, String> annotations = lease.getMetadata().getAnnotations();
            text.append("\n  ").append(lease.getMetadata().getName()).append(": ").append(annotations);
        }
        return text.toString();
    }
}
