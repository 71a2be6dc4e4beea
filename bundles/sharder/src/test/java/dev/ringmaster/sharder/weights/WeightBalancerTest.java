package dev.ringmaster.sharder.weights;

import static dev.ringmaster.sharder.testing.TestRings.configMapRing;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.kube.ObjectPages;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.kube.TestNamespaces;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.RingBalancing;
import dev.ringmaster.sharder.model.RingBalancingStatus;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingStatus;
import dev.ringmaster.sharder.rebalance.NamespaceScope;
import dev.ringmaster.sharder.ring.BalanceRecorder;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.ring.StrategyBinding;
import dev.ringmaster.sharder.testing.TestDiscovery;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The leader's pacing of weight steps against a mock API server, on an injected clock: an imbalance acts only once
 * it lasted the stabilization time and every object is where the weights put it, a step writes the weights into the
 * ring's status and tells an Event, the next waits the interval, and an unreadable report is warned of once.
 */
@EnableCrudApiServer
class WeightBalancerTest {

    KubernetesClient client;
    KubernetesMockServer server;

    private static final RingKey KEY = RingKey.clusterRing("shop");
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final RingResource CONFIG_MAPS = new RingResource("", "configmaps", Role.MAIN);

    private final MutableClock clock = new MutableClock(T0);
    private final RingRegistry registry = new RingRegistry();
    private final List<Lease> leases = new ArrayList<>();
    private final List<OptionalDouble> steps = new ArrayList<>();
    private WeightBalancer balancer;

    @BeforeEach
    void ring() {
        TestDiscovery.serveCoreV1(server, TestDiscovery.CONFIG_MAPS);
        TestNamespaces.create(client, "default", Map.of());
        ClusterRing ring = configMapRing(KEY.name());
        ring.getSpec().setBalancing(new RingBalancing(null, 10, 50, 30, 20));
        ring.setStatus(new RingStatus());
        client.resources(ClusterRing.class).resource(ring).create();
        registry.update(inputs -> inputs.withStrategies(Map.of("rendezvous",
                        new StrategyBinding(new RendezvousStrategy(), Map.of()))).withDefaultStrategy("rendezvous")
                .withInterpreters(Map.of(DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter()))
                .withMembership(new Membership(Map.of(KEY, List.of(new ShardInfo("shard-0", ShardState.READY, 1),
                        new ShardInfo("shard-1", ShardState.READY, 1), new ShardInfo("shard-2", ShardState.READY, 1))))));
        refresh();
        RingView view = registry.view(KEY).orElseThrow();
        for (int i = 0; i < 30; i++) {
            String name = "cm-" + i;
            String shard = view.shardFor(view.keyFor(ObjectReference.of("", "v1", "ConfigMap", "default", name),
                    CONFIG_MAPS)).orElseThrow();
            client.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withNamespace("default")
                    .withName(name).addToLabels(RingContract.shardLabel(KEY.name()), shard).endMetadata().build()).create();
        }
        balancer = new WeightBalancer(registry, () -> List.copyOf(leases), client, new ResourceCatalog(client),
                new ObjectPages(client, 10), new NamespaceScope(() -> client.namespaces().list().getItems()), clock,
                new BalanceRecorder() {
                    @Override
                    public void balanced(RingKey ring, Map<String, Double> load, double imbalance, OptionalDouble moved) {
                        moved.ifPresent(share -> steps.add(moved));
                    }

                    @Override
                    public void notBalanced(RingKey ring) {
                    }
                }, "ringmaster.dev/sharder");
        report("shard-0", "window=15s busy=0.9000 wait=0.0000 objects=10 cells=");
        report("shard-1", "window=15s busy=0.1000 wait=0.0000 objects=10 cells=");
        report("shard-2", "window=15s busy=0.1000 wait=0.0000 objects=10 cells=");
    }

    @Test
    void anImbalanceThatLastsSetsWeightsInTheStatusAndTheNextStepWaitsTheInterval() {
        balancer.reconcile(KEY);
        clock.advance(Duration.ofSeconds(19));
        balancer.reconcile(KEY);
        assertThat(stored().getStatus().getBalancing()).as("within the stabilization").isNull();

        clock.advance(Duration.ofSeconds(1));
        balancer.reconcile(KEY);
        RingBalancingStatus weights = stored().getStatus().getBalancing();
        assertThat(weights.getLastStepTime()).isEqualTo("2026-11-29T10:00:20Z");
        assertThat(weights.getWeightPercent()).containsOnlyKeys("shard-0", "shard-1", "shard-2");
        assertThat(weights.percentOf("shard-0")).isLessThan(weights.percentOf("shard-1"))
                .isLessThan(weights.percentOf("shard-2"));
        assertThat(steps).hasSize(1);
        assertThat(events("Balanced")).singleElement().satisfies(event -> assertThat(event.getNote())
                .startsWith("shard weights {shard-0=").contains("the busiest shard at 2.45 times the mean load"));

        // the objects moved (here: at once), the shards still report the old load: the interval holds the next step
        refresh();
        moveToWhereTheWeightsPutThem();
        clock.advance(Duration.ofSeconds(25));
        balancer.reconcile(KEY);
        assertThat(steps).as("within the interval").hasSize(1);
    }

    @Test
    void noStepWhileAnObjectIsInDrain() {
        client.configMaps().inNamespace("default").withName("cm-3").edit(configMap -> new ConfigMapBuilder(configMap)
                .editMetadata().addToLabels(RingContract.drainLabel(KEY.name()), "true").endMetadata().build());
        balancer.reconcile(KEY);
        clock.advance(Duration.ofSeconds(60));
        balancer.reconcile(KEY);
        assertThat(stored().getStatus().getBalancing()).isNull();
        assertThat(steps).isEmpty();
    }

    @Test
    void anUnreadableReportIsWarnedOnceAndTheShardCountedAtTheMeanOfTheOthers() {
        report("shard-2", "busy=lots");
        balancer.reconcile(KEY);
        clock.advance(Duration.ofSeconds(20));
        balancer.reconcile(KEY);
        assertThat(steps).as("shard-0 at 0.9 against a mean of 0.5").hasSize(1);
        refresh();
        moveToWhereTheWeightsPutThem();
        clock.advance(Duration.ofSeconds(60));
        balancer.reconcile(KEY);
        clock.advance(Duration.ofSeconds(60));
        balancer.reconcile(KEY);
        assertThat(events("InvalidLoadReport")).singleElement().satisfies(event -> {
            assertThat(event.getRegarding().getName()).isEqualTo("shard-2");
            assertThat(event.getNote()).isEqualTo("Annotation ringmaster.dev/load cannot be read (busy \"lots\" is not a"
                    + " number); the shard is counted at the mean busy time of the others");
        });
    }

    private void report(String shard, String load) {
        leases.removeIf(lease -> lease.getMetadata().getName().equals(shard));
        Lease lease = new LeaseBuilder().withMetadata(new ObjectMetaBuilder().withNamespace("default").withName(shard)
                .addToLabels(RingKind.CLUSTER_RING.leaseLabel(), KEY.name())
                .addToAnnotations(RingContract.LOAD_ANNOTATION, load).build()).build();
        leases.add(client.leases().resource(lease).createOr(existing -> existing.update()));
    }

    /** The registry sees the ring as the server holds it now, as the ring watch would. */
    private void refresh() {
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(stored())));
    }

    /** What the rebalancer does through drains, done at once: every ConfigMap labelled where the view puts it. */
    private void moveToWhereTheWeightsPutThem() {
        RingView view = registry.view(KEY).orElseThrow();
        client.configMaps().inNamespace("default").list().getItems().forEach(configMap -> {
            String name = configMap.getMetadata().getName();
            String shard = view.shardFor(view.keyFor(ObjectReference.of("", "v1", "ConfigMap", "default", name),
                    CONFIG_MAPS)).orElseThrow();
            client.configMaps().inNamespace("default").withName(name).edit(c -> new ConfigMapBuilder(c).editMetadata()
                    .addToLabels(RingContract.shardLabel(KEY.name()), shard).endMetadata().build());
        });
    }

    private ClusterRing stored() {
        return client.resources(ClusterRing.class).withName(KEY.name()).get();
    }

    private List<Event> events(String reason) {
        return client.events().v1().events().inAnyNamespace().list().getItems().stream()
                .filter(event -> reason.equals(event.getReason())).toList();
    }
}
