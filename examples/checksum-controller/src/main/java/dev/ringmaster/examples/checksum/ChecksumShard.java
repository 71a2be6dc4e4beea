package dev.ringmaster.examples.checksum;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.shard.client.ShardInformers;
import dev.ringmaster.shard.client.ShardedReconciler;
import dev.ringmaster.shard.client.Sharding;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapList;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running shard of the checksum controller, built only on shard-client: it holds the shard's
 * Lease, watches the ConfigMaps and Secrets the sharder assigned to it, and reconciles each of its
 * ConfigMaps with {@link ChecksumReconciler}. Several shards may run in one JVM, each with its own
 * client or sharing one.
 *
 * <pre>{@code
 * try (ChecksumShard shard = ChecksumShard.start(client,
 *         ChecksumShard.Options.of("checksums", "shard-0", "default"), System.out::println)) {
 *     ...
 * }   // graceful: the running reconcile finishes, then the Lease is released
 * }</pre>
 *
 * <p><b>What it watches.</b> Per watched namespace (or all namespaces): a shard-filtered ConfigMap
 * informer feeding a {@link ShardedReconciler} (fencing, ownership and drain checks, one reconcile
 * at a time), and a shard-filtered Secret informer. A Secret event whose Secret no longer matches
 * its controlling ConfigMap (changed or deleted by someone) queues that ConfigMap through the same
 * wrapper, so a tampered Secret is repaired. Secrets the controller just created are not in that
 * informer until the sharder labels them (webhook or unassigned-object watch, through the controller
 * reference); the ConfigMap's own reconcile covers them meanwhile. All of a shard's reconciles run
 * on one worker thread.
 */
public final class ChecksumShard implements AutoCloseable {

    /**
     * How a shard runs.
     *
     * @param ringKind        the kind of the ring: ClusterRing or ControllerRing (the reference sharder's since v0.9.0)
     * @param ring            the ring's name
     * @param shard           this shard's name: Lease name, holder identity, shard label value
     * @param leaseNamespace  namespace of the shard's Lease
     * @param watchNamespaces namespaces whose ConfigMaps it reconciles; empty: all namespaces
     * @param leaseDuration   {@code leaseDurationSeconds} of the Lease
     * @param renewDeadline   how long renewals may fail before the shard stops reconciling
     * @param retryPeriod     interval of Lease renewals
     * @param resync          every ConfigMap of the shard is reconciled again this often (which also
     *                        retries failed reconciles); zero: never
     * @param clock           time of the Lease renewals and of the reconcile lines
     */
    public record Options(RingKind ringKind, String ring, String shard, String leaseNamespace,
            List<String> watchNamespaces, Duration leaseDuration, Duration renewDeadline, Duration retryPeriod,
            Duration resync, Clock clock) {

        public Options {
            Objects.requireNonNull(ringKind, "ringKind");
            Objects.requireNonNull(ring, "ring");
            Objects.requireNonNull(shard, "shard");
            Objects.requireNonNull(leaseNamespace, "leaseNamespace");
            watchNamespaces = List.copyOf(watchNamespaces);
            Objects.requireNonNull(leaseDuration, "leaseDuration");
            Objects.requireNonNull(renewDeadline, "renewDeadline");
            Objects.requireNonNull(retryPeriod, "retryPeriod");
            if (resync.isNegative()) {
                throw new IllegalArgumentException("resync period must not be negative, got " + resync);
            }
            Objects.requireNonNull(clock, "clock");
        }

        /**
         * A shard of a ClusterRing, all namespaces, shard-client's default timings (15 s, 10 s, 2 s),
         * a resync every 10 minutes, the UTC system clock.
         */
        public static Options of(String ring, String shard, String leaseNamespace) {
            return new Options(RingKind.CLUSTER_RING, ring, shard, leaseNamespace, List.of(), Duration.ofSeconds(15),
                    Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofMinutes(10), Clock.systemUTC());
        }

        public Options withRingKind(RingKind ringKind) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock);
        }

        public Options withWatchNamespaces(List<String> namespaces) {
            return new Options(ringKind, ring, shard, leaseNamespace, namespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock);
        }

        /** Lease timings; they must satisfy duration &gt; renew deadline &gt; retry period, duration whole seconds. */
        public Options withLeaseTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock);
        }

        public Options withResync(Duration resync) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock);
        }

        public Options withClock(Clock clock) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock);
        }

        /**
         * The shard these options describe, not started: ring, shard name, Lease namespace, timings and
         * clock, renewing on {@code leaseExecutor}.
         *
         * @throws IllegalArgumentException if a name is invalid or the timings are inconsistent
         */
        public Sharding sharding(KubernetesClient client, ScheduledExecutorService leaseExecutor) {
            return Sharding.forRing(ring)
                    .ringKind(ringKind)
                    .shard(shard)
                    .namespace(leaseNamespace)
                    .client(client)
                    .leaseDuration(leaseDuration)
                    .renewDeadline(renewDeadline)
                    .retryPeriod(retryPeriod)
                    .clock(clock)
                    .executor(leaseExecutor)
                    .build();
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(ChecksumShard.class);
    /** How often the shard lists its drained ConfigMaps from the API server ({@link ShardedReconciler.Builder#drainSweep}). */
    static final Duration DRAIN_SWEEP = Duration.ofSeconds(10);
    /** How long a graceful close waits for the running reconcile before releasing the Lease anyway. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final Sharding sharding;
    private final ScheduledExecutorService leaseExecutor;
    private final ExecutorService worker;
    private final List<ShardedReconciler<ConfigMap>> reconcilers = new ArrayList<>();
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private boolean stopped;

    private ChecksumShard(Sharding sharding, ScheduledExecutorService leaseExecutor, ExecutorService worker) {
        this.sharding = sharding;
        this.leaseExecutor = leaseExecutor;
        this.worker = worker;
    }

    /** {@link #start(KubernetesClient, Options, Consumer)} printing the reconcile lines to {@code System.out}. */
    public static ChecksumShard start(KubernetesClient client, Options options) {
        return start(client, options, System.out::println);
    }

    /**
     * Starts a shard: its informers and its Lease. Returns at once; the shard reconciles once it
     * holds its Lease and the sharder assigned objects to it.
     *
     * @param client       the client for everything the shard does; not closed by the shard
     * @param options      ring, shard, namespaces, timings
     * @param reconcileLog receives one {@link ReconcileLine} (as text) per reconcile, from the shard's
     *                     worker thread; must be thread-safe if shared between shards
     * @throws IllegalArgumentException if a name is invalid or the timings are inconsistent
     */
    public static ChecksumShard start(KubernetesClient client, Options options, Consumer<String> reconcileLog) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(reconcileLog, "reconcileLog");
        // two threads: the deadline check must run while a renewal hangs (shard-client's advice)
        ScheduledThreadPoolExecutor leaseExecutor =
                new ScheduledThreadPoolExecutor(2, daemon("checksum-lease-" + options.shard()));
        leaseExecutor.setRemoveOnCancelPolicy(true);
        Sharding sharding;
        try {
            sharding = options.sharding(client, leaseExecutor);
        } catch (RuntimeException e) {
            leaseExecutor.shutdownNow();
            throw e;
        }
        ExecutorService worker = Executors.newSingleThreadExecutor(daemon("checksum-reconciler-" + options.shard()));
        ChecksumShard shard = new ChecksumShard(sharding, leaseExecutor, worker);
        ChecksumReconciler logic = new ChecksumReconciler(client, options.clock(), options.shard(), reconcileLog);
        ShardInformers filtered = sharding.informers();
        List<String> scopes = options.watchNamespaces().isEmpty() ? Collections.singletonList(null)
                : options.watchNamespaces();
        for (String namespace : scopes) {
            FilterWatchListDeletable<ConfigMap, ConfigMapList, Resource<ConfigMap>> configMapOperation = namespace == null
                    ? client.configMaps().inAnyNamespace() : client.configMaps().inNamespace(namespace);
            SharedIndexInformer<ConfigMap> configMaps = filtered.filter(configMapOperation)
                    .runnableInformer(options.resync().toMillis());
            SharedIndexInformer<Secret> secrets = filtered.runnableInformer(namespace == null
                    ? client.secrets().inAnyNamespace() : client.secrets().inNamespace(namespace));
            ShardedReconciler<ConfigMap> reconciler = ShardedReconciler.builder(sharding, configMaps)
                    .worker(worker)
                    .reconciler(logic::reconcile)
                    // a drain is acknowledged even if the watch went silent in an outage
                    .drainSweep(configMapOperation, DRAIN_SWEEP)
                    .build();
            reconciler.start();
            secrets.addEventHandler(new SecretEvents(configMaps, reconciler));
            shard.reconcilers.add(reconciler);
            shard.informers.add(configMaps);
            shard.informers.add(secrets);
            configMaps.start();
            secrets.start();
        }
        sharding.lease().start();
        LOG.info("Shard {} of {} {} started (Lease {}/{}, watching {})", options.shard(), options.ringKind().kind(),
                options.ring(), options.leaseNamespace(), options.shard(),
                options.watchNamespaces().isEmpty() ? "all namespaces" : String.join(", ", options.watchNamespaces()));
        return shard;
    }

    /** This shard's name. */
    public String shard() {
        return sharding.labels().shard();
    }

    /** Whether the shard holds its Lease now, i.e. may reconcile. */
    public boolean isLeaseHeld() {
        return sharding.lease().isHeld();
    }

    /**
     * Stops gracefully (what SIGTERM does): no new reconciles, waits for the running one (up to 30 s),
     * stops the informers, then releases the Lease, so the sharder moves this shard's objects at
     * once and no other shard reconciles them while this one still does. Idempotent.
     */
    @Override
    public void close() {
        if (!stop()) {
            return;
        }
        sharding.close();
        leaseExecutor.shutdownNow();
        LOG.info("Shard {} stopped and released its Lease", shard());
    }

    /**
     * Stops as if the process had been killed: no further reconciles and no further renewals, and
     * the Lease is <em>not</em> released. The sharder moves this shard's objects once the Lease has
     * expired (docs/design.md section 3). For failure drills; a running reconcile finishes first, so its
     * reconcile line is logged. Idempotent, and {@link #close()} does nothing afterwards.
     */
    public void kill() {
        leaseExecutor.shutdownNow();
        await(leaseExecutor);
        if (stop()) {
            LOG.info("Shard {} killed: its Lease was not released", shard());
        }
    }

    /** Stops reconciling and watching; false if already stopped. */
    private boolean stop() {
        synchronized (this) {
            if (stopped) {
                return false;
            }
            stopped = true;
        }
        reconcilers.forEach(ShardedReconciler::close);
        worker.shutdown();
        await(worker);
        informers.forEach(SharedIndexInformer::close);
        return true;
    }

    private void await(ExecutorService executor) {
        try {
            if (!executor.awaitTermination(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("Shard {}: a reconcile is still running after {}", shard(), STOP_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Queues a Secret's controlling ConfigMap when the Secret (as this shard sees it) does not match
     * it: changed or deleted by someone else. Through the wrapper, so fencing, ownership and drain
     * checks apply as to ConfigMap events.
     */
    private static final class SecretEvents implements ResourceEventHandler<Secret> {

        private final SharedIndexInformer<ConfigMap> configMaps;
        private final ShardedReconciler<ConfigMap> reconciler;

        SecretEvents(SharedIndexInformer<ConfigMap> configMaps, ShardedReconciler<ConfigMap> reconciler) {
            this.configMaps = configMaps;
            this.reconciler = reconciler;
        }

        @Override
        public void onAdd(Secret secret) {
            queueOwnerIfStale(secret, false);
        }

        @Override
        public void onUpdate(Secret oldSecret, Secret newSecret) {
            queueOwnerIfStale(newSecret, false);
        }

        @Override
        public void onDelete(Secret secret, boolean deletedFinalStateUnknown) {
            queueOwnerIfStale(secret, true);
        }

        private void queueOwnerIfStale(Secret secret, boolean deleted) {
            OwnerReference owner = ChecksumReconciler.controller(secret).orElse(null);
            if (owner == null || !"ConfigMap".equals(owner.getKind()) || !"v1".equals(owner.getApiVersion())) {
                return;
            }
            ConfigMap configMap = configMaps.getStore()
                    .getByKey(secret.getMetadata().getNamespace() + "/" + owner.getName());
            if (configMap == null || (!deleted && ChecksumReconciler.isUpToDate(configMap, secret))) {
                return;
            }
            reconciler.onUpdate(configMap, configMap);
        }
    }
}
