package dev.ringmaster.clustertests.support;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What most scenario classes start from: the cluster of this JVM, the example shards of
 * {@code examples/manifests/checksum-statefulset} on it, and the sharder's replicas; each scenario timed.
 */
@ExtendWith({TimedScenarios.class, PolicedScenarios.class})
public abstract class StatefulSetScenarios {

    protected static NodeCluster cluster;
    protected static Examples shards;
    protected static Sharder sharder;

    @BeforeAll
    static void exampleShards() {
        cluster = NodeCluster.get();
        shards = cluster.examples("checksum-statefulset");
        sharder = new Sharder(cluster);
    }
}
