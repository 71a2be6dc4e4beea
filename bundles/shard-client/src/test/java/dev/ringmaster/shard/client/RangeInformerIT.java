package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.load.CellLoad;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.testing.apiserver.Fnv1a;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Range mode's informer and handover on real API servers: v1.36.3 with the KEP-5866 gate
 * ({@link RealApiServer#shardedListAndWatch()}), which filters by the shard selector itself, and the
 * shared v1.32.13, which ignores it, so only the client-side filter restricts the cache. The expected
 * objects of each set are computed here from the uids the server gave, with an FNV-1a 64 of this
 * test's own; the sets come from {@link RangePlacement}.
 */
class RangeInformerIT {

    private static final int OBJECTS = 200;
    private static final List<String> SHARDS = List.of("shard-0", "shard-1", "shard-2", "shard-3");

    @Test
    void theServerFiltersOnV136WithTheGate() throws Exception {
        RealApiServer server = RealApiServer.shardedListAndWatch();
        assertThat(server.gitVersion()).startsWith("v1.36.");
        informersHoldExactlyTheirRanges(server, "range-it-136", RangeInformer.ServerFiltering.APPLIED);
    }

    @Test
    void theClientFiltersOnV132() throws Exception {
        RealApiServer server = RealApiServer.shared();
        assertThat(server.gitVersion()).startsWith("v1.32.");
        informersHoldExactlyTheirRanges(server, "range-it-132", RangeInformer.ServerFiltering.IGNORED);
    }

    private void informersHoldExactlyTheirRanges(RealApiServer server, String namespace,
                                                 RangeInformer.ServerFiltering expectedFiltering) throws Exception {
        KubernetesClient admin = server.admin();
        namespace(admin, namespace);
        Map<String, String> uids = new HashMap<>();
        for (int i = 0; i < OBJECTS; i++) {
            ConfigMap created = create(admin, namespace, "cm-" + i);
            uids.put(created.getMetadata().getName(), created.getMetadata().getUid());
        }
        Map<String, RangeSet> placement = RangePlacement.place(SHARDS, RangePlacement.DEFAULT_BUCKETS);
        List<RangeInformer<ConfigMap>> informers = new ArrayList<>();
        try {
            for (String shard : SHARDS) {
                RangeInformer<ConfigMap> informer = RangeInformer.of(admin, ConfigMap.class,
                        c -> c.configMaps().inNamespace(namespace));
                informer.serve(placement.get(shard), RangeKey.UID);
                informers.add(informer);
            }
            Set<String> union = new HashSet<>();
            for (int s = 0; s < SHARDS.size(); s++) {
                RangeInformer<ConfigMap> informer = informers.get(s);
                Set<String> expected = expected(uids, placement.get(SHARDS.get(s)));
                awaitHolds(informer, expected);
                assertThat(informer.serverFiltering()).isEqualTo(expectedFiltering);
                assertThat(union).doesNotContainAnyElementsOf(expected);
                union.addAll(expected);
            }
            assertThat(union).hasSize(OBJECTS);

            // what the server itself returns for shard-0's selector, asked without the code under test
            RangeSet first = placement.get(SHARDS.get(0));
            String selector = first.ranges().stream()
                    .map(r -> "shardRange(object.metadata.uid, '" + r.start() + "', '" + r.end() + "')")
                    .collect(Collectors.joining(" || "));
            Map<?, ?> list = rawList(admin, namespace, selector);
            Map<?, ?> meta = (Map<?, ?>) list.get("metadata");
            Set<String> listed = ((List<?>) list.get("items")).stream()
                    .map(item -> (String) ((Map<?, ?>) ((Map<?, ?>) item).get("metadata")).get("name"))
                    .collect(Collectors.toSet());
            if (expectedFiltering == RangeInformer.ServerFiltering.APPLIED) {
                assertThat(meta.get("shardInfo")).as("shardInfo echoed").isNotNull();
                assertThat(((Map<?, ?>) meta.get("shardInfo")).get("selector")).isNotNull();
                assertThat(listed).isEqualTo(expected(uids, first));
            } else {
                assertThat(meta.get("shardInfo")).as("no shardInfo from an older server").isNull();
                assertThat(listed).hasSize(OBJECTS);
            }

            // objects created while the informers watch land in their set only
            for (int i = OBJECTS; i < OBJECTS + 20; i++) {
                ConfigMap created = create(admin, namespace, "cm-" + i);
                uids.put(created.getMetadata().getName(), created.getMetadata().getUid());
            }
            for (int s = 0; s < SHARDS.size(); s++) {
                awaitHolds(informers.get(s), expected(uids, placement.get(SHARDS.get(s))));
            }

            // a swap: shard-0's informer takes shard-1's set and ends with exactly its objects
            informers.get(0).serve(placement.get(SHARDS.get(1)), RangeKey.UID);
            awaitHolds(informers.get(0), expected(uids, placement.get(SHARDS.get(1))));
            // and the empty set: nothing
            informers.get(0).serve(RangeSet.EMPTY, RangeKey.UID);
            assertThat(informers.get(0).getStore().list()).isEmpty();
        } finally {
            informers.forEach(RangeInformer::close);
        }
    }

    /**
     * The shrink handover on the real v1.36 server: a reconcile of an object in the dropped range is
     * running; the shard swaps its watch at once, but writes the smaller served-ranges only after that
     * reconcile ended.
     */
    @Test
    void aShrinkIsAcknowledgedOnlyAfterTheRunningReconcileEnded() throws Exception {
        RealApiServer server = RealApiServer.shardedListAndWatch();
        KubernetesClient admin = server.admin();
        String namespace = "range-handover-it";
        namespace(admin, namespace);
        Map<String, String> uids = createObjects(admin, namespace, 20);
        RangeSet lowerHalf = RangeSet.of(List.of(HashRange.of("0x0000000000000000", "0x8000000000000000")));
        String blocked = uids.keySet().stream().sorted().filter(name -> !expected(uids, lowerHalf).contains(name))
                .findFirst().orElseThrow();
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<String> running = new AtomicReference<>();
        Set<String> reconciled = java.util.concurrent.ConcurrentHashMap.newKeySet();

        Sharding sharding = quickRangeShard(admin, namespace).build();
        RangeInformer<ConfigMap> informer = sharding.rangeInformer(ConfigMap.class, c -> c.configMaps().inNamespace(namespace));
        ShardedReconciler<ConfigMap> reconciler = ShardedReconciler.builder(sharding, informer).reconciler(cm -> {
            String name = cm.getMetadata().getName();
            reconciled.add(name);
            if (name.equals(blocked)) {
                running.set(name);
                release.await(60, TimeUnit.SECONDS);
                running.set(null);
            }
        }).build();
        try {
            startHolding(reconciler, sharding, admin, namespace);
            assign(admin, namespace, RangeSet.ALL);
            await().atMost(Duration.ofSeconds(30)).until(() -> RangeSet.ALL.toString().equals(served(admin, namespace)));
            await().atMost(Duration.ofSeconds(30)).until(() -> blocked.equals(running.get()));

            assign(admin, namespace, lowerHalf);
            await().atMost(Duration.ofSeconds(30)).until(() -> lowerHalf.equals(informer.ranges()));
            // the reconcile of the dropped object still runs: served-ranges must stay as it was
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                    .until(() -> RangeSet.ALL.toString().equals(served(admin, namespace)));
            assertThat(running.get()).isEqualTo(blocked);

            release.countDown();
            await().atMost(Duration.ofSeconds(30)).until(() -> lowerHalf.toString().equals(served(admin, namespace)));
            assertThat(running.get()).isNull();
            awaitHolds(informer, expected(uids, lowerHalf));
        } finally {
            release.countDown();
            reconciler.close();
            informer.close();
            sharding.close();
        }
    }

    /**
     * Load reports on the real v1.36 server: a range-mode shard whose reconciles sleep a known time publishes on its
     * Lease, with a renewal, a report whose busy time is what the reconciles slept (a sanity bound, not a timing
     * assertion), with entries covering exactly the cells of its served ranges and its objects in their cells.
     */
    @Test
    void aRangeShardPublishesWhatItsReconcilesCostOnItsLease() throws Exception {
        KubernetesClient admin = RealApiServer.shardedListAndWatch().admin();
        String namespace = "range-load-it";
        namespace(admin, namespace);
        // shard-1's share of the default placement: ranges with gaps between them
        RangeSet served = RangePlacement.place(SHARDS, RangePlacement.DEFAULT_BUCKETS).get(SHARDS.get(1));
        Map<String, String> uids = createObjects(admin, namespace, 40);
        Set<String> mine = expected(uids, served);
        long sleepMillis = 200;
        AtomicInteger calls = new AtomicInteger();
        Set<String> reconciled = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Sharding sharding = quickRangeShard(admin, namespace).loadReportPeriod(Duration.ofSeconds(20)).build();
        RangeInformer<ConfigMap> informer = sharding.rangeInformer(ConfigMap.class, c -> c.configMaps().inNamespace(namespace));
        ShardedReconciler<ConfigMap> reconciler = ShardedReconciler.builder(sharding, informer).reconciler(cm -> {
            calls.incrementAndGet();
            Thread.sleep(sleepMillis);
            reconciled.add(cm.getMetadata().getName());
        }).build();
        try {
            startHolding(reconciler, sharding, admin, namespace);
            assign(admin, namespace, served);
            await().atMost(Duration.ofSeconds(60)).until(() -> reconciled.equals(mine));
            double slept = calls.get() * sleepMillis / 1000.0;
            assertThat(load(admin, namespace)).as("the first report, due 20 s after the first write, covers every reconcile")
                    .isNull();

            await().atMost(Duration.ofSeconds(40)).until(() -> load(admin, namespace) != null);
            LoadReport report = LoadReport.parse(load(admin, namespace));

            assertThat(report.window()).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(40));
            assertThat(report.busy() * report.window().toSeconds()).as("busy seconds, %s slept", slept)
                    .isBetween(0.9 * slept, 1.5 * slept + 1.0);
            assertThat(report.cells().stream().mapToDouble(CellLoad::busy).sum()).isCloseTo(report.busy(),
                    within(0.001));
            assertThat(report.objects()).isEqualTo(mine.size());
            // the entries cover exactly the cells of the served ranges (cell: the top 12 bits of a hash)
            Set<Integer> servedCells = new TreeSet<>();
            served.ranges().forEach(range -> {
                for (int cell = (int) (range.first() >>> 52); cell <= (int) (range.last() >>> 52); cell++) {
                    servedCells.add(cell);
                }
            });
            Set<Integer> reportedCells = new TreeSet<>();
            for (CellLoad entry : report.cells()) {
                List<Integer> objectCells = mine.stream().map(name -> (int) (Fnv1a.fnv1a64(uids.get(name)) >>> 52))
                        .filter(cell -> cell >= entry.first() && cell <= entry.last()).toList();
                assertThat(entry.objects()).as("objects of %s", entry).isEqualTo(objectCells.size());
                assertThat(entry.busy() > 0).as("busy %s", entry).isEqualTo(!objectCells.isEmpty());
                for (int cell = entry.first(); cell <= entry.last(); cell++) {
                    assertThat(reportedCells.add(cell)).as("cell %s once", cell).isTrue();
                }
            }
            assertThat(reportedCells).isEqualTo(servedCells);
            assertThat(sharding.lastLoadReport()).hasValueSatisfying(last ->
                    assertThat(last.format()).isEqualTo(load(admin, namespace)));
        } finally {
            reconciler.close();
            informer.close();
            sharding.close();
        }
    }

    /**
     * The shard watches its Lease: an assignment the sharder writes just after a renewal is acknowledged
     * (claimed in served-ranges) before the next renewal, eight seconds later.
     */
    @Test
    void anAssignmentIsActedOnWhenTheSharderWritesItNotAtTheNextRenewal() {
        KubernetesClient admin = RealApiServer.shared().admin();
        String namespace = "range-watch-it";
        namespace(admin, namespace);
        try (Sharding sharding = renewingEvery(Duration.ofSeconds(8), admin, namespace)) {
            sharding.lease().start();
            await().atMost(Duration.ofSeconds(20)).until(() -> lease(admin, namespace) != null && sharding.lease().isHeld());
            ZonedDateTime first = lease(admin, namespace).getSpec().getRenewTime();
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                    .until(() -> !first.equals(lease(admin, namespace).getSpec().getRenewTime()));
            ZonedDateTime renewed = lease(admin, namespace).getSpec().getRenewTime();

            assign(admin, namespace, RangeSet.ALL);
            await().atMost(Duration.ofSeconds(30)).until(() -> RangeSet.ALL.toString().equals(served(admin, namespace)));
            assertThat(lease(admin, namespace).getSpec().getRenewTime()).as("renewed between the assignment and the claim")
                    .isEqualTo(renewed);
        }
    }

    /** A shard that may not watch Leases reads its assignment when it renews, as before the watch. */
    @Test
    void withoutPermissionToWatchLeasesTheShardActsOnItsRenewals() throws Exception {
        RealApiServer server = RealApiServer.shared();
        KubernetesClient admin = server.admin();
        String namespace = "range-no-watch-it";
        namespace(admin, namespace);
        Path kubeconfig = server.serviceAccountKubeconfig(namespace, "shard", server.workFolder(namespace)
                .resolve("kubeconfig"));
        server.grant(namespace, "shard", List.of(new PolicyRuleBuilder().withApiGroups("coordination.k8s.io")
                .withResources("leases").withVerbs("get", "create", "update").build()));
        try (KubernetesClient shardClient = server.clientFor(kubeconfig);
                Sharding sharding = renewingEvery(Duration.ofSeconds(1), shardClient, namespace)) {
            sharding.lease().start();
            await().atMost(Duration.ofSeconds(20)).until(() -> lease(admin, namespace) != null && sharding.lease().isHeld());
            assign(admin, namespace, RangeSet.ALL);
            // claimed first (served-ranges), then served
            await().atMost(Duration.ofSeconds(30)).until(() -> RangeSet.ALL.toString().equals(served(admin, namespace))
                    && RangeSet.ALL.equals(sharding.ranges().serving()));
        }
    }

    /**
     * A shard whose ranges' first list is refused (it may not list ConfigMaps yet: RBAC applied after the shard, or
     * a list failing on a busy server) serves them once it may: its informer retries, where fabric8 gives up.
     */
    @Test
    void rangesWhoseFirstListIsRefusedAreServedOnceTheShardMayList() throws Exception {
        RealApiServer server = RealApiServer.shared();
        KubernetesClient admin = server.admin();
        String namespace = "range-refused-it";
        namespace(admin, namespace);
        Map<String, String> uids = createObjects(admin, namespace, 5);
        PolicyRule leases = new PolicyRuleBuilder().withApiGroups("coordination.k8s.io").withResources("leases")
                .withVerbs("get", "list", "watch", "create", "update").build();
        try (KubernetesClient shardClient = server.clientAs(namespace, "shard", List.of(leases));
                Sharding sharding = renewingEvery(Duration.ofSeconds(1), shardClient, namespace);
                RangeInformer<ConfigMap> informer = sharding.rangeInformer(ConfigMap.class,
                        c -> c.configMaps().inNamespace(namespace))) {
            sharding.lease().start();
            await().atMost(Duration.ofSeconds(20)).until(() -> lease(admin, namespace) != null && sharding.lease().isHeld());
            assign(admin, namespace, RangeSet.ALL);
            await().atMost(Duration.ofSeconds(30)).until(() -> RangeSet.ALL.equals(informer.ranges()));
            // the informer lists at once when it gets ranges: holding nothing for seconds, it was refused
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> informer.getStore().list().isEmpty());

            server.grant(namespace, "shard", List.of(leases, new PolicyRuleBuilder().withApiGroups("")
                    .withResources("configmaps").withVerbs("list", "watch").build()));
            awaitHolds(informer, uids.keySet());
        }
    }

    /** Shard {@code shard-0} in range mode, its instance the namespace, renewing every 500 ms. */
    private static Sharding.Builder quickRangeShard(KubernetesClient admin, String namespace) {
        return Sharding.forRing("range-ring").shard("shard-0").namespace(namespace).client(admin).instance(namespace)
                .rangeMode().leaseDuration(Duration.ofSeconds(6)).renewDeadline(Duration.ofSeconds(4))
                .retryPeriod(Duration.ofMillis(500));
    }

    /** Starts the reconciler and the lease, and waits until the shard holds its Lease. */
    private static void startHolding(ShardedReconciler<ConfigMap> reconciler, Sharding sharding, KubernetesClient admin,
                                     String namespace) {
        reconciler.start();
        sharding.lease().start();
        await().atMost(Duration.ofSeconds(20)).until(() -> lease(admin, namespace) != null && sharding.lease().isHeld());
    }

    private static Sharding renewingEvery(Duration retryPeriod, KubernetesClient client, String namespace) {
        return Sharding.forRing("range-ring").shard("shard-0").namespace(namespace).client(client).instance(namespace)
                .rangeMode().leaseDuration(Duration.ofSeconds(15)).renewDeadline(Duration.ofSeconds(10))
                .retryPeriod(retryPeriod).build();
    }

    private static Lease lease(KubernetesClient admin, String namespace) {
        return admin.leases().inNamespace(namespace).withName("shard-0").get();
    }

    private static String load(KubernetesClient admin, String namespace) {
        return annotation(admin, namespace, RingContract.LOAD_ANNOTATION);
    }

    private static String served(KubernetesClient admin, String namespace) {
        return annotation(admin, namespace, RingContract.SERVED_RANGES_ANNOTATION);
    }

    private static String annotation(KubernetesClient admin, String namespace, String key) {
        Lease lease = lease(admin, namespace);
        return lease == null || lease.getMetadata().getAnnotations() == null ? null
                : lease.getMetadata().getAnnotations().get(key);
    }

    /** Writes the assignment as the sharder would: a patch of the two annotations. */
    private static void assign(KubernetesClient admin, String namespace, RangeSet ranges) {
        // a merge patch without a resourceVersion: the shard's own renewals cannot make it conflict
        String patch = admin.getKubernetesSerialization().asJson(Map.of("metadata", Map.of("annotations", Map.of(
                RingContract.ASSIGNED_RANGES_ANNOTATION, ranges.toString(), RingContract.RANGE_KEY_ANNOTATION, "uid"))));
        admin.leases().inNamespace(namespace).withName("shard-0").patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }

    private static void awaitHolds(RangeInformer<ConfigMap> informer, Set<String> expected) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(new TreeSet<>(
                informer.getStore().list().stream().map(cm -> cm.getMetadata().getName()).toList()))
                .isEqualTo(new TreeSet<>(expected)));
    }

    /** The names whose uid's FNV-1a 64 lies in {@code ranges}, computed here. */
    private static Set<String> expected(Map<String, String> uids, RangeSet ranges) {
        return Fnv1a.namesHashedInto(uids, ranges.ranges().stream().map(r -> new long[] {r.first(), r.last()}).toList());
    }

    private static Map<?, ?> rawList(KubernetesClient admin, String namespace, String selector) throws Exception {
        String url = admin.getMasterUrl().toString().replaceAll("/$", "") + "/api/v1/namespaces/" + namespace
                + "/configmaps?shardSelector=" + java.net.URLEncoder.encode(selector, StandardCharsets.UTF_8).replace("+", "%20");
        HttpRequest request = admin.getHttpClient().newHttpRequestBuilder().uri(URI.create(url)).build();
        HttpResponse<String> response = admin.getHttpClient().sendAsync(request, String.class).get(30, TimeUnit.SECONDS);
        assertThat(response.code()).as(response.body()).isEqualTo(200);
        return admin.getKubernetesSerialization().unmarshal(response.body(), Map.class);
    }

    private static void namespace(KubernetesClient admin, String namespace) {
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
                .serverSideApply();
    }

    /** ConfigMaps {@code cm-0} to {@code cm-<count - 1>}: their uids by name. */
    private static Map<String, String> createObjects(KubernetesClient admin, String namespace, int count) {
        Map<String, String> uids = new HashMap<>();
        for (int i = 0; i < count; i++) {
            ConfigMap created = create(admin, namespace, "cm-" + i);
            uids.put(created.getMetadata().getName(), created.getMetadata().getUid());
        }
        return uids;
    }

    private static ConfigMap create(KubernetesClient admin, String namespace, String name) {
        return admin.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata()
                .withName(name).endMetadata().addToData("n", name).build()).create();
    }
}
