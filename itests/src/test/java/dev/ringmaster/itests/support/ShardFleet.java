package dev.ringmaster.itests.support;

import static org.junit.Assert.assertEquals;

import dev.ringmaster.examples.checksum.ReconcileLine;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.sandbox.ReconcileLog;
import dev.ringmaster.testing.apiserver.ApiServerLink;
import dev.ringmaster.testing.rings.RingState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Shards of an example checksum controller, each a process of the distribution
 * ({@code bin/checksum-controller} or {@code bin/josdk-checksum-operator}, same flags and reconcile
 * lines), as a sharded controller's replicas run: one ring, one namespace for their Leases and
 * ConfigMaps, one ServiceAccount with the permissions of a shard. Every shard prints a line per
 * reconcile; {@link #overlaps()} compares them across all shards that ever ran.
 */
public final class ShardFleet implements AutoCloseable {

    /** The shard processes' script in {@code bin/}. */
    public static final String CHECKSUM_CONTROLLER = "checksum-controller";
    public static final String JOSDK_CHECKSUM_OPERATOR = "josdk-checksum-operator";

    private final Path home;
    private final String script;
    private final Path kubeconfig;
    private final RingKind kind;
    private final String ring;
    private final String namespace;
    private final Map<String, Cli.Started> running = new LinkedHashMap<>();
    private final List<Cli.Started> everStarted = new ArrayList<>();

    /** A fleet of shards of {@code ring} in {@code namespace}, running as the ServiceAccount {@code checksum-controller} there. */
    public ShardFleet(RealCluster cluster, Path home, String ring, String namespace) {
        this(cluster, home, CHECKSUM_CONTROLLER, RingKind.CLUSTER_RING, ring, namespace);
    }

    /** The same, of {@code bin/<script>} processes. */
    public ShardFleet(RealCluster cluster, Path home, String script, String ring, String namespace) {
        this(cluster, home, script, RingKind.CLUSTER_RING, ring, namespace);
    }

    /** The same, of a ring of the kind. */
    public ShardFleet(RealCluster cluster, Path home, RingKind kind, String ring, String namespace) {
        this(cluster, home, CHECKSUM_CONTROLLER, kind, ring, namespace);
    }

    private ShardFleet(RealCluster cluster, Path home, String script, RingKind kind, String ring, String namespace) {
        this.home = home;
        this.script = script;
        this.kind = kind;
        this.ring = ring;
        this.namespace = namespace;
        this.kubeconfig = cluster.server().serviceAccountKubeconfig(namespace, "checksum-controller",
                home.resolve("shards-" + namespace + ".kubeconfig"));
        cluster.grantShard(namespace, "checksum-controller");
    }

    /** Shards started from now on reach the API server through {@code link}. */
    public void reachThrough(ApiServerLink link) {
        link.reroute(kubeconfig);
    }

    public void start(String shard) {
        start(shard, List.of());
    }

    /** {@link #start(String)} with further flags, e.g. {@code --range-mode}. */
    public void start(String shard, List<String> moreArgs) {
        List<String> args = new ArrayList<>(List.of("--kubeconfig", kubeconfig.toString(),
                "--ring-kind", kind.lowerCaseKind(), "--ring", ring, "--shard-name", shard, "--namespace", namespace,
                "--watch-namespace", namespace));
        args.addAll(moreArgs);
        Cli.Started started = Cli.startScript(home, script, args);
        running.put(shard, started);
        everStarted.add(started);
    }

    /** SIGTERM, as Kubernetes stops a pod: the shard finishes its reconcile and releases its Lease. */
    public void stopGracefully(String shard) throws InterruptedException {
        Cli.Started stopped = running.remove(shard);
        stopped.process().destroy();
        if (!stopped.process().waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError(shard + " did not stop within 30 s of SIGTERM\n" + stopped.err());
        }
    }

    public Cli.Started process(String shard) {
        return running.get(shard);
    }

    /**
     * Freezes the shard's process (SIGSTOP) until the sharder, which acquires a shard Lease that expired and
     * stayed uncertain, declares the shard dead; checks that the sharder holds its Lease, runs
     * {@code whileFrozen} and thaws the process (SIGCONT), whatever happened.
     */
    public void frozenUntilDead(String shard, RingState ring, Duration death, Supplier<String> sharderLog,
            Runnable whileFrozen) {
        Cli.Started frozen = process(shard);
        frozen.signal("STOP");
        try {
            Waiting.until(death, () -> ring.kind().kind() + "'s " + shard + " declared dead\n" + sharderLog.get(),
                    () -> "dead".equals(ring.stateOf(shard)));
            assertEquals("the sharder acquired the frozen shard's Lease", RingContract.LEASE_CONTROLLER_HOLDER,
                    ring.holderOf(shard));
            whileFrozen.run();
        } finally {
            frozen.signal("CONT");
        }
    }

    /** Pairs of reconciles of one object by two shards at overlapping times, over every shard that ran. */
    public long overlaps() {
        return ReconcileLog.countOverlaps(reconciles());
    }

    /** The shards running now (started and not stopped), by name. */
    public java.util.Set<String> running() {
        return java.util.Set.copyOf(running.keySet());
    }

    public List<ReconcileLine> reconciles() {
        return everStarted.stream().flatMap(shard -> shard.out().lines())
                .map(ReconcileLine::parse).flatMap(Optional::stream).toList();
    }

    /** The standard error of every shard, for failure messages. */
    public String logs() {
        StringBuilder logs = new StringBuilder();
        for (Cli.Started shard : everStarted) {
            logs.append(shard.command()).append('\n').append(shard.err()).append('\n');
        }
        return logs.toString();
    }

    @Override
    public void close() throws InterruptedException {
        Cli.kill(everStarted.toArray(Cli.Started[]::new));
    }

    /** Closes each of {@code fleets} that was created at all: a test's clean-up. */
    public static void close(ShardFleet... fleets) throws InterruptedException {
        for (ShardFleet fleet : fleets) {
            if (fleet != null) {
                fleet.close();
            }
        }
    }
}
