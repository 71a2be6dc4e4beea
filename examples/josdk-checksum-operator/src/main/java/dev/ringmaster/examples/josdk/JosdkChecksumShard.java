package dev.ringmaster.examples.josdk;

import dev.ringmaster.examples.checksum.ChecksumReconciler;
import dev.ringmaster.examples.checksum.ChecksumShard;
import dev.ringmaster.examples.checksum.Cost;
import dev.ringmaster.examples.checksum.RunningShard;
import dev.ringmaster.shard.client.Sharding;
import dev.ringmaster.shard.josdk.ShardedOperator;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashSet;
import java.util.Objects;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running shard of the JOSDK checksum operator: a {@link ShardedOperator} with one controller,
 * {@link ChecksumOperatorReconciler}, run with the checksum controller's options
 * ({@link ChecksumShard.Options}). Several may run in one JVM (the sandbox, tests).
 */
public final class JosdkChecksumShard implements RunningShard {

    private static final Logger LOG = LoggerFactory.getLogger(JosdkChecksumShard.class);

    private final ShardedOperator operator;
    private final ScheduledThreadPoolExecutor leaseExecutor;
    private boolean stopped;

    private JosdkChecksumShard(ShardedOperator operator, ScheduledThreadPoolExecutor leaseExecutor) {
        this.operator = operator;
        this.leaseExecutor = leaseExecutor;
    }

    /**
     * Starts a shard: the Operator (its informers sync) and the Lease. The shard reconciles once it
     * holds its Lease and the sharder assigned objects to it.
     *
     * @param client       the client for everything the shard does; not closed by the shard
     * @param given        ring, shard (or identity pool), namespaces, timings, departure; {@code resync} is
     *                     JOSDK's maximal reconciliation interval; {@code costAs} how a reconcile spends its
     *                     ConfigMap's cost ({@link Cost})
     * @param reconcileLog receives one reconcile line per reconcile; thread-safe (JOSDK reconciles in parallel)
     */
    public static JosdkChecksumShard start(KubernetesClient client, ChecksumShard.Options given,
                                           Consumer<String> reconcileLog) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(reconcileLog, "reconcileLog");
        // a shard of an identity pool without a name yet claims one first
        ChecksumShard.Options options = given.named(client);
        // our own lease threads (two: the deadline check runs while a renewal hangs), so kill() can stop them
        ScheduledThreadPoolExecutor leaseExecutor = new ScheduledThreadPoolExecutor(2, task -> {
            Thread thread = new Thread(task, "josdk-checksum-lease-" + options.shard());
            thread.setDaemon(true);
            return thread;
        });
        leaseExecutor.setRemoveOnCancelPolicy(true);
        ShardedOperator operator;
        try {
            operator = ShardedOperator.builder(options.sharding(client, leaseExecutor))
                    .configuration(o -> o.withKubernetesClient(client).withCloseClientOnStop(false))
                    .build();
            ChecksumReconciler checksums = new ChecksumReconciler(client, options.clock(), options.shard(), reconcileLog,
                    new Cost(options.costAs()));
            // range mode labels nothing: the Secrets are watched by the label the reconciler writes on them,
            // as bin/checksum-controller --range-mode does (a change maps to its ConfigMap; one outside is ignored)
            String secretSelector = options.rangeMode()
                    ? ChecksumReconciler.MANAGED_BY_LABEL + "=" + ChecksumReconciler.MANAGED_BY
                    : operator.selector();
            operator.register(new ChecksumOperatorReconciler(checksums, secretSelector), controller -> {
                if (!options.watchNamespaces().isEmpty()) {
                    controller.settingNamespaces(new HashSet<>(options.watchNamespaces()));
                }
                if (!options.resync().isZero()) {
                    controller.withReconciliationMaxInterval(options.resync());
                }
            });
            operator.start();
        } catch (RuntimeException e) {
            leaseExecutor.shutdownNow();
            throw e;
        }
        LOG.info("JOSDK shard {} of {} {} started", options.shard(), options.ringKind().kind(), options.ring());
        return new JosdkChecksumShard(operator, leaseExecutor);
    }

    /** This shard's name. */
    public String shard() {
        return operator.sharding().labels().shard();
    }

    @Override
    public Sharding sharding() {
        return operator.sharding();
    }

    /** Whether the shard holds its Lease now, i.e. may reconcile. */
    public boolean isLeaseHeld() {
        return operator.sharding().lease().isHeld();
    }

    /**
     * Stops gracefully: running reconciles finish, then the Lease is released, or kept marked restarting
     * for a restart ({@link ChecksumShard.Options#departure}; {@link ShardedOperator#stop()}).
     */
    @Override
    public void close() {
        if (markStopped()) {
            operator.stop();
            leaseExecutor.shutdownNow();
        }
    }

    /**
     * Stops as if the process had been killed: no further renewals or reconciles, the Lease
     * <em>not</em> released; the sharder moves the objects once it has expired. For failure drills.
     */
    public void kill() {
        if (markStopped()) {
            leaseExecutor.shutdownNow();
            try {
                leaseExecutor.awaitTermination(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            operator.halt();
            LOG.info("JOSDK shard {} killed: its Lease was not released", shard());
        }
    }

    private synchronized boolean markStopped() {
        boolean first = !stopped;
        stopped = true;
        return first;
    }
}
