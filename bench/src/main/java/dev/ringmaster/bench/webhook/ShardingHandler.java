package dev.ringmaster.bench.webhook;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.consistent.ConsistentHashStrategy;
import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.sharder.admission.SharderAdmission;
import dev.ringmaster.sharder.app.SharderMetrics;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingResourceSpec;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.StrategyBinding;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;

/**
 * The sharder's own admission handler ({@link SharderAdmission}), set up as a sharder replica has it
 * once it has read the ring {@code example} (ConfigMaps, controlling Secrets) and three ready shards:
 * the ring's view in a {@link RingRegistry} with the consistent-hash strategy, the default resource
 * interpreter, the sharder's metrics in the benchmark's registry.
 */
final class ShardingHandler {

    static final String RING = "example";
    static final String PREFIX = SharderAdmission.PATH_PREFIX;
    static final String PATH = RingContract.webhookPath(RING);

    private ShardingHandler() {
    }

    static AdmissionHandler create(MeterRegistry meters) {
        ClusterRing ring = new ClusterRing();
        ring.getMetadata().setName(RING);
        ring.getSpec().getResources().add(new RingResourceSpec("", "configmaps", List.of(new GroupResource("", "secrets"))));
        RingRegistry registry = new RingRegistry();
        registry.update(inputs -> inputs.withDefaultStrategy(ConsistentHashStrategy.NAME)
                .withStrategies(Map.of(ConsistentHashStrategy.NAME, new StrategyBinding(new ConsistentHashStrategy(), Map.of())))
                .withInterpreters(Map.of(DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter()))
                .withRings(RingKind.CLUSTER_RING, List.of(ring))
                .withMembership(new Membership(Map.of(RingKey.clusterRing(RING), List.of(new ShardInfo("shard-0", ShardState.READY, 1),
                        new ShardInfo("shard-1", ShardState.READY, 1), new ShardInfo("shard-2", ShardState.READY, 1))))));
        return new SharderAdmission(registry, new SharderMetrics(meters));
    }
}
