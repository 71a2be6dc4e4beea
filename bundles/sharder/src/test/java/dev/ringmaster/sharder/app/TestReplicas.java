package dev.ringmaster.sharder.app;

import dev.ringmaster.ring.consistent.ConsistentHashStrategy;
import dev.ringmaster.sharder.lease.DefaultLeaseDetector;
import dev.ringmaster.sharder.rebalance.RebalanceLimits;
import dev.ringmaster.sharder.ring.StrategyBinding;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/** Sharder replicas for the real-server tests of this package. */
final class TestReplicas {

    private TestReplicas() {
    }

    /**
     * One replica leading on its own election Lease {@code namespace/sharder}, with the default
     * strategy, detector and interpreter.
     */
    static SharderReplica withDefaults(KubernetesClient client, String namespace, String identity) {
        SharderReplica replica = new SharderReplica(client, new SharderReplica.Options("consistent-hash",
                DefaultLeaseDetector.NAME, DefaultResourceInterpreter.NAME, RebalanceLimits.DEFAULT, Optional.empty(),
                new SharderReplica.Options.LeaseName(namespace, "sharder"), identity, Clock.systemUTC()));
        replica.use(PlugIns.NONE.withStrategy("consistent-hash", new StrategyBinding(new ConsistentHashStrategy(), Map.of()))
                .withDetector(DefaultLeaseDetector.NAME, new DefaultLeaseDetector())
                .withInterpreter(DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter()));
        return replica;
    }
}
