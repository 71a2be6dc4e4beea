package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.RingObjects;
import dev.ringmaster.itests.support.ShardFleet;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * A ClusterRing and a ControllerRing of the same name, side by side in one real cluster, served by one
 * {@code bin/ringmaster run}, each with its own fleet of {@code bin/checksum-controller} shards (of the
 * same shard names, in different namespaces). Each ring keeps its own contract: its CRD and status, its
 * webhook configuration and path, its labels (hashed suffix for the ClusterRing, the ring's name for the
 * ControllerRing), its Lease label. The ControllerRing's fleet grows (drain handover), shrinks
 * gracefully and loses a frozen shard, while the ClusterRing's objects never move; no object is
 * reconciled by two shards at overlapping times.
 */
public class RingKindsRealIT {

    private static final String RING = "twins";
    private static final String CLUSTER_NAMESPACE = "twins-cluster";
    private static final String CONTROLLER_NAMESPACE = "twins-controller";
    private static final int OBJECTS = 30;
    private static final Duration SOON = Duration.ofSeconds(90);
    /** A shard's lease is 15 s: expired after 15 s, uncertain after 30 s, then acquired and dead. */
    private static final Duration DEATH = Duration.ofSeconds(120);

    private RealCluster cluster;
    private KubernetesClient admin;
    private Cli.Started sharder;
    private ShardFleet clusterShards;
    private ShardFleet controllerShards;
    private RingObjects clusterObjects;
    private RingObjects controllerObjects;

    @Before
    public void start() {
        cluster = RealCluster.get();
        admin = cluster.admin();
        cluster.configMapRing(RingKind.CLUSTER_RING, RING, CLUSTER_NAMESPACE, true);
        cluster.configMapRing(RingKind.CONTROLLER_RING, RING, CONTROLLER_NAMESPACE, true);
        clusterObjects = new RingObjects(admin, RingKind.CLUSTER_RING, RING, CLUSTER_NAMESPACE);
        controllerObjects = new RingObjects(admin, RingKind.CONTROLLER_RING, RING, CONTROLLER_NAMESPACE);
        SharderHome replica = SharderHome.prepare("twins");
        sharder = cluster.runSharder(replica, cluster.sharderKubeconfig(replica));
        clusterShards = new ShardFleet(cluster, replica.home(), RingKind.CLUSTER_RING, RING, CLUSTER_NAMESPACE);
        controllerShards = new ShardFleet(cluster, replica.home(), RingKind.CONTROLLER_RING, RING, CONTROLLER_NAMESPACE);
    }

    @After
    public void stop() throws InterruptedException {
        ShardFleet.close(clusterShards, controllerShards);
        Cli.kill(sharder);
    }

    @Test
    public void bothKindsShardSideBySideEachByItsOwnContract() throws Exception {
        for (String shard : Set.of("shard-0", "shard-1")) {
            clusterShards.start(shard);
            controllerShards.start(shard);
        }
        clusterObjects.awaitAvailable(Set.of("shard-0", "shard-1"), SOON, clusterShards::logs);
        controllerObjects.awaitAvailable(Set.of("shard-0", "shard-1"), SOON, controllerShards::logs);
        clusterObjects.awaitReady(SOON, sharder::err);
        controllerObjects.awaitReady(SOON, sharder::err);
        assertWebhookOf(RingKind.CLUSTER_RING, "sharding-" + RingKind.CLUSTER_RING.ringSuffix(RING),
                RingContract.shardLabel(RING));
        assertWebhookOf(RingKind.CONTROLLER_RING, "controllerring-twins", "shard.alpha.sharding.timebertt.dev/twins");

        cluster.awaitWebhookLabels(CLUSTER_NAMESPACE, RingContract.shardLabel(RING), SOON, sharder::err);
        cluster.awaitWebhookLabels(CONTROLLER_NAMESPACE, "shard.alpha.sharding.timebertt.dev/twins", SOON, sharder::err);
        for (int i = 0; i < OBJECTS; i++) {
            assertLabelledAtCreate(CLUSTER_NAMESPACE, i, RingContract.shardLabel(RING),
                    "shard.alpha.sharding.timebertt.dev/twins");
            assertLabelledAtCreate(CONTROLLER_NAMESPACE, i, "shard.alpha.sharding.timebertt.dev/twins",
                    RingContract.shardLabel(RING));
        }
        clusterObjects.awaitSettledOn(Set.of("shard-0", "shard-1"), OBJECTS, SOON, sharder::err);
        controllerObjects.awaitSettledOn(Set.of("shard-0", "shard-1"), OBJECTS, SOON, sharder::err);
        Map<String, String> clusterPlacement = clusterObjects.placement();

        controllerShards.start("shard-2");
        controllerObjects.awaitSettledOn(Set.of("shard-0", "shard-1", "shard-2"), OBJECTS, SOON, sharder::err);
        controllerShards.stopGracefully("shard-0");
        controllerObjects.awaitSettledOn(Set.of("shard-1", "shard-2"), OBJECTS, SOON, sharder::err);
        controllerShards.frozenUntilDead("shard-1", controllerObjects, DEATH, sharder::err,
                () -> controllerObjects.awaitSettledOn(Set.of("shard-2"), OBJECTS, SOON, sharder::err));

        assertEquals("the ClusterRing's objects stay where they were", clusterPlacement, clusterObjects.placement());
        assertEquals("the ClusterRing's shards are untouched", Set.of("shard-0", "shard-1"), clusterObjects.readyShards());
        for (ShardFleet fleet : new ShardFleet[] {clusterShards, controllerShards}) {
            assertTrue("every object reconciled", fleet.reconciles().size() >= OBJECTS);
            assertEquals("reconciles of one object by two shards at overlapping times", 0, fleet.overlaps());
        }
    }

    /** The webhook configuration of the ring of this kind: its name, path and object selector. */
    private void assertWebhookOf(RingKind kind, String name, String shardLabel) {
        MutatingWebhookConfiguration configuration = admin.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName(name).get();
        assertNotNull(kind + " " + RING + "'s webhook configuration " + name, configuration);
        MutatingWebhook webhook = configuration.getWebhooks().get(0);
        String url = webhook.getClientConfig().getUrl();
        String path = url != null ? url : webhook.getClientConfig().getService().getPath();
        assertTrue(path + " ends with the kind's webhook path", path.endsWith("/webhooks/sharder/"
                + kind.lowerCaseKind() + "/" + RING));
        assertEquals(shardLabel, webhook.getObjectSelector().getMatchExpressions().get(0).getKey());
        assertEquals(kind.kind(), configuration.getMetadata().getOwnerReferences().get(0).getKind());
    }

    /** The API server's answer to the create already carries the ring's label, and not the other kind's. */
    private void assertLabelledAtCreate(String namespace, int index, String label, String otherKindsLabel) {
        ConfigMap created = admin.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata()
                .withName("cm-" + index).endMetadata().addToData("key", "value-" + index).build()).create();
        Map<String, String> labels = RingState.labels(created);
        assertTrue("labelled " + label + " by the webhook at create: " + labels, labels.containsKey(label));
        assertFalse(labels.containsKey(otherKindsLabel));
    }
}
