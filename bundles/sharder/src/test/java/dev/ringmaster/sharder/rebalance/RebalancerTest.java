package dev.ringmaster.sharder.rebalance;

import static dev.ringmaster.sharder.testing.ExampleRing.DRAIN;
import static dev.ringmaster.sharder.testing.ExampleRing.KEY;
import static dev.ringmaster.sharder.testing.ExampleRing.RING;
import static dev.ringmaster.sharder.testing.ExampleRing.SHARD;
import static dev.ringmaster.sharder.testing.PinnedPlacements.RENDEZVOUS_THREE_SHARDS;
import static dev.ringmaster.sharder.testing.PinnedPlacements.RENDEZVOUS_TWO_SHARDS;
import static dev.ringmaster.sharder.testing.TestRings.configMapRing;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.app.SharderMetrics;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.kube.LabelWriter;
import dev.ringmaster.sharder.kube.ObjectPages;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.kube.TestNamespaces;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.lease.ShardInfo.RangeClaim;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.model.RingRanges;
import dev.ringmaster.sharder.model.RingResourceSpec;
import dev.ringmaster.sharder.ranges.LabelHolds;
import dev.ringmaster.sharder.ranges.RangeReturns;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.ring.StrategyBinding;
import dev.ringmaster.sharder.runtime.Reconciler;
import dev.ringmaster.sharder.testing.TestDiscovery;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@EnableCrudApiServer
class RebalancerTest {

    KubernetesClient client;
    KubernetesMockServer server;

    private static final RebalanceLimits LIMITS = new RebalanceLimits(7, 4, 500, Duration.ofMinutes(5), Duration.ofSeconds(5));

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final SharderMetrics metrics = new SharderMetrics(meters);
    private final RingRegistry registry = new RingRegistry(metrics::ringCalculated);
    private ClusterRing ring;
    private ResourceInterpreter interpreter = new DefaultResourceInterpreter();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-29T12:00:00Z"));
    private final LabelHolds holds = new LabelHolds(clock);
    private final RangeReturns returns = new RangeReturns();

    @BeforeEach
    void cluster() {
        TestDiscovery.serveCoreV1(server, TestDiscovery.CONFIG_MAPS, TestDiscovery.SECRETS, TestDiscovery.PERSISTENT_VOLUMES);
        for (String namespace : List.of("default", "team", "kube-system")) {
            TestNamespaces.create(client, namespace, Map.of("team", String.valueOf(namespace.equals("team"))));
        }
        ring = configMapRing(RING);
        publish();
        registry.update(inputs -> inputs.withStrategies(Map.of("rendezvous", new StrategyBinding(new RendezvousStrategy(), Map.of())))
                .withDefaultStrategy("rendezvous"));
        shards(ShardState.READY, "shard-0", "shard-1");
    }

    private Rebalancer rebalancer;

    @AfterEach
    void stop() {
        if (rebalancer != null) {
            rebalancer.close();
        }
    }

    private void shards(ShardState state, String... names) {
        List<ShardInfo> infos = new ArrayList<>();
        for (String name : names) {
            infos.add(new ShardInfo(name, state, 1));
        }
        registry.update(inputs -> inputs.withMembership(new Membership(Map.of(KEY, infos))));
    }

    private void shards(List<ShardInfo> infos) {
        registry.update(inputs -> inputs.withMembership(new Membership(Map.of(KEY, infos))));
    }

    /** The client the sharder uses; tests may swap in one configured differently. */
    private KubernetesClient sharderClient() {
        return sharderClient == null ? client : sharderClient;
    }

    private KubernetesClient sharderClient;

    /** The ring and interpreter as the test left them, compiled into the ring's view. */
    private void publish() {
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(ring))
                .withInterpreters(Map.of(DefaultResourceInterpreter.NAME, interpreter)));
    }

    private Rebalancer rebalancer(RebalanceLimits limits) {
        stop();
        publish();
        KubernetesClient client = sharderClient();
        rebalancer = new Rebalancer(registry, RingView.InvalidKeys.IGNORE, new ResourceCatalog(client), new ObjectPages(client, limits.pageSize()), new LabelWriter(client),
                new NamespaceScope(() -> client.namespaces().list().getItems()), limits, metrics, holds, returns);
        return rebalancer;
    }

    private Reconciler.Result rebalance(RebalanceLimits limits) {
        return rebalancer(limits).reconcile(KEY);
    }

    private PassSummary pass() {
        Rebalancer created = rebalancer(LIMITS);
        return created.pass(registry.view(KEY).orElseThrow());
    }

    private ConfigMap configMap(String namespace, String name, Map<String, String> labels) {
        return client.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withNamespace(namespace)
                .withName(name).withLabels(labels).endMetadata().build()).create();
    }

    private void secretOf(ConfigMap owner, Map<String, String> labels) {
        client.secrets().resource(new SecretBuilder().withNewMetadata().withNamespace(owner.getMetadata().getNamespace())
                .withName("checksums-" + owner.getMetadata().getName()).withLabels(labels)
                .addNewOwnerReference().withApiVersion("v1").withKind("ConfigMap").withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid()).withController(true).endOwnerReference()
                .endMetadata().build()).create();
    }

    private static Map<String, String> labels(HasMetadata object) {
        return object.getMetadata().getLabels() == null ? Map.of() : object.getMetadata().getLabels();
    }

    private ConfigMap getConfigMap(String namespace, String name) {
        return client.configMaps().inNamespace(namespace).withName(name).get();
    }

    @Test
    void unassignedObjectsAndTheirControlledObjectsAreAssignedTogether() {
        for (int i = 0; i < 20; i++) {
            secretOf(configMap("default", "cm-" + i, Map.of()), Map.of());
        }
        assertThat(rebalance(LIMITS)).isEqualTo(Reconciler.Result.requeueAfter(LIMITS.resync()));
        for (int i = 0; i < 20; i++) {
            String shard = RENDEZVOUS_TWO_SHARDS.shardOf("cm-" + i);
            assertThat(labels(getConfigMap("default", "cm-" + i))).containsEntry(SHARD, shard).doesNotContainKey(DRAIN);
            assertThat(labels(client.secrets().inNamespace("default").withName("checksums-cm-" + i).get()))
                    .containsEntry(SHARD, shard);
        }
        assertThat(pass()).isEqualTo(new PassSummary(40, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    }

    @Test
    void scaleOutDrainsMainObjectsAndMovesControlledOnesDirectly() {
        for (int i = 0; i < 30; i++) {
            secretOf(configMap("default", "cm-" + i, Map.of()), Map.of());
        }
        rebalance(LIMITS);
        shards(ShardState.READY, "shard-0", "shard-1", "shard-2");
        PassSummary summary = pass();
        int moving = 0;
        for (int i = 0; i < 30; i++) {
            ConfigMap configMap = getConfigMap("default", "cm-" + i);
            var secret = client.secrets().inNamespace("default").withName("checksums-cm-" + i).get();
            String wanted = RENDEZVOUS_THREE_SHARDS.shardOf("cm-" + i);
            if (!labels(configMap).get(SHARD).equals(wanted)) {
                moving++;
                assertThat(labels(configMap)).as("main object stays with its live shard until it lets go")
                        .containsKey(DRAIN);
            } else {
                assertThat(labels(configMap)).doesNotContainKey(DRAIN);
            }
            assertThat(labels(secret)).containsEntry(SHARD, wanted);
        }
        assertThat(moving).isPositive();
        assertThat(summary.drained()).isEqualTo(moving);
        assertThat(summary.reassigned()).isEqualTo(moving);
        assertThat(meters.get("controller.sharding.drains").tags("clusterring", RING, "resource", "configmaps")
                .counter().count()).isEqualTo(moving);
        assertThat(meters.get("controller.sharding.movements").tags("resource", "secrets").counter().count())
                .isEqualTo(moving);
        assertThat(meters.get("controller.sharding.assignments").tags("group", "", "resource", "configmaps")
                .counter().count()).isEqualTo(30);
        assertThat(meters.get("controller.sharding.ring.calculations").tags("clusterring", RING).counter().count())
                .as("built without shards, for two, then for three").isEqualTo(3);
        PassSummary again = pass();
        assertThat(again.drained()).as("objects already draining are not written again").isZero();
        assertThat(again.inDrain()).as("the pass says what it waits for").isEqualTo(moving);
    }

    @Test
    void objectsOfADeadShardMoveWithoutDrain() {
        for (int i = 0; i < 10; i++) {
            configMap("default", "cm-" + i, Map.of(SHARD, "shard-gone"));
        }
        shards(List.of(new ShardInfo("shard-0", ShardState.READY, 1), new ShardInfo("shard-gone", ShardState.DEAD, 1)));
        PassSummary summary = pass();
        assertThat(summary.reassigned()).isEqualTo(10);
        for (int i = 0; i < 10; i++) {
            assertThat(labels(getConfigMap("default", "cm-" + i))).containsEntry(SHARD, "shard-0").doesNotContainKey(DRAIN);
        }
    }

    @Test
    void objectsOfAShardGivenUpWhileItStillRenewsItsLeaseAreDrainedNotReassigned() {
        for (int i = 0; i < 10; i++) {
            configMap("default", "cm-" + i, Map.of(SHARD, "shard-unready"));
        }
        // a detector (pod readiness) takes the shard for dead while its process renews its Lease and may
        // be reconciling: it must hand its objects back itself
        shards(List.of(new ShardInfo("shard-0", ShardState.READY, 1),
                new ShardInfo("shard-unready", ShardState.DEAD, 1, false, true)));
        PassSummary summary = pass();
        assertThat(summary.reassigned()).isZero();
        assertThat(summary.drained()).isEqualTo(10);
        for (int i = 0; i < 10; i++) {
            assertThat(labels(getConfigMap("default", "cm-" + i))).containsEntry(SHARD, "shard-unready")
                    .containsEntry(DRAIN, "true");
        }
    }

    @Test
    void objectsOfADeadShardThatComesBackDuringThePassAreNotReassigned() {
        for (int i = 0; i < 10; i++) {
            configMap("default", "cm-" + i, Map.of(SHARD, "shard-back"));
        }
        shards(List.of(new ShardInfo("shard-0", ShardState.READY, 1), new ShardInfo("shard-back", ShardState.DEAD, 1)));
        Rebalancer created = rebalancer(LIMITS);
        RingView passBegan = registry.view(KEY).orElseThrow();
        // the shard takes its released Lease back after the pass has decided on the dead shard's ring
        shards(List.of(new ShardInfo("shard-0", ShardState.READY, 1), new ShardInfo("shard-back", ShardState.READY, 1)));
        PassSummary summary = created.pass(passBegan);
        assertThat(summary.reassigned()).as("no object taken from a shard that is back").isZero();
        assertThat(summary.deferred()).as("left for the next pass, which drains them").isEqualTo(10);
        for (int i = 0; i < 10; i++) {
            assertThat(labels(getConfigMap("default", "cm-" + i))).containsEntry(SHARD, "shard-back");
        }
    }

    @Test
    void theDefaultScopeSkipsSystemNamespacesAndSelectorsNarrowIt() {
        configMap("default", "a", Map.of());
        configMap("team", "b", Map.of());
        configMap("kube-system", "c", Map.of());
        rebalance(LIMITS);
        assertThat(labels(getConfigMap("default", "a"))).containsKey(SHARD);
        assertThat(labels(getConfigMap("kube-system", "c"))).doesNotContainKey(SHARD);

        configMap("default", "d", Map.of());
        ring.getSpec().setNamespaceSelector(new LabelSelectorBuilder().addToMatchLabels("team", "true").build());
        configMap("team", "e", Map.of());
        rebalance(LIMITS);
        assertThat(labels(getConfigMap("team", "e"))).containsKey(SHARD);
        assertThat(labels(getConfigMap("default", "d"))).doesNotContainKey(SHARD);
    }

    @Test
    void clusterScopedResourcesAreSharded() {
        ring.getSpec().getResources().add(new RingResourceSpec("", "persistentvolumes", List.of()));
        client.persistentVolumes().resource(new PersistentVolumeBuilder().withNewMetadata().withName("pv-1")
                .endMetadata().build()).create();
        rebalance(LIMITS);
        // pinned: rendezvous over shard-0 and shard-1 puts /PersistentVolume//pv-1 on shard-1 (computed as PinnedPlacements)
        assertThat(labels(client.persistentVolumes().withName("pv-1").get())).containsEntry(SHARD, "shard-1");
    }

    @Test
    void aConcurrentChangeWinsOverTheMoveAndTheNextPassRetries() {
        configMap("default", "raced", Map.of());
        AtomicBoolean raced = new AtomicBoolean();
        ResourceInterpreter real = interpreter;
        interpreter = (object, resource) -> {
            if (raced.compareAndSet(false, true)) {
                // someone edits the object between the sharder's list and its write
                client.configMaps().inNamespace("default").withName("raced")
                        .edit(cm -> new ConfigMapBuilder(cm).editMetadata().addToLabels("edited", "yes").endMetadata().build());
            }
            return real.keyFor(object, resource);
        };
        assertThat(rebalance(LIMITS)).isEqualTo(Reconciler.Result.requeueAfter(LIMITS.pendingRetry()));
        assertThat(labels(getConfigMap("default", "raced"))).containsEntry("edited", "yes").doesNotContainKey(SHARD);
        rebalance(LIMITS);
        assertThat(labels(getConfigMap("default", "raced"))).containsEntry("edited", "yes").containsKey(SHARD);
    }

    @Test
    void aFailedWriteDoesNotEndThePassAndIsTriedAgain() {
        for (int i = 0; i < 10; i++) {
            configMap("default", "cm-" + i, Map.of());
        }
        server.expect().patch().withPath("/api/v1/namespaces/default/configmaps/cm-3")
                .andReturn(403, "forbidden by a policy").once();
        Rebalancer rebalancer = rebalancer(LIMITS);
        assertThat(rebalancer.reconcile(KEY)).isEqualTo(Reconciler.Result.requeueAfter(LIMITS.pendingRetry()));
        assertThat(labels(getConfigMap("default", "cm-3"))).doesNotContainKey(SHARD);
        for (int i = 0; i < 10; i++) {
            if (i != 3) {
                assertThat(labels(getConfigMap("default", "cm-" + i))).as("cm-" + i).containsKey(SHARD);
            }
        }
        assertThat(rebalancer.reconcile(KEY)).isEqualTo(Reconciler.Result.requeueAfter(LIMITS.resync()));
        assertThat(labels(getConfigMap("default", "cm-3"))).containsKey(SHARD);
    }

    @Test
    void theMoveBudgetCapsObjectsInDrain() {
        for (int i = 0; i < 40; i++) {
            configMap("default", "cm-" + i, Map.of(SHARD, "shard-0"));
        }
        shards(ShardState.READY, "shard-0", "shard-1");
        RebalanceLimits budgetOfFive = new RebalanceLimits(7, 4, 5, Duration.ofMinutes(5), Duration.ofSeconds(5));
        Rebalancer rebalancer = rebalancer(budgetOfFive);
        assertThat(rebalancer.reconcile(KEY)).isEqualTo(Reconciler.Result.requeueAfter(budgetOfFive.pendingRetry()));
        long draining = client.configMaps().inNamespace("default").withLabel(DRAIN).list().getItems().size();
        assertThat(draining).isEqualTo(5);
        assertThat(rebalancer.reconcile(KEY)).as("no progress: backs off")
                .isEqualTo(Reconciler.Result.requeueAfter(Duration.ofSeconds(10)));
        assertThat(client.configMaps().inNamespace("default").withLabel(DRAIN).list().getItems())
                .as("no new drains while the budget is used up").hasSize(5);
        assertThat(rebalancer.reconcile(KEY)).isEqualTo(Reconciler.Result.requeueAfter(Duration.ofSeconds(20)));
        assertThat(rebalancer.reconcile(KEY)).as("at most 30 s").isEqualTo(Reconciler.Result.requeueAfter(Duration.ofSeconds(30)));

        // a shard hands one back: the next pass assigns it, drains another and comes back soon
        ConfigMap handedBack = client.configMaps().inNamespace("default").withLabel(DRAIN).list().getItems().get(0);
        client.configMaps().inNamespace("default").withName(handedBack.getMetadata().getName()).edit(cm ->
                new ConfigMapBuilder(cm).editMetadata().removeFromLabels(DRAIN).removeFromLabels(SHARD).endMetadata().build());
        assertThat(rebalancer.reconcile(KEY)).isEqualTo(Reconciler.Result.requeueAfter(budgetOfFive.pendingRetry()));
        assertThat(client.configMaps().inNamespace("default").withLabel(DRAIN).list().getItems()).hasSize(5);
    }

    @Test
    void nothingMovesWhileTheRingsStrategyIsMissing() {
        configMap("default", "a", Map.of(SHARD, "shard-gone"));
        configMap("default", "b", Map.of());
        registry.update(inputs -> inputs.withStrategies(Map.of()));
        assertThat(rebalance(LIMITS)).isEqualTo(Reconciler.Result.done());
        assertThat(labels(getConfigMap("default", "a"))).containsEntry(SHARD, "shard-gone");
        assertThat(labels(getConfigMap("default", "b"))).doesNotContainKey(SHARD);
    }

    @Test
    void controlledObjectsWithoutControllerAreLeftAlone() {
        client.secrets().resource(new SecretBuilder().withNewMetadata().withNamespace("default").withName("free")
                .endMetadata().build()).create();
        rebalance(LIMITS);
        assertThat(labels(client.secrets().inNamespace("default").withName("free").get())).doesNotContainKey(SHARD);
    }

    @Test
    void anApiServerFailureMidPassKeepsTheWorkDoneAndTheNextPassFinishes() {
        for (int i = 0; i < 5; i++) {
            secretOf(configMap("default", "cm-" + i, Map.of()), Map.of());
        }
        // the API server fails the first list of the pass's second resource, and the client has
        // no retries left (fabric8 retries 5xx on its own otherwise)
        sharderClient = new KubernetesClientBuilder().withConfig(
                new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0)
                        .build()).build();
        server.expect().get().withPath("/api/v1/secrets?limit=7").andReturn(500, "etcd unavailable").once();
        assertThatThrownBy(() -> rebalance(LIMITS))
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("500");
        assertThat(labels(getConfigMap("default", "cm-0"))).as("main objects were assigned before the failure")
                .containsKey(SHARD);
        assertThat(labels(client.secrets().inNamespace("default").withName("checksums-cm-0").get())).doesNotContainKey(SHARD);

        assertThat(rebalance(LIMITS)).isEqualTo(Reconciler.Result.requeueAfter(LIMITS.resync()));
        assertThat(labels(client.secrets().inNamespace("default").withName("checksums-cm-0").get()))
                .containsEntry(SHARD, labels(getConfigMap("default", "cm-0")).get(SHARD));
        sharderClient.close();
    }

    @Test
    void resourcesTheServerDoesNotServeLeaveTheRingPending() {
        ring.getSpec().getResources().add(new RingResourceSpec("example.com", "widgets", List.of()));
        server.expect().get().withPath("/apis/example.com").andReturn(404, "").always();
        configMap("default", "a", Map.of());
        assertThat(rebalance(LIMITS)).isEqualTo(Reconciler.Result.requeueAfter(LIMITS.pendingRetry()));
        assertThat(labels(getConfigMap("default", "a"))).containsKey(SHARD);
    }

    /**
     * A ring switched to range mode while its shards serve by labels: a pass drains each main object labelled for one of
     * them, removes every other shard and drain label (controlled objects', those of a shard that is gone), records the
     * buckets of the objects they still hold, and passes again soon while they hold any, backing off while nobody
     * hands one back. Once no shard serves by labels, the labels left go. It looks at the labelled objects only, and
     * assigns nothing.
     */
    @Test
    void aRangeModeRingDrainsTheObjectsOfLabelModeShardsAndHoldsTheirBuckets() {
        ConfigMap owner = configMap("default", "a", Map.of(SHARD, "shard-0"));
        secretOf(owner, Map.of(SHARD, "shard-0"));
        ConfigMap draining = configMap("default", "b", Map.of(SHARD, "shard-1", DRAIN, "true"));
        configMap("default", "c", Map.of(DRAIN, "true"));
        configMap("default", "e", Map.of(SHARD, "shard-9"));
        configMap("team", "d", Map.of("app", "shop"));
        ring.getSpec().setRanges(new RingRanges());
        Set<String> labelShards = Set.of("shard-0", "shard-1");
        Rebalancer rebalancer = rebalancer(LIMITS);

        assertThat(rebalancer.reconcile(KEY)).as("objects to hand back").isEqualTo(
                Reconciler.Result.requeueAfter(LIMITS.pendingRetry()));
        assertThat(labels(getConfigMap("default", "a"))).containsEntry(SHARD, "shard-0").containsEntry(DRAIN, "true");
        assertThat(labels(getConfigMap("default", "b"))).containsEntry(SHARD, "shard-1").containsEntry(DRAIN, "true");
        // the mock keeps a label a merge patch sets to null, with the value null (a real API server removes it)
        assertThat(labels(client.secrets().inNamespace("default").withName("checksums-a").get()).get(SHARD)).isNull();
        for (String name : List.of("c", "e")) {
            assertThat(labels(getConfigMap("default", name))).allSatisfy((label, value) -> assertThat(value).isNull());
        }
        assertThat(labels(getConfigMap("team", "d"))).isEqualTo(Map.of("app", "shop"));
        assertThat(meters.get("ringmaster.ring.labels.removed").tags("resource", "configmaps").counter().count())
                .isEqualTo(2);
        assertThat(holds.free(KEY, labelShards)).as("listed at the switch").isEqualTo(RangeSet.EMPTY);
        for (String name : List.of("c", "e")) {
            client.configMaps().inNamespace("default").withName(name).delete(); // the mock lists them still
        }
        client.secrets().inNamespace("default").withName("checksums-a").delete();

        clock.advance(Duration.ofSeconds(3));
        assertThat(rebalancer.reconcile(KEY)).as("fewer in drain (c's label went)").isEqualTo(
                Reconciler.Result.requeueAfter(LIMITS.pendingRetry()));
        assertThat(rebalancer.reconcile(KEY)).as("nobody handed one back: backing off").isEqualTo(
                Reconciler.Result.requeueAfter(LIMITS.pendingRetry().multipliedBy(2)));
        RangeSet free = holds.free(KEY, labelShards);
        long heldA = bucketOf(getConfigMap("default", "a"));
        long heldB = bucketOf(draining);
        assertThat(free.fraction()).isEqualTo(1 - (heldA == heldB ? 1 : 2) / 64.0);
        assertThat(free.contains(hashOf(owner))).isFalse();
        assertThat(free.contains(hashOf(draining))).isFalse();

        handBack("a");
        assertThat(rebalancer.reconcile(KEY)).as("one handed back: soon again").isEqualTo(
                Reconciler.Result.requeueAfter(LIMITS.pendingRetry()));
        free = holds.free(KEY, labelShards);
        assertThat(free.fraction()).isEqualTo(1 - 1 / 64.0);
        assertThat(free.contains(hashOf(owner))).isEqualTo(heldA != heldB);
        assertThat(free.contains(hashOf(draining))).isFalse();

        shards(List.of(new ShardInfo("shard-0", ShardState.READY, 1, false, true, RangeClaim.NONE),
                new ShardInfo("shard-1", ShardState.READY, 1, false, true, RangeClaim.SOME)));
        assertThat(rebalancer.reconcile(KEY)).as("no shard serves by labels: the last label went")
                .isEqualTo(Reconciler.Result.requeueAfter(LIMITS.resync()));
        assertThat(labels(getConfigMap("default", "b"))).allSatisfy((label, value) -> assertThat(value).isNull());
        client.configMaps().inNamespace("default").withName("b").delete();
        assertThat(rebalancer.reconcile(KEY)).as("no label left: not listed again").isEqualTo(Reconciler.Result.done());
    }

    /**
     * The objects of label-mode shards are drained whole buckets at a time, in the order of the hash space, the next
     * while fewer than the concurrent moves are in drain: the rest wait for a later pass.
     */
    @Test
    void aRangeModeRingDrainsTheObjectsOfLabelModeShardsBucketByBucket() {
        List<ConfigMap> objects = inNamespacesOfTheirOwn(24, i -> Map.of(SHARD, "shard-" + i % 2));
        ring.getSpec().setRanges(new RingRanges("namespace", 64));
        PassSummary summary = pass();

        TreeMap<Long, List<String>> byBucket = new TreeMap<>(Long::compareUnsigned);
        objects.forEach(object -> byBucket.computeIfAbsent(namespaceHashOf(object) >>> 58, any -> new ArrayList<>())
                .add(object.getMetadata().getName()));
        List<Boolean> drainedBuckets = new ArrayList<>();
        long drained = 0;
        for (List<String> names : byBucket.values()) {
            long inDrain = names.stream().filter(name -> labels(getConfigMap(name, name)).containsKey(DRAIN)).count();
            assertThat(inDrain).as("a bucket is drained whole or not at all: %s", names).isIn(0L, (long) names.size());
            drainedBuckets.add(inDrain > 0);
            drained += inDrain;
        }
        assertThat(drainedBuckets.get(0)).as("the first bucket").isTrue();
        assertThat(drainedBuckets.indexOf(false)).as("the drained buckets come first in the space")
                .isEqualTo(drainedBuckets.lastIndexOf(true) + 1);
        int last = byBucket.values().stream().filter(names -> labels(getConfigMap(names.get(0), names.get(0)))
                .containsKey(DRAIN)).mapToInt(List::size).reduce((first, second) -> second).orElseThrow();
        assertThat(drained - last).as("in drain before the last bucket started").isLessThan(LIMITS.concurrentMoves());
        assertThat(summary.drained()).isEqualTo(drained);
        assertThat(summary.deferred()).isEqualTo(objects.size() - drained);
    }

    /**
     * A ring that left range mode while a range-mode shard still serves ranges labels, once a shard that serves by
     * labels is there, only the objects outside what the range-mode shards claim (nothing while the range assigner has
     * not said what), tells when it labelled all of those, and passes again soon while ranges are claimed.
     */
    @Test
    void aRingThatLeftRangeModeLabelsOnlyTheObjectsOutsideTheClaimedRanges() {
        List<ConfigMap> objects = inNamespacesOfTheirOwn(12, i -> Map.of());
        shards(List.of(new ShardInfo("shard-0", ShardState.READY, 1), new ShardInfo("shard-1", ShardState.READY, 1),
                new ShardInfo("range-0", ShardState.READY, 1, false, true, RangeClaim.SOME)));
        Rebalancer rebalancer = rebalancer(LIMITS);

        assertThat(rebalancer.reconcile(KEY)).as("nothing it may label: backing off (new claims requeue it)")
                .isEqualTo(Reconciler.Result.requeueAfter(LIMITS.pendingRetry().multipliedBy(2)));
        assertThat(objects).as("no claims said yet: all claimed").allSatisfy(object ->
                assertThat(labels(getConfigMap(object.getMetadata().getNamespace(), object.getMetadata().getName())))
                        .doesNotContainKey(SHARD));

        RangeReturns.Claims lowerHalf = new RangeReturns.Claims(Optional.of(RangeKey.NAMESPACE),
                RangeSet.parse("0x0000000000000000-0x8000000000000000"));
        returns.claimed(KEY, lowerHalf);
        assertThat(rebalancer.reconcile(KEY)).isEqualTo(Reconciler.Result.requeueAfter(LIMITS.pendingRetry()));
        List<Boolean> claimedOnes = new ArrayList<>();
        for (ConfigMap object : objects) {
            boolean claimed = namespaceHashOf(object) >= 0; // the lower half of the unsigned space
            claimedOnes.add(claimed);
            assertThat(labels(getConfigMap(object.getMetadata().getNamespace(), object.getMetadata().getName()))
                    .containsKey(SHARD)).as(object.getMetadata().getNamespace()).isEqualTo(!claimed);
        }
        assertThat(claimedOnes).as("objects on both sides").contains(true, false);
        assertThat(returns.labelledOutside(KEY, lowerHalf)).isTrue();
    }

    /** What a shard does to acknowledge a drain: removes both labels (an update, which the mock applies as it is). */
    private void handBack(String name) {
        ConfigMap object = getConfigMap("default", name);
        object.getMetadata().getLabels().remove(SHARD);
        object.getMetadata().getLabels().remove(DRAIN);
        client.configMaps().resource(object).update();
    }

    /** The bucket of 64 that holds the object's uid hash, from its top six bits. */
    private static long bucketOf(ConfigMap object) {
        return hashOf(object) >>> 58;
    }

    /**
     * {@code count} ConfigMaps, each in a namespace of its own whose name differs from the others' in its first letter:
     * the mock gives uids that differ in their last digits only, which FNV-1a spreads over few buckets.
     */
    private List<ConfigMap> inNamespacesOfTheirOwn(int count, IntFunction<Map<String, String>> labels) {
        List<ConfigMap> objects = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String namespace = (char) ('a' + i) + "-shop";
            TestNamespaces.create(client, namespace, Map.of());
            objects.add(configMap(namespace, namespace, labels.apply(i)));
        }
        return objects;
    }

    private static long namespaceHashOf(ConfigMap object) {
        return RangeKey.NAMESPACE.hash(object.getMetadata().getUid(), object.getMetadata().getNamespace());
    }

    private static long hashOf(ConfigMap object) {
        return RangeKey.UID.hash(object.getMetadata().getUid(), object.getMetadata().getNamespace());
    }
}
