package dev.ringmaster.itests;

import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.testing.apiserver.ApiServerLink;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * SIGTERM while the API server is unreachable: Kubernetes kills a pod 30 s after it, so a sharder
 * replica must be gone within 10 s even when nothing it would say on the way out can reach the API
 * server, whether it led from the start or took leadership over. Each replica reaches the real API
 * server through an {@link ApiServerLink} of its own, which the test cuts.
 */
public class ShutdownRealIT {

    private static final String RING = "shutdown";
    private static final String NAMESPACE = "shutdown";
    private static final Duration SOON = Duration.ofSeconds(60);
    private static final long STOP_WITHIN_SECONDS = 10;
    private static final int OBJECTS = 600;

    private RealCluster cluster;
    private final List<ApiServerLink> links = new ArrayList<>();
    private final List<Cli.Started> replicas = new ArrayList<>();

    @Before
    public void ring() {
        cluster = RealCluster.get();
        cluster.configMapRing(RING, NAMESPACE, false);
        for (String shard : Set.of("shard-a", "shard-b")) {
            cluster.liveShardLease(NAMESPACE, shard, RING);
        }
        IntStream.range(0, OBJECTS).parallel().forEach(i -> cluster.admin().configMaps().inNamespace(NAMESPACE)
                .resource(new ConfigMapBuilder().withNewMetadata().withName("cm-" + i).endMetadata().build())
                .createOr(existing -> existing.update()));
    }

    @After
    public void stop() throws InterruptedException {
        for (Cli.Started replica : replicas) {
            replica.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        links.forEach(ApiServerLink::close);
    }

    @Test
    public void aReplicaThatTookLeadershipOverStopsWithinTenSecondsOfSigtermWithoutTheApiServer() throws Exception {
        Cli.Started first = start("shutdown-a");
        Waiting.until(SOON, () -> "shutdown-a leads\n" + first.err(),
                () -> "shutdown-a".equals(cluster.electionHolder()));
        ApiServerLink secondLink = link();
        Cli.Started second = start("shutdown-b", secondLink);
        first.process().destroy();
        Waiting.until(SOON, () -> "shutdown-b takes over\n" + second.err(),
                () -> "shutdown-b".equals(cluster.electionHolder()));

        // a shard joins: the new leader drains what now belongs to it, and the API server goes silent mid-pass
        cluster.liveShardLease(NAMESPACE, "shard-c", RING);
        Waiting.within(SOON, "drains under way")
                .until(() -> !cluster.admin().configMaps().inNamespace(NAMESPACE)
                .withLabel(dev.ringmaster.ring.RingContract.drainLabel(RING)).list().getItems().isEmpty());
        secondLink.blackHole();
        assertStopsWithinTenSecondsOfSigterm(second);
    }

    @Test
    public void theFirstLeaderStopsWithinTenSecondsOfSigtermWithoutTheApiServer() throws Exception {
        ApiServerLink link = link();
        Cli.Started leader = start("shutdown-c", link);
        Waiting.until(SOON, () -> "shutdown-c leads\n" + leader.err(),
                () -> "shutdown-c".equals(cluster.electionHolder()));

        link.cut();
        assertStopsWithinTenSecondsOfSigterm(leader);
    }

    private static void assertStopsWithinTenSecondsOfSigterm(Cli.Started replica) throws InterruptedException {
        long signalled = System.nanoTime();
        replica.process().destroy();
        boolean stopped = replica.process().waitFor(30, TimeUnit.SECONDS);
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - signalled);
        assertTrue("stopped " + (stopped ? "after " + seconds + " s" : "not within 30 s") + " of SIGTERM\n" + replica.err(),
                stopped && seconds < STOP_WITHIN_SECONDS);
    }

    private ApiServerLink link() {
        ApiServerLink link = ApiServerLink.to(cluster.admin().getConfiguration().getMasterUrl());
        links.add(link);
        return link;
    }

    private Cli.Started start(String identity) throws IOException {
        return start(identity, link());
    }

    /** A replica whose kubeconfig reaches the API server through {@code link}. */
    private Cli.Started start(String identity, ApiServerLink link) throws IOException {
        SharderHome home = SharderHome.prepare(identity).withIdentity(identity);
        Path kubeconfig = cluster.sharderKubeconfig(home);
        link.reroute(kubeconfig);
        Cli.Started replica = cluster.runSharder(home, kubeconfig);
        replicas.add(replica);
        return replica;
    }

}
