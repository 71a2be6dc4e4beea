package dev.ringmaster.sharder.rebalance;

import static dev.ringmaster.sharder.testing.TestRings.main;
import static dev.ringmaster.sharder.testing.TestRings.ring;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.consistent.ConsistentHashStrategy;
import dev.ringmaster.sharder.app.SharderMetrics;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.kube.LabelWriter;
import dev.ringmaster.sharder.kube.ObjectPages;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.kube.WriteFence;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ranges.LabelHolds;
import dev.ringmaster.sharder.ranges.RangeReturns;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.ring.StrategyBinding;
import dev.ringmaster.testing.apiserver.AuditLog;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Leadership lost in the middle of a rebalance pass, on a real API server: the fence (the leader's
 * lease, as {@code LeaderElection.mayWrite} reports it) closes after the pass's 120th write, and
 * the API server receives no write of the pass after that, though the pass had pages left.
 */
class RebalancerFenceIT {

    private static final String NAMESPACE = "rebalancer-fence-it";
    private static final String RING = "fence";
    static final RingKey KEY = RingKey.clusterRing(RING);
    private static final int OBJECTS = 400;
    private static final int WRITES_BEFORE_THE_LEASE_RUNS_OUT = 120;

    private static final KubernetesClient ADMIN = RealApiServer.shared().admin();

    @Test
    void noWriteReachesTheServerOnceTheFenceClosedMidPass() {
        ADMIN.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
                .serverSideApply();
        IntStream.range(0, OBJECTS).parallel().forEach(i -> ADMIN.configMaps().inNamespace(NAMESPACE).resource(
                new ConfigMapBuilder().withNewMetadata().withName("cm-" + i).endMetadata().build()).create());
        AtomicInteger writesLeft = new AtomicInteger(WRITES_BEFORE_THE_LEASE_RUNS_OUT);
        Instant passStarted = Instant.now();

        Throwable failure;
        try (KubernetesClient fenced = WriteFence.guard(ADMIN, () -> writesLeft.getAndDecrement() > 0);
                Rebalancer rebalancer = rebalancer(fenced, NAMESPACE)) {
            failure = catchThrowable(() -> rebalancer.reconcile(KEY));
        }

        assertThat(failure).as("the pass ends at the refused write").matches(WriteFence::refused, "refused by the fence");
        List<AuditLog.Event> writes = RealApiServer.shared().audit().events().stream()
                .filter(event -> event.namespace().equals(NAMESPACE) && event.resource().equals("configmaps")
                        && event.verb().equals("patch") && !event.received().isBefore(passStarted))
                .toList();
        assertThat(writes).as("writes the API server received").hasSize(WRITES_BEFORE_THE_LEASE_RUNS_OUT);
        long labelled = ADMIN.configMaps().inNamespace(NAMESPACE).list().getItems().stream()
                .filter(configMap -> configMap.getMetadata().getLabels() != null
                        && configMap.getMetadata().getLabels().containsKey(RingContract.shardLabel(RING)))
                .count();
        assertThat(labelled).isEqualTo(WRITES_BEFORE_THE_LEASE_RUNS_OUT).isLessThan(OBJECTS);
    }

    /**
     * A rebalancer of the ClusterRing {@value #RING} over the ConfigMaps of {@code namespace} alone, with two
     * ready shards, pages of 50, 10 writes at once.
     */
    static Rebalancer rebalancer(KubernetesClient client, String namespace) {
        SharderMetrics metrics = new SharderMetrics(new SimpleMeterRegistry());
        RingRegistry registry = new RingRegistry(metrics::ringCalculated);
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(ring(RING, main("", "configmaps"))))
                .withStrategies(Map.of("consistent-hash", new StrategyBinding(new ConsistentHashStrategy(), Map.of())))
                .withDefaultStrategy("consistent-hash")
                .withInterpreters(Map.of(DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter()))
                .withMembership(new Membership(Map.of(KEY, List.of(new ShardInfo("shard-0", ShardState.READY, 1),
                        new ShardInfo("shard-1", ShardState.READY, 1))))));
        RebalanceLimits limits = new RebalanceLimits(50, 10, 5000, Duration.ofMinutes(5), Duration.ofSeconds(1));
        return new Rebalancer(registry, RingView.InvalidKeys.IGNORE, new ResourceCatalog(client),
                new ObjectPages(client, limits.pageSize()), new LabelWriter(client),
                new NamespaceScope(() -> List.of(ADMIN.namespaces().withName(namespace).get())), limits, metrics,
                new LabelHolds(Clock.systemUTC()), new RangeReturns());
    }
}
