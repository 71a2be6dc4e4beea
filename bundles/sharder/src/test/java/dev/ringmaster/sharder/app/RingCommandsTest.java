package dev.ringmaster.sharder.app;

import static dev.ringmaster.sharder.testing.TestRings.configMapControllerRing;
import static dev.ringmaster.sharder.testing.TestRings.main;
import static dev.ringmaster.sharder.testing.TestRings.ring;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.XxHash64;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.ControllerRing;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingResourceSpec;
import dev.ringmaster.sharder.model.RingStatus;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.ring.StrategyBinding;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The shell's commands over in-memory ring views. */
class RingCommandsTest {

    private final RingRegistry registry = new RingRegistry();
    private final Membership membership = new Membership(Map.of(RingKey.clusterRing("example"), List.of(
            new ShardInfo("shard-0", ShardState.READY, 1), new ShardInfo("shard-1", ShardState.EXPIRED, 2),
            new ShardInfo("shard-2", ShardState.DEAD, 1))));
    private final RingCommands commands = new RingCommands(registry,
            (group, resource) -> resource.equals("configmaps")
                    ? Optional.of(new ResolvedResource("", "v1", "configmaps", "ConfigMap", true)) : Optional.empty());

    @BeforeEach
    void example() {
        ClusterRing ring = ring("example", main("", "configmaps"));
        RingStatus status = new RingStatus();
        status.setConditions(List.of(new ConditionBuilder().withType("Ready").withStatus("True").build()));
        ring.setStatus(status);
        registry.update(inputs -> inputs.withDefaultStrategy("rendezvous")
                .withStrategies(Map.of("rendezvous", new StrategyBinding(new RendezvousStrategy(), Map.of("k", "v"))))
                .withInterpreters(Map.of(DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter()))
                .withRings(RingKind.CLUSTER_RING, List.of(ring))
                .withMembership(membership));
    }

    @Test
    void listShowsStrategyShardsAndReadiness() {
        assertThat(commands.list().lines()).containsExactly(
                "KIND            RING                           STRATEGY             AVAILABLE SHARDS READY",
                "ClusterRing     example                        rendezvous           2         3      True");
    }

    @Test
    void shardsShowsEveryLeaseWithItsState() {
        assertThat(commands.shards("example").lines()).containsExactly(
                "SHARD                                    STATE      WEIGHT AVAILABLE",
                "shard-0                                  ready      1      yes",
                "shard-1                                  expired    2      yes",
                "shard-2                                  dead       1      no");
        assertThat(commands.shards("other")).isEqualTo("no ClusterRing or ControllerRing other");
    }

    @Test
    void explainNamesTheShardAndHowItWasChosen() {
        String shard = registry.view(RingKey.clusterRing("example")).flatMap(RingView::shardRing).flatMap(s -> s.shardFor("/ConfigMap/default/cm-1")).orElseThrow();

        assertThat(commands.explain("example", "/ConfigMap/default/cm-1").lines()).containsExactly(
                "shard:      " + shard,
                "key:        /ConfigMap/default/cm-1 (xxhash64 "
                        + Long.toUnsignedString(XxHash64.hash("/ConfigMap/default/cm-1"), 16) + ")",
                "resource:   configmaps",
                "strategy:   rendezvous",
                "candidates: shard-0, shard-1 (weight 2)");
    }

    @Test
    void aRingIsNamedWithItsKindWhenBothKindsHaveTheName() {
        ControllerRing twin = configMapControllerRing("example");
        registry.update(inputs -> inputs.withRings(RingKind.CONTROLLER_RING, List.of(twin)));

        assertThat(commands.shards("example")).isEqualTo("both a ClusterRing and a ControllerRing are named example:"
                + " say clusterring/example or controllerring/example");
        assertThat(commands.shards("controllerring/example")).isEqualTo("ControllerRing/example has no shard leases");
        assertThat(commands.shards("ClusterRing/example").lines()).hasSize(4);
        assertThat(commands.shards("ring/example")).isEqualTo("unknown ring kind 'ring': expected ClusterRing or ControllerRing");
        assertThat(commands.list().lines()).contains(
                "ControllerRing  example                        rendezvous           0         0      unknown");
    }

    @Test
    void explainSaysWhatIsMissing() {
        assertThat(commands.explain("example", "ConfigMap/cm-1")).startsWith("name the object as group/Kind/namespace/name");
        assertThat(commands.explain("nope", "/ConfigMap/default/cm-1")).isEqualTo("no ClusterRing or ControllerRing nope");
        assertThat(commands.explain("example", "apps/Deployment/default/web"))
                .isEqualTo("Deployment.apps is not a main resource of ClusterRing/example");
        registry.update(inputs -> inputs.withInterpreters(Map.of()));
        assertThat(commands.explain("example", "/ConfigMap/default/cm-1")).isEqualTo("ClusterRing/example is not"
                + " Ready (InterpreterUnavailable): resource interpreter \"default\" is not available; objects are"
                + " neither assigned nor moved until it is");
        registry.update(inputs -> inputs.withStrategies(Map.of()));
        assertThat(commands.explain("example", "/ConfigMap/default/cm-1"))
                .contains("(StrategyUnavailable)", "strategy \"rendezvous\" (the sharder's default) is not available");
    }

    @Test
    void strategiesShowsSettingsAndUsers() {
        assertThat(commands.strategies()).isEqualTo("rendezvous (default): rings [ClusterRing/example], settings {k=v}");
        registry.update(inputs -> inputs.withDefaultStrategy("consistent-hash"));
        assertThat(commands.strategies().lines()).containsExactly(
                "rendezvous: rings [], settings {k=v}",
                "consistent-hash (default): not deployed");
        assertThat(commands.list()).contains("example                        consistent-hash");
    }
}
