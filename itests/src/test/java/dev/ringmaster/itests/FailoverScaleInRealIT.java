package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.RingObjects;
import dev.ringmaster.itests.support.ShardFleet;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * A graceful scale-in right after a leader failover, on the real API server: two sharder replicas
 * ({@code bin/ringmaster run}), three {@code bin/checksum-controller} shards. The leader is killed
 * (SIGKILL: its election Lease is not released, the standby takes over once it runs out), and the
 * moment the standby leads, a shard stops with SIGTERM and releases its Lease. The new leader takes the
 * released Lease for dead at once, well before it could have expired (a lease duration, 15 s, after
 * its last renewal), and moves that shard's objects to the two left, none left unassigned or in drain,
 * and no object reconciled by two shards at overlapping times. The time from the SIGTERM to settled is
 * printed; the goal for it (15 s at 2,400 objects) is measured by {@code RealScaleBench --failover}
 * (docs/performance.md): here it runs beside the cluster tier, where a new leader's first passes alone
 * took 8 s.
 */
public class FailoverScaleInRealIT {

    private static final String RING = "failover-scale-in";
    private static final String NAMESPACE = "failover-scale-in";
    private static final int OBJECTS = 300;
    private static final Set<String> THREE = Set.of("shard-0", "shard-1", "shard-2");
    private static final Set<String> TWO = Set.of("shard-0", "shard-1");
    private static final Duration SOON = Duration.ofSeconds(90);
    /** The election Lease runs out 15 s after the killed leader's last renewal; the standby retries every 2 s. */
    private static final Duration TAKEOVER = Duration.ofSeconds(30);
    /** A released Lease is dead at once; by expiry it could not be before a lease duration (15 s) ran out. */
    private static final Duration RELEASED_IS_DEAD = Duration.ofSeconds(10);
    /** The expiry path (expired after 15 s, dead after twice that) would take longer than this to settle. */
    private static final Duration SCALE_IN = Duration.ofSeconds(30);

    private RealCluster cluster;
    private RingObjects objects;
    private final Map<String, Cli.Started> replicas = new LinkedHashMap<>();
    private ShardFleet shards;

    @Before
    public void start() {
        cluster = RealCluster.get();
        objects = new RingObjects(cluster.admin(), RING, NAMESPACE);
        cluster.configMapRing(RING, NAMESPACE, true);
        for (String identity : List.of("scale-in-a", "scale-in-b")) {
            SharderHome home = SharderHome.prepare(identity).withIdentity(identity);
            replicas.put(identity, cluster.runSharder(home, cluster.sharderKubeconfig(home)));
            if (shards == null) {
                shards = new ShardFleet(cluster, home.home(), RING, NAMESPACE); // the scripts of the first copy
            }
        }
    }

    @After
    public void stop() throws InterruptedException {
        ShardFleet.close(shards);
        Cli.kill(replicas.values().toArray(Cli.Started[]::new));
    }

    @Test
    public void aShardStoppedRightAfterAFailoverHasItsObjectsMovedPromptlyWithoutOverlaps() throws Exception {
        THREE.forEach(shards::start);
        objects.awaitAvailable(THREE, SOON, shards::logs);
        objects.createConfigMaps(OBJECTS);
        objects.awaitSettledOn(THREE, OBJECTS, SOON, this::sharderLogs);
        // reconciled, not only assigned: the shards' queues are empty when the scale-in starts
        objects.awaitChecksumSecrets(OBJECTS, SOON, shards::logs);

        String leader = Waiting.value(SOON, () -> "a leader", () -> replicas.keySet().stream()
                .filter(identity -> identity.equals(cluster.electionHolder())).findFirst());
        replicas.get(leader).signal("KILL");
        Waiting.until(TAKEOVER, () -> "the standby leads; holder " + cluster.electionHolder() + "\n" + sharderLogs(),
                () -> !leader.equals(cluster.electionHolder()) && replicas.containsKey(cluster.electionHolder()));

        Instant signalled = Instant.now();
        shards.stopGracefully("shard-2");
        assertEquals("shard-2 released its Lease on the way out", "", objects.holderOf("shard-2"));
        Waiting.until(RELEASED_IS_DEAD.minus(Duration.between(signalled, Instant.now())), () -> "shard-2's released"
                + " Lease dead; leases " + objects.leaseStates() + "\n" + sharderLogs(),
                () -> "dead".equals(objects.stateOf("shard-2")));
        objects.awaitSettledOn(TWO, OBJECTS, SCALE_IN.minus(Duration.between(signalled, Instant.now())),
                this::sharderLogs);
        System.out.printf("FailoverScaleInRealIT: %d objects settled on the two shards left %.1f s after the SIGTERM%n",
                OBJECTS, Duration.between(signalled, Instant.now()).toMillis() / 1000.0);

        assertEquals("reconciles of one object by two shards at overlapping times; first lines:\n"
                + shards.reconciles().stream().limit(5).toList(), 0, shards.overlaps());
    }

    private String sharderLogs() {
        StringBuilder logs = new StringBuilder();
        replicas.forEach((identity, replica) -> logs.append(identity).append(":\n").append(replica.err()).append('\n'));
        return logs.toString();
    }
}
