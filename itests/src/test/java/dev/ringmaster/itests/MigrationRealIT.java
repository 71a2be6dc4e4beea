package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.Pinned;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.RingObjects;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.After;
import org.junit.Test;

/**
 * docs/migrating.md on the real API server: Ringmaster's sharder takes over a ControllerRing (the
 * reference sharder v0.9 to v0.13) and a ClusterRing (its earlier releases) whose objects carry the
 * reference's assignments, and moves nothing. The assignments are not Ringmaster's: they were computed
 * by {@code testing/placement-vectors/placements.py migration}, written from the reference's token
 * format (XXH64 of the shard name followed by the token number, 100 tokens per shard) and checked
 * there against the reference's own test vectors.
 */
public class MigrationRealIT {

    private static final String RING = "migrated";
    private static final int OBJECTS = 60;
    private static final Duration SOON = Duration.ofSeconds(90);
    private static final String[] SHARDS = {"checksum-6d4b9c7f8-2xkqp", "checksum-6d4b9c7f8-hv4mn",
            "checksum-6d4b9c7f8-wz8rt"};
    /** The reference's assignments of cm-0 … cm-59 in each ring's namespace, and of a later ConfigMap "fresh". */
    private static final Map<RingKind, Map<String, String>> REFERENCE = Map.of(
            RingKind.CONTROLLER_RING, Pinned.placements(
                    "checksum-6d4b9c7f8-2xkqp: cm-1 cm-2 cm-3 cm-4 cm-6 cm-7 cm-10 cm-12 cm-16 cm-17 cm-20 cm-21 cm-23"
                            + " cm-26 cm-30 cm-31 cm-34 cm-39 cm-41 cm-42 cm-44 cm-47 cm-48 cm-51 cm-57 fresh",
                    "checksum-6d4b9c7f8-hv4mn: cm-5 cm-9 cm-11 cm-13 cm-18 cm-19 cm-24 cm-27 cm-28 cm-29 cm-33 cm-35"
                            + " cm-37 cm-40 cm-43 cm-46 cm-49 cm-54 cm-55 cm-56 cm-58",
                    "checksum-6d4b9c7f8-wz8rt: cm-0 cm-8 cm-14 cm-15 cm-22 cm-25 cm-32 cm-36 cm-38 cm-45 cm-50 cm-52"
                            + " cm-53 cm-59"),
            RingKind.CLUSTER_RING, Pinned.placements(
                    "checksum-6d4b9c7f8-2xkqp: cm-1 cm-2 cm-5 cm-8 cm-15 cm-16 cm-19 cm-23 cm-24 cm-25 cm-28 cm-30"
                            + " cm-37 cm-46 cm-48 cm-49 cm-50 cm-52 fresh",
                    "checksum-6d4b9c7f8-hv4mn: cm-0 cm-3 cm-9 cm-11 cm-13 cm-14 cm-18 cm-20 cm-21 cm-26 cm-27 cm-41"
                            + " cm-42 cm-43 cm-44 cm-47 cm-51 cm-53 cm-54 cm-59",
                    "checksum-6d4b9c7f8-wz8rt: cm-4 cm-6 cm-7 cm-10 cm-12 cm-17 cm-22 cm-29 cm-31 cm-32 cm-33 cm-34"
                            + " cm-35 cm-36 cm-38 cm-39 cm-40 cm-45 cm-55 cm-56 cm-57 cm-58"));

    private Cli.Started sharder;

    @After
    public void stop() throws InterruptedException {
        Cli.kill(sharder);
    }

    @Test
    public void takingOverRingsOfBothKindsMovesNothing() {
        RealCluster cluster = RealCluster.get();
        KubernetesClient admin = cluster.admin();
        Map<RingKind, RingObjects> rings = Map.of(
                RingKind.CONTROLLER_RING, leftByTheReference(cluster, RingKind.CONTROLLER_RING),
                RingKind.CLUSTER_RING, leftByTheReference(cluster, RingKind.CLUSTER_RING));

        SharderHome replica = SharderHome.prepare("migration");
        sharder = cluster.runSharder(replica, cluster.sharderKubeconfig(replica));

        rings.forEach((kind, objects) -> {
            objects.awaitReady(SOON, sharder::err);
            // the first rebalance pass of the term looked at every object and wrote nothing
            Waiting.until(SOON, () -> "a pass over " + kind.kind() + "/" + RING + "\n" + sharder.err(),
                    () -> sharder.err().contains("rebalanced " + kind.kind() + "/" + RING + ": PassSummary[examined="
                            + OBJECTS + ", assigned=0, drained=0, reassigned=0, unlabelled=0, deferred=0, conflicts=0, failed=0"));
        });
        rings.forEach((kind, objects) -> {
            Map<String, String> created = new TreeMap<>(REFERENCE.get(kind));
            created.remove("fresh");
            assertEquals(kind + ": every object where the reference put it", created, objects.placement());
            // a new object: the webhook, now Ringmaster's, labels it where the reference would have
            cluster.awaitWebhookLabels(namespace(kind), kind.shardLabel(RING), SOON, sharder::err);
            admin.configMaps().inNamespace(namespace(kind)).resource(new ConfigMapBuilder().withNewMetadata()
                    .withName("fresh").endMetadata().build()).create();
        });
        rings.forEach((kind, objects) -> assertEquals(kind + ": the new object too", REFERENCE.get(kind),
                objects.placement()));
    }

    /** A ring of the kind as the reference sharder leaves it: live shard Leases, every object labelled. */
    private static RingObjects leftByTheReference(RealCluster cluster, RingKind kind) {
        String namespace = namespace(kind);
        cluster.configMapRing(kind, RING, namespace, false);
        for (String shard : SHARDS) {
            cluster.liveShardLease(kind, namespace, shard, RING);
        }
        Map<String, String> reference = REFERENCE.get(kind);
        for (int i = 0; i < OBJECTS; i++) {
            String name = "cm-" + i;
            cluster.admin().configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata()
                    .withName(name).addToLabels(kind.shardLabel(RING), reference.get(name)).endMetadata().build())
                    .create();
        }
        return new RingObjects(cluster.admin(), kind, RING, namespace);
    }

    private static String namespace(RingKind kind) {
        return "migrate-" + kind.lowerCaseKind();
    }
}
