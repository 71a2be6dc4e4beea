package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.FailureLogs;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.RingObjects;
import dev.ringmaster.itests.support.ShardFleet;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.testing.apiserver.ApiServerLink;
import dev.ringmaster.testing.apiserver.AuditLog;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;

/**
 * The API server goes away for 20 s in the middle of a rebalance (4 → 5 shards): the sharder and
 * every shard ({@code bin/ringmaster run}, {@code bin/checksum-controller} processes) reach it
 * through one {@link ApiServerLink}, which the test takes down and brings back up. Everyone loses
 * their leases meanwhile (renew deadline 10 s). An outage is not a shard failure: once the server is
 * back no shard is taken for dead (the sharder acquires no shard's Lease) or moved away from, the
 * rebalance finishes, nothing is left unassigned, and no object is reconciled by two shards at once.
 */
public class ApiServerOutageRealIT {

    private static final String RING = "outage";
    private static final String NAMESPACE = "outage";
    private static final String SHARDER_USER = "system:serviceaccount:" + RealCluster.SYSTEM_NAMESPACE + ":"
            + RealCluster.SHARDER_ACCOUNT;
    private static final int OBJECTS = 300;
    private static final Duration OUTAGE = Duration.ofSeconds(20);
    private static final Duration SOON = Duration.ofSeconds(90);
    /** The goal for settling after the server is back. */
    private static final Duration SETTLED_AFTER_OUTAGE = Duration.ofSeconds(60);

    private RealCluster cluster;
    private KubernetesClient admin;
    private ApiServerLink link;
    private Cli.Started sharder;
    private ShardFleet shards;
    private RingObjects objects;

    @Rule
    public final FailureLogs failureLogs = new FailureLogs(
            () -> "SHARDER\n" + (sharder == null ? "" : sharder.err()) + "\nSHARDS\n" + (shards == null ? "" : shards.logs()));

    @Before
    public void start() {
        cluster = RealCluster.get();
        admin = cluster.admin();
        objects = new RingObjects(admin, RING, NAMESPACE);
        cluster.configMapRing(RING, NAMESPACE, false);
        link = ApiServerLink.to(admin.getConfiguration().getMasterUrl());
        SharderHome replica = SharderHome.prepare("outage");
        Path kubeconfig = cluster.sharderKubeconfig(replica);
        link.reroute(kubeconfig);
        sharder = cluster.runSharder(replica, kubeconfig);
        shards = new ShardFleet(cluster, replica.home(), RING, NAMESPACE);
        shards.reachThrough(link);
    }

    @After
    public void stop() throws InterruptedException {
        ShardFleet.close(shards);
        Cli.kill(sharder);
        if (link != null) {
            link.close();
        }
    }

    @Test
    public void anOutageMidRebalanceTakesNoShardForDeadAndTheRebalanceFinishes() throws Exception {
        List<String> four = List.of("shard-0", "shard-1", "shard-2", "shard-3");
        four.forEach(shards::start);
        objects.awaitAvailable(Set.copyOf(four), SOON, shards::logs);
        IntStream.range(0, OBJECTS).parallel().forEach(i -> admin.configMaps().inNamespace(NAMESPACE)
                .resource(new ConfigMapBuilder().withNewMetadata().withName("cm-" + i).endMetadata().build()).create());
        Waiting.until(SOON, () -> "settled on four shards; now " + objects.perShard(),
                () -> objects.isSettledOn(Set.copyOf(four), OBJECTS));

        shards.start("shard-4");
        Waiting.until(SOON, () -> "the rebalance drains; now " + objects.perShard() + "\n" + sharder.err(),
                objects::anyDraining);
        link.down();
        Thread.sleep(OUTAGE.toMillis());
        link.up();
        long returned = System.nanoTime();

        Set<String> five = new TreeSet<>(four);
        five.add("shard-4");
        Waiting.until(SETTLED_AFTER_OUTAGE,
                () -> "settled on five shards within 60 s of the server's return; now "
                + objects.perShard() + "\n" + sharder.err(),
                () -> objects.isSettledOn(five, OBJECTS));
        System.out.printf("settled on five shards %.1f s after the server's return%n", (System.nanoTime() - returned) / 1e9);
        for (String shard : five) {
            assertEquals("the sharder took " + shard + " for dead", shard, objects.holderOf(shard));
        }
        // acquiring a shard's Lease is an update by the sharder (its state labels are patches)
        assertEquals("shard Leases the sharder acquired", List.of(), cluster.server().audit().events().stream()
                .filter(event -> event.user().equals(SHARDER_USER) && event.resource().equals("leases")
                        && event.namespace().equals(NAMESPACE) && event.verb().equals("update"))
                .map(AuditLog.Event::name).toList());
        assertEquals("reconciles of one object by two shards at overlapping times", 0, shards.overlaps());
    }
}
