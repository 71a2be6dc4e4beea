package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.RingObjects;
import dev.ringmaster.itests.support.ShardFleet;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * The drain handover between real shard processes on the real API server: {@code bin/ringmaster run}
 * as the manifests' ServiceAccount with its webhook called by the API server, and
 * {@code bin/checksum-controller} shards. A shard joins (scale-out by drain), one leaves gracefully
 * (its Lease released, its objects moved at once), one freezes (it stops renewing: expired, uncertain,
 * then the sharder takes its Lease, declares it dead and moves its objects; once it runs again it must
 * not reconcile what it lost). Throughout, no object is reconciled by two shards at overlapping times.
 */
public class DrainHandoverRealIT {

    private static final int OBJECTS = 60;
    private static final Duration SOON = Duration.ofSeconds(90);
    /** A shard's lease is 15 s: expired after 15 s, uncertain after 30 s, then acquired and dead. */
    private static final Duration DEATH = Duration.ofSeconds(120);

    private final String script;
    /** The ring, its namespace and the sharder's home: a subclass's must differ (test classes share the server). */
    private final String ring;
    private RealCluster cluster;
    private Cli.Started sharder;
    private ShardFleet shards;
    private RingObjects objects;

    public DrainHandoverRealIT() {
        this(ShardFleet.CHECKSUM_CONTROLLER, "handover");
    }

    /** The same scenario with shards of {@code bin/<script>}. */
    protected DrainHandoverRealIT(String script, String ring) {
        this.script = script;
        this.ring = ring;
    }

    @Before
    public void start() {
        cluster = RealCluster.get();
        objects = new RingObjects(cluster.admin(), ring, ring);
        cluster.configMapRing(ring, ring, true);
        SharderHome replica = SharderHome.prepare(ring);
        sharder = cluster.runSharder(replica, cluster.sharderKubeconfig(replica));
        shards = new ShardFleet(cluster, replica.home(), script, ring, ring);
    }

    @After
    public void stop() throws InterruptedException {
        ShardFleet.close(shards);
        Cli.kill(sharder);
    }

    @Test
    public void objectsMoveBetweenLiveShardsOnlyThroughTheDrainAndNeverHaveTwoShardsAtOnce() throws Exception {
        shards.start("shard-0");
        shards.start("shard-1");
        objects.awaitAvailable(Set.of("shard-0", "shard-1"), SOON, shards::logs);
        objects.createConfigMaps(OBJECTS);
        settledOn(Set.of("shard-0", "shard-1"));
        objects.awaitChecksumSecrets(OBJECTS, SOON, shards::logs);

        shards.start("shard-2");
        settledOn(Set.of("shard-0", "shard-1", "shard-2"));

        shards.stopGracefully("shard-0");
        settledOn(Set.of("shard-1", "shard-2"));
        assertEquals("its Lease released on the way out", "", objects.holderOf("shard-0"));

        shards.frozenUntilDead("shard-1", objects, DEATH, sharder::err, () -> settledOn(Set.of("shard-2")));
        // the thawed shard finds its Lease taken: whatever it had queued must not run against shard-2's objects
        Waiting.throughout(Duration.ofSeconds(5), "every object stays on shard-2")
                .until(() -> objects.perShard().equals(Map.of("shard-2", (long) OBJECTS)));

        assertTrue("every object reconciled, and again after each move: " + shards.reconciles().size(),
                shards.reconciles().size() > OBJECTS);
        assertEquals("reconciles of one object by two shards at overlapping times; first lines:\n"
                + shards.reconciles().stream().limit(5).toList(), 0, shards.overlaps());
    }

    /** Every object on one of {@code available}, each of them with some, none in drain, for 2 s. */
    private void settledOn(Set<String> available) {
        objects.awaitSettledOn(available, OBJECTS, SOON, sharder::err);
    }
}
