package dev.ringmaster.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.examples.checksum.ChecksumReconciler;
import dev.ringmaster.examples.checksum.ChecksumShard;
import dev.ringmaster.examples.checksum.ReconcileLine;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.consistent.ConsistentHashStrategy;
import dev.ringmaster.sharder.app.PlugIns;
import dev.ringmaster.sharder.app.SharderReplica;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.kube.TestNamespaces;
import dev.ringmaster.sharder.lease.DefaultLeaseDetector;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingResourceSpec;
import dev.ringmaster.sharder.ring.StrategyBinding;
import dev.ringmaster.sharder.testing.PinnedPlacements;
import dev.ringmaster.sharder.testing.TestDiscovery;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * End to end on the CRUD mock server: the sharder (plain Java, without webhook, so its
 * unassigned-object watch assigns everything) and two checksum shards, each with a client of its
 * own. Objects are assigned, a shard leaves (gracefully, or killed so that its Lease expires) or
 * joins, its objects move, and the reconcile lines of both shards show that no object was ever
 * reconciled by two shards at overlapping times. While a shard leaves, some of its ConfigMaps keep
 * changing and its Secret writes are slowed down, so a long reconcile is in flight at the hand-over
 * while the other shard is quick to pick the objects up.
 */
@EnableCrudApiServer
class ShardsAndSharderTest {

    private static final String RING = "checksums";
    /** The same namespace in every test (each has a mock server of its own): the placements below are pinned in it. */
    private static final String NAMESPACE = "sharded";
    /**
     * Where consistent-hash (the sharder's default strategy, 100 tokens per shard) puts the ConfigMaps
     * of namespace {@value #NAMESPACE} over shard-a and shard-b; computed independently, as the tables
     * of {@link PinnedPlacements}.
     */
    private static final PinnedPlacements CONSISTENT_HASH_TWO_SHARDS = PinnedPlacements.of("""
            shard-a: cm-0 cm-1 cm-2 cm-3 cm-4 cm-8 cm-10 cm-15 cm-18 cm-20 cm-22 cm-23 cm-24 cm-25
            shard-a: cm-26 cm-28 cm-29 cm-36 cm-37 cm-38 cm-39 cm-40 cm-41 cm-42 cm-43 cm-47 cm-49
            shard-b: cm-5 cm-6 cm-7 cm-9 cm-11 cm-12 cm-13 cm-14 cm-16 cm-17 cm-19 cm-21
            shard-b: cm-27 cm-30 cm-31 cm-32 cm-33 cm-34 cm-35 cm-44 cm-45 cm-46 cm-48
            """);
    private static final String SHARD_LABEL = RingContract.shardLabel(RING);
    private static final String DRAIN_LABEL = RingContract.drainLabel(RING);
    private static final int OBJECTS = 50;
    private static final Duration SOON = Duration.ofSeconds(40);
    private static final Duration SLOW_WRITES = Duration.ofMillis(500);

    KubernetesClient client;
    KubernetesMockServer server;

    private final Queue<String> lines = new ConcurrentLinkedQueue<>();
    private final List<KubernetesClient> clients = new ArrayList<>();
    private final Map<String, ChecksumShard> shards = new HashMap<>();
    /** The shard whose Secret writes are slowed down, if any. */
    private volatile String slowShard = "";
    private SharderReplica sharder;

    @BeforeEach
    void cluster() throws Exception {
        try (InputStream crd = SharderReplica.class.getClassLoader()
                .getResourceAsStream("META-INF/fabric8/clusterrings.sharding.timebertt.dev-v1.yml")) {
            client.apiextensions().v1().customResourceDefinitions().load(crd).create();
        }
        // the mock server serves no discovery; the sharder's generic watches need it
        TestDiscovery.serveCoreV1(server, TestDiscovery.CONFIG_MAPS, TestDiscovery.SECRETS);
        TestNamespaces.create(client, NAMESPACE, Map.of());
        ClusterRing ring = new ClusterRing();
        ring.getMetadata().setName(RING);
        ring.getSpec().getResources().add(new RingResourceSpec("", "configmaps", List.of(new GroupResource("", "secrets"))));
        client.resources(ClusterRing.class).resource(ring).create();

        sharder = new SharderReplica(newClient(), SharderReplica.Options.defaults().withIdentity("sharder-0").withoutWebhook());
        sharder.use(PlugIns.NONE
                .withStrategy(ConsistentHashStrategy.NAME, new StrategyBinding(new ConsistentHashStrategy(), Map.of()))
                .withDetector(DefaultLeaseDetector.NAME, new DefaultLeaseDetector())
                .withInterpreter(DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter()));
        sharder.start();
        await().atMost(SOON).until(sharder::isLeader);
    }

    @AfterEach
    void stop() {
        shards.values().forEach(ChecksumShard::close);
        if (sharder != null) {
            sharder.close();
        }
        clients.forEach(KubernetesClient::close);
    }

    @Test
    void whenAShardLeavesItsObjectsMoveAndNoObjectIsReconciledByTwoShardsAtOnce() throws Exception {
        startShard("shard-a");
        startShard("shard-b");
        awaitAvailableShards(2);
        createConfigMaps();

        await().atMost(SOON).until(this::everyObjectAssignedAndChecksummed);
        Map<String, String> before = assignment();
        assertThat(Set.copyOf(before.values())).containsExactlyInAnyOrder("shard-a", "shard-b");
        before.forEach((name, shard) -> assertThat(reconciledBy(name)).as(name).contains(shard));
        List<String> leaving = namesOn(before, "shard-a");

        long leftAt;
        try (Churn churn = new Churn(leaving.subList(0, Math.min(10, leaving.size())))) {
            // shard-a is in the middle of a long reconcile when it leaves: released too early, its
            // objects would reach shard-b (within some 100 ms here) while it still writes
            slowShard = "shard-a";
            int linesBefore = lines.size();
            await().atMost(SOON).until(() -> lines.size() > linesBefore + 3);
            shards.remove("shard-a").close(); // graceful: finishes its reconcile, then releases its Lease
            leftAt = System.currentTimeMillis();
            slowShard = "";

            assertThat(client.leases().inNamespace(NAMESPACE).withName("shard-a").get().getSpec().getHolderIdentity()).isEmpty();
            await().atMost(SOON).until(() -> assignment().values().stream().allMatch("shard-b"::equals));
        }
        await().atMost(SOON).until(this::everyObjectAssignedAndChecksummed);
        await().atMost(SOON).until(() -> leaving.stream().allMatch(name -> reconciledBy(name).contains("shard-b")));
        assertThat(parsedLines()).filteredOn(line -> line.shard().equals("shard-a"))
                .allSatisfy(line -> assertThat(line.end()).isLessThanOrEqualTo(leftAt));

        assertNoObjectReconciledByTwoShardsAtOnce(leaving);
    }

    @Test
    void aJoiningShardTakesOverDrainedObjectsWithoutOverlap() {
        startShard("shard-a");
        awaitAvailableShards(1);
        createConfigMaps();
        await().atMost(SOON).until(() -> everyObjectAssignedAndChecksummed()
                && assignment().values().stream().allMatch("shard-a"::equals));

        startShard("shard-b");
        awaitAvailableShards(2);

        // the sharder drains shard-a's objects that now belong to shard-b; shard-a hands them back
        await().atMost(SOON).until(() -> everyObjectAssignedAndChecksummed() && everyObjectOnItsDesiredShard());
        List<String> joined = namesOn(assignment(), "shard-b");
        assertThat(joined).isNotEmpty();
        await().atMost(SOON).until(() -> joined.stream().allMatch(name -> reconciledBy(name).contains("shard-b")));

        assertNoObjectReconciledByTwoShardsAtOnce(joined);
    }

    @Test
    void aKilledShardsObjectsMoveOnceItsLeaseHasExpired() {
        startShard("shard-a");
        startShard("shard-b");
        awaitAvailableShards(2);
        createConfigMaps();
        await().atMost(SOON).until(this::everyObjectAssignedAndChecksummed);
        List<String> orphaned = namesOn(assignment(), "shard-a");
        assertThat(orphaned).isNotEmpty();

        shards.remove("shard-a").kill(); // no release: the sharder must notice the Lease expire

        assertThat(client.leases().inNamespace(NAMESPACE).withName("shard-a").get().getSpec().getHolderIdentity())
                .isEqualTo("shard-a");
        await().atMost(SOON).until(() -> everyObjectAssignedAndChecksummed()
                && assignment().values().stream().allMatch("shard-b"::equals));
        await().atMost(SOON).until(() -> orphaned.stream().allMatch(name -> reconciledBy(name).contains("shard-b")));
        // the sharder took the Lease over before it declared the shard dead
        assertThat(client.leases().inNamespace(NAMESPACE).withName("shard-a").get().getSpec().getHolderIdentity())
                .isEqualTo(RingContract.LEASE_CONTROLLER_HOLDER);

        assertNoObjectReconciledByTwoShardsAtOnce(orphaned);
    }

    /** Keeps changing some ConfigMaps, round-robin, until closed: their shard is always busy. */
    private final class Churn implements AutoCloseable {

        private final Thread thread;
        private volatile boolean done;

        Churn(List<String> names) {
            thread = new Thread(() -> {
                for (int i = 0; !done; i++) {
                    String value = String.valueOf(i);
                    try {
                        client.configMaps().inNamespace(NAMESPACE).withName(names.get(i % names.size()))
                                .edit(cm -> new ConfigMapBuilder(cm).addToData("churn", value).build());
                        Thread.sleep(10);
                    } catch (KubernetesClientException e) {
                        if (e.getCode() != 409) { // 409: the sharder moved it meanwhile
                            throw e;
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "churn");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            done = true;
            thread.join(SOON.toMillis());
        }
    }

    private void startShard(String name) {
        shards.put(name, ChecksumShard.start(shardClient(name), ChecksumShard.Options.of(RING, name, NAMESPACE)
                .withWatchNamespaces(List.of(NAMESPACE))
                .withLeaseTimings(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(500)), lines::add));
    }

    private KubernetesClient newClient() {
        KubernetesClient own = server.createClient();
        clients.add(own);
        return own;
    }

    /**
     * The client of shard {@code shard}: while it is the {@link #slowShard}, its Secret writes take
     * {@link #SLOW_WRITES} longer, so that a reconcile lasts long enough for the other shard to
     * overlap it if fencing or the hand-over failed.
     */
    private KubernetesClient shardClient(String shard) {
        KubernetesClient own = server.createClient(builder -> builder.withHttpClientBuilderConsumer(http ->
                http.addOrReplaceInterceptor("latency", new Interceptor() {
                    @Override
                    public void before(BasicBuilder request, HttpRequest original, RequestTags tags) {
                        if (shard.equals(slowShard) && !original.method().equals("GET")
                                && original.uri().getPath().contains("/secrets")) {
                            try {
                                Thread.sleep(SLOW_WRITES.toMillis());
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    }
                })));
        clients.add(own);
        return own;
    }

    private void awaitAvailableShards(int count) {
        await().atMost(SOON).until(() -> sharder.registry().view(RingKey.clusterRing(RING))
                .map(view -> view.availableShards().size() == count).orElse(false));
    }

    private void createConfigMaps() {
        for (int i = 0; i < OBJECTS; i++) {
            client.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata()
                    .withName("cm-" + i).withNamespace(NAMESPACE).endMetadata()
                    .addToData("index", String.valueOf(i)).addToData("text", "object " + i).build()).create();
        }
    }

    /**
     * Every ConfigMap is on a shard and not in drain, its Secret holds its checksums, and the Secret
     * is on the ConfigMap's shard.
     */
    private boolean everyObjectAssignedAndChecksummed() {
        Map<String, ConfigMap> configMaps = client.configMaps().inNamespace(NAMESPACE).list().getItems().stream()
                .collect(Collectors.toMap(cm -> cm.getMetadata().getName(), cm -> cm));
        Map<String, Secret> secrets = client.secrets().inNamespace(NAMESPACE).list().getItems().stream()
                .collect(Collectors.toMap(secret -> secret.getMetadata().getName(), secret -> secret));
        if (configMaps.size() != OBJECTS) {
            return false;
        }
        for (ConfigMap configMap : configMaps.values()) {
            Map<String, String> labels = labels(configMap.getMetadata().getLabels());
            Secret secret = secrets.get(ChecksumReconciler.secretName(configMap.getMetadata().getName()));
            if (labels.get(SHARD_LABEL) == null || labels.containsKey(DRAIN_LABEL) || secret == null
                    || !ChecksumReconciler.isUpToDate(configMap, secret)
                    || !labels.get(SHARD_LABEL).equals(labels(secret.getMetadata().getLabels()).get(SHARD_LABEL))) {
                return false;
            }
        }
        return true;
    }

    private boolean everyObjectOnItsDesiredShard() {
        return assignment().entrySet().stream().allMatch(entry -> entry.getValue().equals(
                CONSISTENT_HASH_TWO_SHARDS.shardOf(entry.getKey())));
    }

    private boolean upToDate(String name) {
        ConfigMap configMap = client.configMaps().inNamespace(NAMESPACE).withName(name).get();
        Secret secret = client.secrets().inNamespace(NAMESPACE).withName(ChecksumReconciler.secretName(name)).get();
        return secret != null && ChecksumReconciler.isUpToDate(configMap, secret);
    }

    /** ConfigMap name to the shard it is assigned to. */
    private Map<String, String> assignment() {
        return client.configMaps().inNamespace(NAMESPACE).list().getItems().stream().collect(Collectors.toMap(
                cm -> cm.getMetadata().getName(),
                cm -> Objects.requireNonNullElse(labels(cm.getMetadata().getLabels()).get(SHARD_LABEL), "")));
    }

    private static List<String> namesOn(Map<String, String> assignment, String shard) {
        return assignment.entrySet().stream().filter(entry -> entry.getValue().equals(shard))
                .map(Map.Entry::getKey).sorted().toList();
    }

    private Set<String> reconciledBy(String name) {
        return parsedLines().stream().filter(line -> line.object().equals(NAMESPACE + "/" + name))
                .map(ReconcileLine::shard).collect(Collectors.toSet());
    }

    private List<ReconcileLine> parsedLines() {
        return lines.stream().map(line -> ReconcileLine.parse(line)
                .orElseThrow(() -> new AssertionError("not a reconcile line: " + line))).toList();
    }

    /**
     * No two reconcile lines of one object from different shards share a millisecond; {@code moved}
     * (objects reconciled by both shards) keeps the check from passing vacuously.
     */
    private void assertNoObjectReconciledByTwoShardsAtOnce(List<String> moved) {
        Map<String, List<ReconcileLine>> byObject = parsedLines().stream()
                .collect(Collectors.groupingBy(ReconcileLine::object));
        assertThat(byObject).hasSize(OBJECTS);
        for (String name : moved) {
            assertThat(byObject.get(NAMESPACE + "/" + name)).extracting(ReconcileLine::shard)
                    .as("reconciled by both shards: %s", name).contains("shard-a", "shard-b");
        }
        List<String> overlaps = new ArrayList<>();
        byObject.forEach((object, reconciles) -> {
            for (int i = 0; i < reconciles.size(); i++) {
                for (int j = i + 1; j < reconciles.size(); j++) {
                    ReconcileLine a = reconciles.get(i);
                    ReconcileLine b = reconciles.get(j);
                    if (!a.shard().equals(b.shard()) && a.overlaps(b)) {
                        overlaps.add(a + " / " + b);
                    }
                }
            }
        });
        assertThat(overlaps).as("reconciles of one object by two shards at overlapping times").isEmpty();
    }

    private static Map<String, String> labels(Map<String, String> labels) {
        return labels == null ? Map.of() : labels;
    }
}
