package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.Distribution;
import dev.ringmaster.itests.support.Json;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.RingObjects;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.After;
import org.junit.Test;

/**
 * {@code simulate --ring} on a ring the real sharder ({@code bin/ringmaster run} with
 * {@code --default-strategy rendezvous}) has labelled: the preview takes the strategy in force from
 * the Ready condition the sharder wrote, and, judging the Leases and keying the objects with the
 * sharder's code, finds every object where that strategy puts it. Where each strategy puts the
 * objects comes from {@code python3 testing/placement-vectors/placements.py ring-preview-settled}.
 */
public class SimulateSettledRingRealIT {

    private static final String RING = "settled";
    private static final String NAMESPACE = "preview-settled";
    private static final int OBJECTS = 30;
    private static final Set<String> LIVE = Set.of("shard-a", "shard-b");
    private static final Duration SOON = Duration.ofSeconds(90);
    /** placements.py ring-preview-settled. */
    private static final Map<String, Integer> RENDEZVOUS = Map.of("shard-a", 13, "shard-b", 17);
    private static final Map<String, Integer> CONSISTENT_HASH = Map.of("shard-a", 11, "shard-b", 19);
    private static final int MOVED = 16;

    private Cli.Started sharder;

    @After
    public void stop() throws InterruptedException {
        Cli.kill(sharder);
    }

    @Test
    public void aRingTheSharderSettledIsWhereTheStrategyInForcePutsIt() {
        RealCluster cluster = RealCluster.get();
        cluster.configMapRing(RingKind.CLUSTER_RING, RING, NAMESPACE, false);
        for (String shard : LIVE) {
            cluster.liveShardLease(RingKind.CLUSTER_RING, NAMESPACE, shard, RING);
        }
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        cluster.admin().leases().inNamespace(NAMESPACE).resource(new LeaseBuilder().withNewMetadata().withName("shard-c")
                .addToLabels(RingKind.CLUSTER_RING.leaseLabel(), RING).endMetadata().withNewSpec()
                .withHolderIdentity(RingContract.LEASE_CONTROLLER_HOLDER).withLeaseDurationSeconds(3600)
                .withAcquireTime(now).withRenewTime(now).endSpec().build()).forceConflicts().serverSideApply();
        for (int i = 0; i < OBJECTS; i++) {
            cluster.admin().configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata()
                    .withName("cm-" + i).endMetadata().build()).create();
        }
        SharderHome replica = SharderHome.prepare("simulate-settled");
        List<String> run = new ArrayList<>(replica.runArgsCalledBack(cluster.sharderKubeconfig(replica)));
        run.addAll(List.of("--default-strategy", "rendezvous"));
        sharder = Cli.start(replica.home(), run);
        RingObjects objects = new RingObjects(cluster.admin(), RingKind.CLUSTER_RING, RING, NAMESPACE);
        objects.awaitSettledOn(LIVE, OBJECTS, SOON, sharder::err);
        objects.awaitReady(SOON, sharder::err);
        assertEquals("the sharder put the objects where placements.py's rendezvous does", new TreeMap<>(RENDEZVOUS),
                toInts(objects.perShard()));

        Cli.Result result = Cli.run(Distribution.home(), List.of("simulate", "--kubeconfig",
                cluster.server().adminKubeconfig().toString(), "--ring", "clusterring/" + RING,
                "--strategy", "consistent-hash", "--json"));
        result.assertSucceeded();
        Json json = Json.parse(result.out());
        assertEquals("rendezvous", json.string("currentStrategy"));
        assertEquals("in force, as the ring's Ready condition says", json.string("currentStrategySource"));
        assertEquals(3, json.integer("shards"));
        assertEquals(2, json.integer("availableShards"));
        assertEquals(OBJECTS, json.integer("objects"));
        assertEquals(Map.of("elsewhere", 0, "draining", 0, "unassigned", 0), json.counts("notWhereCurrentPuts"));
        assertEquals(MOVED, json.integer("moved"));
        Map<String, Json> perShard = json.members("perShard");
        assertEquals(Set.of("shard-a", "shard-b", "shard-c"), perShard.keySet());
        RENDEZVOUS.forEach((shard, count) -> {
            assertEquals(shard + " " + json, (int) count, perShard.get(shard).integer("labelled"));
            assertEquals(shard + " " + json, (int) count, perShard.get(shard).integer("current"));
            assertEquals(shard + " " + json, (int) CONSISTENT_HASH.get(shard), perShard.get(shard).integer("candidate"));
        });
        assertEquals("dead", perShard.get("shard-c").string("state"));
        // the sharder's own verdicts, in the Leases' state labels, are the preview's
        perShard.forEach((shard, counts) -> assertEquals(shard + " " + json, counts.string("state"),
                counts.string("sharderState")));
        assertTrue(json.toString(), result.out().contains("\"judgedOtherwiseBySharder\":[]"));
    }

    private static Map<String, Integer> toInts(Map<String, Long> counts) {
        Map<String, Integer> ints = new TreeMap<>();
        counts.forEach((shard, count) -> ints.put(shard, count.intValue()));
        return ints;
    }
}
