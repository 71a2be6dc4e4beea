package dev.ringmaster.sharder.app;

import static dev.ringmaster.ring.testing.PinnedContract.ASSIGNED;
import static dev.ringmaster.ring.testing.PinnedContract.RANGE_KEY;
import static dev.ringmaster.ring.testing.PinnedContract.SERVED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.testing.TestLeases;
import dev.ringmaster.testing.apiserver.AuditLog;
import dev.ringmaster.testing.apiserver.Fnv1a;
import dev.ringmaster.testing.apiserver.HashRanges;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Range mode on a real API server (docs/design.md section 9), the sharder's side: a range-mode ClusterRing with 3,
 * then 4 shard Leases that the test renews, and whose {@code served-ranges} the test writes as a shard would (a
 * range assigned is served at once; one taken away is let go a moment later, as a shard draining its reconciles).
 * Every state of the Leases a watch sees has pairwise disjoint assigned sets and pairwise disjoint served sets;
 * the assignments converge to the placement over the live shards; a shard that stops renewing is fenced and its
 * ranges move though it never acknowledged; and the sharder writes no ConfigMap of the ring. Switched to label
 * mode, the shards keep their ranges until a shard that serves by labels joins; then the ranges come back a slice at a
 * time, the return waiting for a shard that holds on to a slice taken; the sharder labels only ConfigMaps outside every
 * served range, and all of them for the shard of labels once no range is served.
 */
class RangeAssignerIT {

    private static final String NAMESPACE = "range-assigner-it";
    private static final String RING = "range-assigner-it";
    private static final int BUCKETS = 16;
    private static final int LEASE_SECONDS = 3;
    /** How long a simulated shard takes to let go of ranges taken away from it. */
    private static final Duration DRAIN = Duration.ofMillis(700);
    /** The label format is pinned by RingKindCrdsIT; here only which shard it names matters. */
    private static final String SHARD_LABEL = RingContract.shardLabel(RING);

    private static final RealApiServer CLUSTER = RealApiServer.shared();
    private static final KubernetesClient ADMIN = CLUSTER.admin();

    /** The shards the test plays, renewing and serving; a shard removed from it stops both. */
    private final Set<String> live = ConcurrentHashMap.newKeySet();
    /** The shards the test plays in label mode: renewing only, their Leases announcing no ranges. */
    private final Set<String> byLabels = ConcurrentHashMap.newKeySet();
    /** Live shards that keep serving ranges taken away from them, as a shard slow to drain its reconciles. */
    private final Set<String> holding = ConcurrentHashMap.newKeySet();
    /** When each shard first saw ranges taken away that it still serves. */
    private final Map<String, Instant> draining = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    /** Every Lease of the namespace as the watch last delivered it, in the order the API server wrote them. */
    private final Map<String, Lease> seen = new TreeMap<>();
    private int statesSeen;

    @Test
    void assignmentsAreDisjointAtEveryMomentAndFollowThePlacementAndNoObjectIsWritten() throws Exception {
        RingCrds.install(ADMIN, RingCrds.CLUSTER_RING_CRD);
        ADMIN.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
                .serverSideApply();
        for (int i = 0; i < 5; i++) { // objects the ring would label in label mode
            ADMIN.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata()
                    .withName("cm-" + i).endMetadata().build()).serverSideApply();
        }
        Instant start = Instant.now();
        ring();
        // a watch from the list's resourceVersion sees every state of the Leases, in order
        String version = ADMIN.leases().inNamespace(NAMESPACE).list().getMetadata().getResourceVersion();
        ScheduledExecutorService shards = Executors.newSingleThreadScheduledExecutor();
        try (var watch = ADMIN.leases().inNamespace(NAMESPACE).watch(new ListOptionsBuilder()
                .withResourceVersion(version).build(), new Observer());
                SharderReplica sharder = TestReplicas.withDefaults(ADMIN, NAMESPACE, "range-assigner-it")) {
            for (String shard : List.of("shard-0", "shard-1", "shard-2")) {
                join(shard);
            }
            shards.scheduleWithFixedDelay(this::playShards, 0, 200, TimeUnit.MILLISECONDS);
            sharder.start();
            await().atMost(Duration.ofSeconds(60)).until(sharder::isLeader);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(readyMessage())
                    .isEqualTo("sharding by ranges of the hash of object.metadata.uid in 16 buckets (spec.ranges),"
                            + " published on the shard Leases"));

            awaitPlacement(List.of("shard-0", "shard-1", "shard-2"));
            assertThat(annotation("shard-0", RANGE_KEY)).isEqualTo("uid");

            join("shard-3");
            awaitPlacement(List.of("shard-0", "shard-1", "shard-2", "shard-3"));

            // shard-3 stops, serving its ranges to the end: only once its Lease is taken may they move
            String stopped = "shard-3";
            live.remove(stopped);
            awaitPlacement(List.of("shard-0", "shard-1", "shard-2"));
            assertThat(ADMIN.leases().inNamespace(NAMESPACE).withName(stopped).get().getSpec().getHolderIdentity())
                    .isEqualTo("shardlease-controller");
            assertThat(RangeSet.parse(annotation(stopped, SERVED))).as("it never acknowledged").isNotEqualTo(RangeSet.EMPTY);
            assertThat(annotation(stopped, ASSIGNED)).isEmpty();

            assertThat(sharder.registry().view(RingKey.clusterRing(RING)).orElseThrow().canAct()).isFalse();
            assertNothingWritten(start);
            assertThat(ADMIN.admissionRegistration().v1().mutatingWebhookConfigurations().list().getItems())
                    .noneMatch(configuration -> configuration.getMetadata().getName().endsWith(RING));

            // switched to label mode: the ranges stay served until a shard of labels joins
            holding.add("shard-2");
            RingCrds.applyRing(ADMIN, "ClusterRing", RING, NAMESPACE, "shardRestartGraceSeconds: 0");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(readyCondition())
                    .containsEntry("reason", "RangesStillServed"));
            Map<String, RangeSet> placement = RangePlacement.place(List.of("shard-0", "shard-1", "shard-2"), BUCKETS);
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                for (String shard : List.of("shard-0", "shard-1", "shard-2")) {
                    assertThat(RangeSet.parse(annotation(shard, ASSIGNED))).as("%s assigned", shard)
                            .isEqualTo(placement.get(shard));
                }
            });

            // a shard of labels joins: the ranges come back a slice at a time, and the return waits for shard-2,
            // which keeps serving what it is taken; only ConfigMaps outside every served range are labelled meanwhile
            ADMIN.leases().inNamespace(NAMESPACE).resource(TestLeases.shardLease(NAMESPACE, "label-0", RING,
                    Instant.now(), LEASE_SECONDS).build()).create();
            byLabels.add("label-0");
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                    assertThat(RangeSet.parse(annotation("shard-2", SERVED))
                            .minus(RangeSet.parse(annotation("shard-2", ASSIGNED)))).as("shard-2 holds a slice taken")
                            .isNotEqualTo(RangeSet.EMPTY));
            Map<String, String> assignedWhileHeld = new TreeMap<>();
            for (String shard : List.of("shard-0", "shard-1", "shard-2")) {
                assignedWhileHeld.put(shard, annotation(shard, ASSIGNED));
            }
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        for (String shard : List.of("shard-0", "shard-1", "shard-2")) {
                            assertThat(annotation(shard, ASSIGNED)).as("%s assigned while shard-2 holds on", shard)
                                    .isEqualTo(assignedWhileHeld.get(shard));
                        }
                        assertThat(readyCondition()).containsEntry("reason", "RangesStillServed");
                        assertOnlyUnservedConfigMapsLabelled();
                    });

            holding.remove("shard-2");
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                assertOnlyUnservedConfigMapsLabelled();
                for (String shard : List.of("shard-0", "shard-1", "shard-2")) {
                    assertThat(annotation(shard, ASSIGNED)).as("%s assigned", shard).isEmpty();
                    assertThat(RangeSet.parse(annotation(shard, SERVED))).as("%s served", shard).isEqualTo(RangeSet.EMPTY);
                }
                assertThat(ADMIN.configMaps().inNamespace(NAMESPACE).list().getItems()).as("ConfigMaps labelled for"
                        + " the shard of labels").allMatch(configMap -> configMap.getMetadata().getLabels() != null
                        && "label-0".equals(configMap.getMetadata().getLabels().get(SHARD_LABEL)));
                assertThat(readyCondition()).containsEntry("status", "True");
            });
        } finally {
            // not shutdownNow: an interrupt fails the request a round is making, which is not the sharder's doing
            shards.shutdown();
            shards.awaitTermination(30, TimeUnit.SECONDS);
        }
        synchronized (seen) {
            assertThat(statesSeen).as("states of the Leases observed").isGreaterThan(10);
        }
        assertThat(violations).isEmpty();
    }

    /**
     * Every ConfigMap labelled lies outside the ranges the shards serve now, by the FNV-1a hash of its uid computed
     * here (testing/real-apiserver, not the sharder's).
     */
    private static void assertOnlyUnservedConfigMapsLabelled() {
        List<BigInteger[]> served = new ArrayList<>();
        for (Lease lease : ADMIN.leases().inNamespace(NAMESPACE).list().getItems()) {
            String ranges = annotationOf(lease, SERVED);
            if (ranges != null && !ranges.isBlank()) {
                served.addAll(HashRanges.parse(ranges));
            }
        }
        for (var configMap : ADMIN.configMaps().inNamespace(NAMESPACE).list().getItems()) {
            Map<String, String> labels = configMap.getMetadata().getLabels();
            if (labels == null || !labels.containsKey(SHARD_LABEL)) {
                continue;
            }
            BigInteger hash = HashRanges.unsigned(Fnv1a.fnv1a64(configMap.getMetadata().getUid()));
            assertThat(served).as("%s, labelled, in a range a shard serves", configMap.getMetadata().getName())
                    .noneMatch(range -> hash.compareTo(range[0]) >= 0 && hash.compareTo(range[1]) < 0);
        }
    }

    private static void assertNothingWritten(Instant start) {
        assertThat(configMapWrites(start)).as("ConfigMaps written").isEmpty();
    }

    /** The requests on ConfigMaps of the namespace since {@code start}, by anybody (the test wrote them before). */
    private static List<AuditLog.Event> configMapWrites(Instant start) {
        return CLUSTER.audit().events().stream()
                .filter(event -> "configmaps".equals(event.resource()) && NAMESPACE.equals(event.namespace())
                        && !event.received().isBefore(start))
                .toList();
    }

    @AfterAll
    static void removeTheRing() {
        RingCrds.deleteRing(ADMIN, RingCrds.CLUSTER_RING_CRD, RING);
    }

    /** Every Lease state the watch delivers is one the API server held: its assigned and served sets are checked. */
    private final class Observer implements Watcher<Lease> {
        @Override
        public void eventReceived(Action action, Lease lease) {
            synchronized (seen) {
                if (action == Action.DELETED) {
                    seen.remove(lease.getMetadata().getName());
                } else {
                    seen.put(lease.getMetadata().getName(), lease);
                }
                statesSeen++;
                check(ASSIGNED);
                check(SERVED);
            }
        }

        /**
         * The sets of {@code annotation} are pairwise disjoint; for served ranges, among the Leases their shards
         * hold: a Lease the sharder took over is a dead shard's, whose served ranges are its last words.
         */
        private void check(String annotation) {
            List<String> names = seen.values().stream()
                    .filter(lease -> annotation.equals(ASSIGNED)
                            || lease.getMetadata().getName().equals(lease.getSpec().getHolderIdentity()))
                    .map(lease -> lease.getMetadata().getName()).toList();
            for (int i = 0; i < names.size(); i++) {
                for (int j = i + 1; j < names.size(); j++) {
                    RangeSet one = ranges(seen.get(names.get(i)), annotation);
                    RangeSet other = ranges(seen.get(names.get(j)), annotation);
                    if (!one.intersect(other).isEmpty()) {
                        violations.add(annotation + " of " + names.get(i) + " (" + one + ") and " + names.get(j) + " ("
                                + other + ") overlap");
                    }
                }
            }
        }

        @Override
        public void onClose(WatcherException cause) {
            if (cause != null) {
                violations.add("the watch closed: " + cause);
            }
        }
    }

    /** One round of every live shard: renew, and bring its served ranges in line with its assignment. */
    private void playShards() {
        try {
            for (String shard : byLabels) {
                TestLeases.renew(ADMIN, NAMESPACE, shard, Instant.now());
            }
            for (String shard : live) {
                TestLeases.renew(ADMIN, NAMESPACE, shard, Instant.now());
                Lease lease = ADMIN.leases().inNamespace(NAMESPACE).withName(shard).get();
                RangeSet assigned = ranges(lease, ASSIGNED);
                RangeSet served = ranges(lease, SERVED);
                RangeSet next = served;
                if (!assigned.minus(served).isEmpty()) {
                    next = served.union(assigned); // new ranges are served at once
                } else if (!served.minus(assigned).isEmpty() && !holding.contains(shard)) {
                    Instant since = draining.computeIfAbsent(shard, any -> Instant.now());
                    if (Duration.between(since, Instant.now()).compareTo(DRAIN) >= 0) {
                        next = assigned;
                        draining.remove(shard);
                    }
                }
                if (!next.equals(served) || annotationOf(lease, SERVED) == null) {
                    String patch = ADMIN.getKubernetesSerialization().asJson(
                            Map.of("metadata", Map.of("annotations", Map.of(SERVED, next.toString()))));
                    ADMIN.leases().inNamespace(NAMESPACE).withName(shard).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
                }
            }
        } catch (KubernetesClientException e) {
            // a request of the test's own shards that did not get through (a slow server, a timeout): as a shard
            // would, the next round tries again; a shard that never gets through fails awaitPlacement
            System.err.println("a round of the shards failed, retried in the next: " + e);
        } catch (RuntimeException e) {
            violations.add("a shard failed: " + e);
        }
    }

    private void awaitPlacement(List<String> shards) {
        Map<String, RangeSet> placement = RangePlacement.place(shards, BUCKETS);
        await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            for (String shard : shards) {
                assertThat(RangeSet.parse(annotation(shard, ASSIGNED))).as("%s assigned", shard)
                        .isEqualTo(placement.get(shard));
                assertThat(RangeSet.parse(annotation(shard, SERVED))).as("%s served", shard)
                        .isEqualTo(placement.get(shard));
            }
        });
    }

    /** A shard in range mode joins: its Lease announces ranges, none served yet, as shard-client's does. */
    private void join(String shard) {
        ADMIN.leases().inNamespace(NAMESPACE).resource(TestLeases.shardLease(NAMESPACE, shard, RING, Instant.now(),
                LEASE_SECONDS).editMetadata().addToAnnotations(SERVED, "").endMetadata()
                .build()).create();
        live.add(shard);
    }

    private static RangeSet ranges(Lease lease, String annotation) {
        return RangeSet.parse(annotationOf(lease, annotation));
    }

    private static String annotationOf(Lease lease, String annotation) {
        Map<String, String> annotations = lease.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(annotation);
    }

    private static String annotation(String shard, String annotation) {
        return annotationOf(ADMIN.leases().inNamespace(NAMESPACE).withName(shard).get(), annotation);
    }

    private static String readyMessage() {
        return Objects.toString(readyCondition().get("message"), null);
    }

    /** The ring's Ready condition; empty while it has none. */
    private static Map<String, Object> readyCondition() {
        GenericKubernetesResource ring = ADMIN.genericKubernetesResources(RingCrds.CLUSTER_RINGS).withName(RING).get();
        Map<String, Object> status = ring.get("status");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> conditions = status == null ? null : (List<Map<String, Object>>) status.get("conditions");
        return conditions == null ? Map.of() : conditions.stream().filter(c -> "Ready".equals(c.get("type"))).findFirst()
                .orElse(Map.of());
    }

    /** The range-mode ClusterRing over the ConfigMaps of {@value #NAMESPACE}. */
    private static void ring() {
        RingCrds.applyRing(ADMIN, "ClusterRing", RING, NAMESPACE, "shardRestartGraceSeconds: 0",
                "ranges: {buckets: " + BUCKETS + "}");
    }
}
