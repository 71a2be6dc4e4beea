package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.RingObjects;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.testing.apiserver.Fnv1a;
import dev.ringmaster.testing.apiserver.HashRanges;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.math.BigInteger;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.After;
import org.junit.Test;

/**
 * Cluster-scoped objects sharded on the real API server: a ClusterRing over {@code ClusterWidget}s, a
 * cluster-scoped CRD of the test's own (no controller needs to run for it, and a ring over a built-in
 * cluster-scoped resource would also take in the server's own objects of it: ClusterRoles, the system
 * PriorityClasses). The shards are Leases without processes; the test does what their shards would:
 * it acknowledges drains (label mode) and serves what it is assigned (range mode).
 *
 * <p>Label mode (the server every {@code *RealIT} shares): objects created before the sharder starts
 * and objects created with it running (the webhook labels them at create) are each on a live shard; a
 * new shard gets exactly the objects that move, through drains; a shard that releases its Lease loses
 * all its objects and only those move. Range mode (v1.36 with {@code ShardedListAndWatch}): the shard
 * Leases' assigned ranges hold each object's hash (FNV-1a 64 of its uid, computed here) exactly once, the
 * server's list of the cluster-scoped resource with a shard's {@code shardSelector} is exactly the objects
 * in its ranges, no object is labelled, and a new shard takes ranges.
 */
public class ClusterScopedRealIT {

    private static final String GROUP = "clusterscoped.ringmaster.dev";
    private static final String API_VERSION = GROUP + "/v1";
    private static final String KIND = "ClusterWidget";
    private static final String PLURAL = "clusterwidgets";
    /** The shard Leases' namespace: the ring's objects have none. */
    private static final String LEASES = "cluster-scoped-shards";
    private static final int BEFORE = 20;
    private static final int AFTER = 20;
    private static final Duration SOON = Duration.ofSeconds(60);

    private KubernetesClient admin;
    private Cli.Started sharder;
    private String ring;

    @After
    public void stop() throws InterruptedException {
        if (sharder != null) {
            // gracefully: the next class's sharder on this server need not wait for the election Lease
            sharder.process().destroy();
            if (!sharder.process().waitFor(20, TimeUnit.SECONDS)) {
                Cli.kill(sharder);
            }
        }
        if (ring != null) {
            // the server is shared with other classes: their sharders need not see this ring
            admin.genericKubernetesResources(RingContract.API_GROUP + "/" + RingContract.API_VERSION,
                    RingKind.CLUSTER_RING.kind()).withName(ring).delete();
        }
    }

    @Test
    public void labelModeAssignsAndMovesClusterScopedObjects() {
        RealCluster cluster = RealCluster.get();
        RingObjects shards = install(cluster, "cluster-scoped", "");
        String shardLabel = shards.shardLabel();
        cluster.liveShardLease(LEASES, "shard-0", ring);
        cluster.liveShardLease(LEASES, "shard-1", ring);
        createWidgets(0, BEFORE);

        sharder = start(cluster, ring);
        Set<String> two = Set.of("shard-0", "shard-1");
        shards.awaitAvailable(two, SOON, sharder::err);
        awaitSettled(shards, two, BEFORE);

        Waiting.until(SOON, () -> "the API server calls the webhook for " + KIND + "s\n" + sharder.err(),
                () -> RingState.labels(widgets().resource(widget("webhook-probe")).dryRun().create())
                        .containsKey(shardLabel));
        for (int i = BEFORE; i < BEFORE + AFTER; i++) {
            GenericKubernetesResource created = widgets().resource(widget("widget-" + i)).create();
            assertTrue("labelled with a live shard by the webhook at create: " + RingState.labels(created),
                    two.contains(RingState.labels(created).get(shardLabel)));
        }
        Map<String, String> onTwo = awaitSettled(shards, two, BEFORE + AFTER);

        cluster.liveShardLease(LEASES, "shard-2", ring);
        Set<String> three = Set.of("shard-0", "shard-1", "shard-2");
        Map<String, String> onThree = awaitSettled(shards, three, BEFORE + AFTER);
        assertEquals("the objects that moved are exactly those on the new shard", on(onThree, "shard-2"),
                moved(onTwo, onThree));

        // released as a shard does on a graceful stop; a merge patch, unpinned: the sharder may be labelling the Lease
        admin.leases().inNamespace(LEASES).withName("shard-0").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"holderIdentity\":null}}");
        Set<String> left = Set.of("shard-1", "shard-2");
        Map<String, String> onLeft = awaitSettled(shards, left, BEFORE + AFTER);
        assertEquals("the objects that moved are exactly those of the shard that left", on(onThree, "shard-0"),
                moved(onThree, onLeft));
    }

    @Test
    public void rangeModeCoversEveryClusterScopedObjectAndTheServerFiltersByRange() {
        RealCluster cluster = RealCluster.shardedListAndWatch();
        RingObjects shards = install(cluster, "cluster-scoped-ranges", """
                  ranges:
                    key: uid
                    buckets: 16
                """);
        cluster.liveRangeShardLease(LEASES, "shard-0", ring);
        cluster.liveRangeShardLease(LEASES, "shard-1", ring);
        createWidgets(0, BEFORE);
        Map<String, BigInteger> hashes = widgetList().stream().collect(Collectors.toMap(w -> w.getMetadata().getName(),
                w -> HashRanges.unsigned(Fnv1a.fnv1a64(w.getMetadata().getUid()))));
        assertEquals(BEFORE, hashes.size());

        sharder = start(cluster, ring);
        Map<String, String> onTwo = awaitRanges(shards, Set.of("shard-0", "shard-1"), hashes);
        cluster.liveRangeShardLease(LEASES, "shard-2", ring);
        Map<String, String> onThree = awaitRanges(shards, Set.of("shard-0", "shard-1", "shard-2"), hashes);
        assertEquals("objects labelled with a shard (range mode labels nothing)", List.of(), widgetList().stream()
                .filter(w -> RingState.labels(w).containsKey(shards.shardLabel())).toList());
        assertTrue("some objects moved to shard-2", !moved(onTwo, onThree).isEmpty());
        assertEquals("the objects that moved are exactly those now in shard-2's ranges", on(onThree, "shard-2"),
                moved(onTwo, onThree));
    }

    /**
     * The CRD, the sharder's permission for it, the Leases' namespace and the ClusterRing {@code name}
     * over the CRD's objects (with {@code moreSpec}); the ring's shard Leases as a {@link RingState}.
     */
    private RingObjects install(RealCluster cluster, String name, String moreSpec) {
        admin = cluster.admin();
        admin.apiextensions().v1().customResourceDefinitions().resource(admin.getKubernetesSerialization().unmarshal("""
                apiVersion: apiextensions.k8s.io/v1
                kind: CustomResourceDefinition
                metadata:
                  name: %s.%s
                spec:
                  group: %s
                  scope: Cluster
                  names: {kind: %s, plural: %s, singular: clusterwidget, listKind: ClusterWidgetList}
                  versions:
                  - name: v1
                    served: true
                    storage: true
                    schema:
                      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
                """.formatted(PLURAL, GROUP, GROUP, KIND, PLURAL), CustomResourceDefinition.class)).serverSideApply();
        Waiting.until(Duration.ofSeconds(30), () -> "the " + KIND + " CRD established", () -> admin.apiextensions().v1()
                .customResourceDefinitions().withName(PLURAL + "." + GROUP).get().getStatus().getConditions().stream()
                .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus())));
        cluster.grantShardedResources("itests-cluster-widgets", GROUP, List.of(PLURAL));
        cluster.namespace(LEASES);
        ring = name;
        cluster.clusterRing(name, """
                  resources:
                  - group: %s
                    resource: %s
                """.formatted(GROUP, PLURAL) + moreSpec);
        return new RingObjects(admin, RingKind.CLUSTER_RING, name, LEASES);
    }

    private static Cli.Started start(RealCluster cluster, String name) {
        SharderHome replica = SharderHome.prepare(name);
        return cluster.runSharder(replica, cluster.sharderKubeconfig(replica));
    }

    private NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList,
            Resource<GenericKubernetesResource>> widgets() {
        return admin.genericKubernetesResources(API_VERSION, KIND);
    }

    private List<GenericKubernetesResource> widgetList() {
        return widgets().list().getItems();
    }

    private static GenericKubernetesResource widget(String name) {
        return new GenericKubernetesResourceBuilder().withApiVersion(API_VERSION).withKind(KIND)
                .withNewMetadata().withName(name).endMetadata().build();
    }

    private void createWidgets(int from, int to) {
        IntStream.range(from, to).parallel().forEach(i -> widgets().resource(widget("widget-" + i)).create());
    }

    /**
     * Label mode: acknowledges every drain as a shard does (both labels removed; the webhook reassigns in
     * that request) until every one of {@code count} objects is on one of {@code available}, each of them
     * has some and none is in drain, and that holds for 2 s. Returns the placement.
     */
    private Map<String, String> awaitSettled(RingState shards, Set<String> available, int count) {
        shards.awaitSettled(available, SOON, Duration.ofSeconds(2), () -> {
            acknowledgeDrains(shards);
            return unsettled(shards, available, count);
        }, () -> "placement " + placement(shards) + "\n" + sharder.err());
        return placement(shards);
    }

    private void acknowledgeDrains(RingState shards) {
        for (GenericKubernetesResource drained : widgetList()) {
            if (RingState.labels(drained).containsKey(shards.drainLabel())) {
                widgets().withName(drained.getMetadata().getName()).edit(w -> {
                    w.getMetadata().getLabels().remove(shards.drainLabel());
                    w.getMetadata().getLabels().remove(shards.shardLabel());
                    return w;
                });
            }
        }
    }

    private List<String> unsettled(RingState shards, Set<String> available, int count) {
        Map<String, String> placement = placement(shards);
        List<String> problems = new ArrayList<>();
        if (placement.size() != count) {
            problems.add(placement.size() + " objects, expected " + count);
        }
        placement.forEach((name, shard) -> {
            if (!available.contains(shard)) {
                problems.add(name + " on " + shard + ", not an available shard");
            }
        });
        available.stream().filter(shard -> !placement.containsValue(shard)).forEach(shard -> problems.add(shard
                + " has no objects yet"));
        widgetList().stream().filter(w -> RingState.labels(w).containsKey(shards.drainLabel()))
                .forEach(w -> problems.add(w.getMetadata().getName() + " in drain"));
        return problems;
    }

    /** Each object's shard by its label, {@code (none)} if unassigned. */
    private Map<String, String> placement(RingState shards) {
        return widgetList().stream().collect(Collectors.toMap(w -> w.getMetadata().getName(),
                w -> RingState.labels(w).getOrDefault(shards.shardLabel(), "(none)"), (a, b) -> a, TreeMap::new));
    }

    /**
     * Range mode: serves, as each of {@code live} would, what it is assigned (its {@code served-ranges}
     * set to its {@code assigned-ranges}, so that a shrink is acknowledged and the sharder can grant the
     * range to another) until each of {@code live} serves a non-empty assignment, every other Lease of the
     * ring is assigned nothing, and every object's hash is in the ranges of exactly one shard; then checks
     * that the server's list with each shard's {@code shardSelector} is exactly its objects. Returns the
     * owner of each object.
     */
    private Map<String, String> awaitRanges(RingState shards, Set<String> live, Map<String, BigInteger> hashes) {
        Map<String, List<BigInteger[]>> assigned = Waiting.value(SOON, () -> "ranges of " + live + " assigned and"
                + " served, covering every object once; Leases " + shards.leases().values().stream()
                .map(l -> l.getMetadata().getName() + "=" + l.getMetadata().getAnnotations()).toList() + "\n"
                + sharder.err(), () -> {
                    Map<String, List<BigInteger[]>> ranges = new TreeMap<>();
                    boolean settled = true;
                    for (Lease lease : shards.leases().values()) {
                        String name = lease.getMetadata().getName();
                        String text = annotation(lease, RingContract.ASSIGNED_RANGES_ANNOTATION);
                        if (!text.equals(annotation(lease, RingContract.SERVED_RANGES_ANNOTATION))) {
                            admin.leases().inNamespace(LEASES).withName(name).edit(l -> {
                                l.getMetadata().getAnnotations().put(RingContract.SERVED_RANGES_ANNOTATION, text);
                                return l;
                            });
                            settled = false;
                        }
                        if (!text.isEmpty()) {
                            ranges.put(name, HashRanges.parse(text));
                        }
                    }
                    return java.util.Optional.ofNullable(settled && ranges.keySet().equals(live)
                            && owners(ranges, hashes) != null ? ranges : null);
                });
        Map<String, String> owners = owners(assigned, hashes);
        for (Map.Entry<String, List<BigInteger[]>> shard : assigned.entrySet()) {
            assertEquals("the server's list with " + shard.getKey() + "'s shardSelector",
                    on(owners, shard.getKey()), listedWith(shard.getValue()));
        }
        return owners;
    }

    /** Each object's owner by the ranges; null if some object's hash is in no shard's ranges or in two. */
    private static Map<String, String> owners(Map<String, List<BigInteger[]>> ranges, Map<String, BigInteger> hashes) {
        Map<String, String> owners = new TreeMap<>();
        for (Map.Entry<String, BigInteger> object : hashes.entrySet()) {
            List<String> holders = ranges.entrySet().stream().filter(shard -> shard.getValue().stream().anyMatch(
                    range -> object.getValue().compareTo(range[0]) >= 0 && object.getValue().compareTo(range[1]) < 0))
                    .map(Map.Entry::getKey).toList();
            if (holders.size() != 1) {
                return null;
            }
            owners.put(object.getKey(), holders.get(0));
        }
        return owners;
    }

    /** The names the server lists with the KEP-5866 {@code shardSelector} of {@code ranges}. */
    private Set<String> listedWith(List<BigInteger[]> ranges) {
        String selector = ranges.stream().map(range -> "shardRange(" + RangeKey.UID.field() + ", '" + hex(range[0])
                + "', '" + hex(range[1]) + "')").collect(Collectors.joining(" || "));
        String json = admin.raw("/apis/" + API_VERSION + "/" + PLURAL + "?shardSelector="
                + URLEncoder.encode(selector, StandardCharsets.UTF_8).replace("+", "%20"));
        return admin.getKubernetesSerialization().unmarshal(json, GenericKubernetesResourceList.class).getItems()
                .stream().map(w -> w.getMetadata().getName()).collect(Collectors.toCollection(TreeSet::new));
    }

    private static String hex(BigInteger value) {
        return "0x" + String.format("%016x", value);
    }

    private static String annotation(Lease lease, String name) {
        Map<String, String> annotations = lease.getMetadata().getAnnotations();
        return annotations == null || annotations.get(name) == null ? "" : annotations.get(name).strip();
    }

    /** The objects {@code placement} puts on {@code shard}. */
    private static Set<String> on(Map<String, String> placement, String shard) {
        return placement.entrySet().stream().filter(e -> e.getValue().equals(shard)).map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The objects whose shard differs between the two placements. */
    private static Set<String> moved(Map<String, String> before, Map<String, String> after) {
        Map<String, String> was = new HashMap<>(before);
        return after.entrySet().stream().filter(e -> !e.getValue().equals(was.get(e.getKey()))).map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
