package dev.ringmaster.sharder.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.XxHash64;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.membership.Membership;
import dev.ringmaster.sharder.membership.ShardInfo;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.ClusterRingStatus;
import dev.ringmaster.sharder.model.RingResourceSpec;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.StrategyBinding;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The shell's views over in-memory snapshots. */
class RingCommandsTest {

    private final List<ClusterRing> rings = new ArrayList<>();
    private final RingRegistry registry = new RingRegistry();
    private final AtomicReference<ResourceInterpreter> interpreter =
            new AtomicReference<>(new DefaultResourceInterpreter());
    private final Membership membership = new Membership(Map.of("example", List.of(
            new ShardInfo("shard-0", ShardState.READY, 1), new ShardInfo("shard-1", ShardState.EXPIRED, 2),
            new ShardInfo("shard-2", ShardState.DEAD, 1))));
    private final RingCommands commands = new RingCommands(() -> rings,
            name -> rings.stream().filter(ring -> ring.getMetadata().getName().equals(name)).findFirst(),
            registry, () -> membership, ring -> Optional.ofNullable(interpreter.get()),
            (group, resource) -> resource.equals("configmaps")
                    ? Optional.of(new ResolvedResource("", "v1", "configmaps", "ConfigMap", true)) : Optional.empty());

    @BeforeEach
    void example() {
        ClusterRing ring = new ClusterRing();
        ring.getMetadata().setName("example");
        ring.getSpec().getResources().add(new RingResourceSpec("", "configmaps", List.of()));
        ClusterRingStatus status = new ClusterRingStatus();
        status.setConditions(List.of(new ConditionBuilder().withType("Ready").withStatus("True").build()));
        ring.setStatus(status);
        rings.add(ring);
        registry.update(inputs -> inputs.withDefaultStrategy("rendezvous")
                .withStrategies(Map.of("rendezvous", new StrategyBinding(new RendezvousStrategy(), Map.of("k", "v"))))
                .withRings(Map.of("example", ""))
                .withMembership(membership));
    }

    @Test
    void listShowsStrategyShardsAndReadiness() {
        assertThat(commands.list().lines()).containsExactly(
                "RING                           STRATEGY             AVAILABLE SHARDS READY",
                "example                        rendezvous           2         3      True");
    }

    @Test
    void shardsShowsEveryLeaseWithItsState() {
        assertThat(commands.shards("example").lines()).containsExactly(
                "SHARD                                    STATE      WEIGHT AVAILABLE",
                "shard-0                                  ready      1      yes",
                "shard-1                                  expired    2      yes",
                "shard-2                                  dead       1      no");
        assertThat(commands.shards("other")).isEqualTo("no ClusterRing other");
    }

    @Test
    void explainNamesTheShardAndHowItWasChosen() {
        String shard = registry.snapshot("example").flatMap(s -> s.shardFor("/ConfigMap/default/cm-1")).orElseThrow();

        assertThat(commands.explain("example", "/ConfigMap/default/cm-1").lines()).containsExactly(
                "shard:      " + shard,
                "key:        /ConfigMap/default/cm-1 (xxhash64 "
                        + Long.toUnsignedString(XxHash64.hash("/ConfigMap/default/cm-1"), 16) + ")",
                "resource:   configmaps",
                "strategy:   rendezvous",
                "candidates: shard-0, shard-1 (weight 2)");
    }

    @Test
    void explainSaysWhatIsMissing() {
        assertThat(commands.explain("example", "ConfigMap/cm-1")).startsWith("name the object as group/Kind/namespace/name");
        assertThat(commands.explain("nope", "/ConfigMap/default/cm-1")).isEqualTo("no ClusterRing nope");
        assertThat(commands.explain("example", "apps/Deployment/default/web"))
                .isEqualTo("Deployment.apps is not a main resource of ClusterRing example");
        interpreter.set(null);
        assertThat(commands.explain("example", "/ConfigMap/default/cm-1"))
                .contains("a resource interpreter of ClusterRing example is not deployed");
        registry.update(inputs -> inputs.withStrategies(Map.of()));
        assertThat(commands.explain("example", "/ConfigMap/default/cm-1"))
                .contains("strategy \"rendezvous\" is not deployed");
    }

    @Test
    void strategiesShowsSettingsAndUsers() {
        assertThat(commands.strategies()).isEqualTo("rendezvous (default): rings [example], settings {k=v}");
        registry.update(inputs -> inputs.withDefaultStrategy("consistent-hash"));
        assertThat(commands.strategies().lines()).containsExactly(
                "rendezvous: rings [], settings {k=v}",
                "consistent-hash (default): not deployed");
        assertThat(commands.list()).contains("example                        consistent-hash");
    }
}
