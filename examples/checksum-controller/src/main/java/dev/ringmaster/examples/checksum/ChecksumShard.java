package dev.ringmaster.examples.checksum;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.shard.client.RangeInformer;
import dev.ringmaster.shard.client.ShardDeparture;
import dev.ringmaster.shard.client.ShardInformers;
import dev.ringmaster.shard.client.ShardPool;
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
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Pattern;
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
 *
 * <p><b>Range mode</b> ({@link Options#rangeMode()}, {@code --range-mode}, for a ring with
 * {@code spec.ranges}): the sharder labels nothing and writes each shard's hash ranges on its Lease
 * instead. Per watched namespace the shard then runs a {@link RangeInformer} of the ConfigMaps in its
 * ranges (the KEP-5866 {@code shardSelector}, and filtered client-side whatever the server does) feeding
 * a {@link ShardedReconciler} without drains, and an informer of its Secrets by the
 * {@value ChecksumReconciler#MANAGED_BY_LABEL} label. The reconcile lines are the same. A change of
 * the ranges swaps the informer, which reconciles every ConfigMap it serves again. The periodic resync
 * ({@link Options#resync()}) queues every ConfigMap of the range informer's store again, as an
 * informer's resync does in label mode.
 *
 * <p><b>Costs.</b> A ConfigMap annotated {@value Cost#ANNOTATION} costs each of its reconciles that
 * long, spent as {@link Options#costAs()} says ({@link Cost}); with the resync the load is continuous.
 */
public final class ChecksumShard implements RunningShard {

    /** What a graceful stop does with the shard's Lease ({@code --on-stop}). */
    public enum OnStop {
        /**
         * With an identity pool, the pool's rule ({@link ShardDeparture#pool}); else, for a pod named like a
         * StatefulSet's ({@code <sts>-<n>}), the StatefulSet's rule ({@link ShardDeparture#statefulSet});
         * else leave.
         */
        AUTO,
        /** Always keep the Lease, marked restarting: the objects stay for the ring's restart grace. */
        RESTART,
        /** Always release the Lease: the objects move at once. */
        LEAVE
    }

    /**
     * How a shard runs.
     *
     * @param ringKind        the kind of the ring: ClusterRing or ControllerRing (the reference sharder's since v0.9.0)
     * @param ring            the ring's name
     * @param shard           this shard's name: Lease name, holder identity, shard label value; {@code null}
     *                        only with an identity pool, until a name of it is claimed ({@link #claimShard})
     * @param leaseNamespace  namespace of the shard's Lease (and of the StatefulSet or Deployment the
     *                        departure rules read)
     * @param watchNamespaces namespaces whose ConfigMaps it reconciles; empty: all namespaces
     * @param leaseDuration   {@code leaseDurationSeconds} of the Lease
     * @param renewDeadline   how long renewals may fail before the shard stops reconciling
     * @param retryPeriod     interval of Lease renewals
     * @param resync          every ConfigMap of the shard is reconciled again this often (which also
     *                        retries failed reconciles); zero: never
     * @param clock           time of the Lease renewals and of the reconcile lines
     * @param instance        this process's instance (the pod's UID); empty: {@link Sharding#defaultInstance()}
     * @param identityPool    the Deployment whose pool of names the shard takes its name from; empty: none
     * @param podName         the pod this shard runs in, for the StatefulSet rule of {@link OnStop#AUTO};
     *                        empty: not in a pod
     * @param onStop          what a graceful stop does with the Lease
     * @param rangeMode       range mode ({@code --range-mode}, a ring with {@code spec.ranges}): serve the hash
     *                        ranges the sharder assigns on the Lease instead of labelled objects
     * @param costAs          how a reconcile spends the cost its ConfigMap's {@value Cost#ANNOTATION} asks for
     *                        ({@code --cost-as})
     * @param loadReportPeriod how often the shard's Lease renewals carry its load report ({@code --load-report-period};
     *                        zero: never)
     */
    public record Options(RingKind ringKind, String ring, String shard, String leaseNamespace,
            List<String> watchNamespaces, Duration leaseDuration, Duration renewDeadline, Duration retryPeriod,
            Duration resync, Clock clock, Optional<String> instance, Optional<String> identityPool,
            Optional<String> podName, OnStop onStop, boolean rangeMode, Cost.Mode costAs, Duration loadReportPeriod) {

        /** The options in label mode ({@code rangeMode} false), costs spent waiting. */
        public Options(RingKind ringKind, String ring, String shard, String leaseNamespace,
                List<String> watchNamespaces, Duration leaseDuration, Duration renewDeadline, Duration retryPeriod,
                Duration resync, Clock clock, Optional<String> instance, Optional<String> identityPool,
                Optional<String> podName, OnStop onStop) {
            this(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline, retryPeriod,
                    resync, clock, instance, identityPool, podName, onStop, false, Cost.Mode.WAIT,
                    Sharding.DEFAULT_LOAD_REPORT_PERIOD);
        }

        public Options {
            Objects.requireNonNull(ringKind, "ringKind");
            Objects.requireNonNull(ring, "ring");
            Objects.requireNonNull(identityPool, "identityPool");
            if (identityPool.isEmpty()) {
                Objects.requireNonNull(shard, "shard");
            }
            Objects.requireNonNull(leaseNamespace, "leaseNamespace");
            watchNamespaces = List.copyOf(watchNamespaces);
            Objects.requireNonNull(leaseDuration, "leaseDuration");
            Objects.requireNonNull(renewDeadline, "renewDeadline");
            Objects.requireNonNull(retryPeriod, "retryPeriod");
            if (resync.isNegative()) {
                throw new IllegalArgumentException("resync period must not be negative, got " + resync);
            }
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(instance, "instance");
            Objects.requireNonNull(podName, "podName");
            Objects.requireNonNull(onStop, "onStop");
            Objects.requireNonNull(costAs, "costAs");
            Objects.requireNonNull(loadReportPeriod, "loadReportPeriod");
        }

        /**
         * A shard of a ClusterRing, all namespaces, shard-client's default timings (15 s, 10 s, 2 s),
         * a resync every 10 minutes, the UTC system clock, the process's default instance, no pool, not
         * in a pod, {@link OnStop#AUTO} (which is then a leave).
         */
        public static Options of(String ring, String shard, String leaseNamespace) {
            return new Options(RingKind.CLUSTER_RING, ring, shard, leaseNamespace, List.of(), Duration.ofSeconds(15),
                    Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofMinutes(10), Clock.systemUTC(),
                    Optional.empty(), Optional.empty(), Optional.empty(), OnStop.AUTO);
        }

        /**
         * A shard of a ClusterRing that takes its name from the pool of the Deployment {@code pool}
         * (claimed by {@link #claimShard}), otherwise as {@link #of}.
         */
        public static Options ofPool(String ring, String pool, String leaseNamespace) {
            return new Options(RingKind.CLUSTER_RING, ring, null, leaseNamespace, List.of(), Duration.ofSeconds(15),
                    Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofMinutes(10), Clock.systemUTC(),
                    Optional.empty(), Optional.of(pool), Optional.empty(), OnStop.AUTO);
        }

        public Options withRingKind(RingKind ringKind) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock, instance, identityPool, podName, onStop, rangeMode, costAs, loadReportPeriod);
        }

        public Options withWatchNamespaces(List<String> namespaces) {
            return new Options(ringKind, ring, shard, leaseNamespace, namespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock, instance, identityPool, podName, onStop, rangeMode, costAs, loadReportPeriod);
        }

        /** Lease timings; they must satisfy duration &gt; renew deadline &gt; retry period, duration whole seconds. */
        public Options withLeaseTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock, instance, identityPool, podName, onStop, rangeMode, costAs, loadReportPeriod);
        }

        public Options withResync(Duration resync) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock, instance, identityPool, podName, onStop, rangeMode, costAs, loadReportPeriod);
        }

        public Options withClock(Clock clock) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock, instance, identityPool, podName, onStop, rangeMode, costAs, loadReportPeriod);
        }

        /** This shard's name (e.g. the one claimed from the identity pool). */
        public Options withShard(String shard) {
            return new Options(ringKind, ring, Objects.requireNonNull(shard, "shard"), leaseNamespace, watchNamespaces,
                    leaseDuration, renewDeadline, retryPeriod, resync, clock, instance, identityPool, podName, onStop,
                    rangeMode, costAs, loadReportPeriod);
        }

        /** This process's instance (the pod's UID). */
        public Options withInstance(String instance) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock, Optional.of(instance), identityPool, podName, onStop, rangeMode, costAs, loadReportPeriod);
        }

        /** The Deployment whose pool of names this shard takes its name from. */
        public Options withIdentityPool(String pool) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock, instance, Optional.of(pool), podName, onStop, rangeMode, costAs, loadReportPeriod);
        }

        /** The pod this shard runs in. */
        public Options withPodName(String podName) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock, instance, identityPool, Optional.of(podName), onStop, rangeMode, costAs, loadReportPeriod);
        }

        /** In range mode ({@code true}) or label mode. */
        public Options withRangeMode(boolean rangeMode) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock, instance, identityPool, podName, onStop, rangeMode, costAs, loadReportPeriod);
        }

        public Options withOnStop(OnStop onStop) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock, instance, identityPool, podName, onStop, rangeMode, costAs, loadReportPeriod);
        }

        /** How a reconcile spends its ConfigMap's cost. */
        public Options withCostAs(Cost.Mode costAs) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock, instance, identityPool, podName, onStop, rangeMode, costAs, loadReportPeriod);
        }

        public Options withLoadReportPeriod(Duration loadReportPeriod) {
            return new Options(ringKind, ring, shard, leaseNamespace, watchNamespaces, leaseDuration, renewDeadline,
                    retryPeriod, resync, clock, instance, identityPool, podName, onStop, rangeMode, costAs, loadReportPeriod);
        }

        /** The instance the shard's Lease and its pool claim are written with. */
        public String effectiveInstance() {
            return instance.orElseGet(Sharding::defaultInstance);
        }

        /**
         * These options with the shard named by a claim of the identity pool's lowest free name
         * ({@link ShardPool#claim}); unchanged if the shard has a name already.
         *
         * @throws IllegalStateException if the pool's Deployment cannot be read
         */
        public Options claimShard(KubernetesClient client, Duration timeout) throws TimeoutException, InterruptedException {
            if (shard != null) {
                return this;
            }
            String claimed = ShardPool.of(client, leaseNamespace, identityPool.orElseThrow()).ring(ringKind, ring)
                    .instance(effectiveInstance()).leaseDuration(leaseDuration).retryPeriod(retryPeriod).clock(clock)
                    .claim(timeout);
            return withShard(claimed);
        }

        /**
         * {@link #claimShard} with a timeout of 10 minutes, for a start that must have a name.
         *
         * @throws IllegalStateException if the pool's Deployment cannot be read, no name was free in
         *     time, or the thread was interrupted (its flag is set again)
         */
        public Options named(KubernetesClient client) {
            try {
                return claimShard(client, CLAIM_TIMEOUT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while claiming a name of pool " + identityPool.orElse("?"), e);
            } catch (TimeoutException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }

        /**
         * What a graceful stop does ({@link #onStop()}): with {@link OnStop#AUTO}, the pool's rule if the
         * shard has an identity pool, else the StatefulSet's rule if the pod is named {@code <sts>-<n>},
         * else a leave.
         */
        public ShardDeparture departure(KubernetesClient client) {
            return switch (onStop) {
                case LEAVE -> ShardDeparture.leave();
                case RESTART -> ShardDeparture.restart();
                case AUTO -> identityPool.isPresent() ? ShardDeparture.pool(client, leaseNamespace, identityPool.get())
                        : podName.filter(name -> STATEFUL_SET_POD.matcher(name).matches()).isPresent()
                                ? ShardDeparture.statefulSet(client, leaseNamespace, podName.get())
                                : ShardDeparture.leave();
            };
        }

        /**
         * The shard these options describe, not started: ring, shard name, Lease namespace, timings,
         * clock, instance and departure, renewing on {@code leaseExecutor}.
         *
         * @throws IllegalArgumentException if a name is invalid or the timings are inconsistent
         * @throws IllegalStateException    if the shard's name is still to be claimed from its pool
         */
        public Sharding sharding(KubernetesClient client, ScheduledExecutorService leaseExecutor) {
            if (shard == null) {
                throw new IllegalStateException("the shard has no name yet: claim one of pool "
                        + identityPool.orElse("?") + " first (claimShard)");
            }
            Sharding.Builder builder = Sharding.forRing(ring);
            if (rangeMode) {
                builder.rangeMode();
            }
            return builder
                    .ringKind(ringKind)
                    .shard(shard)
                    .namespace(leaseNamespace)
                    .client(client)
                    .leaseDuration(leaseDuration)
                    .renewDeadline(renewDeadline)
                    .retryPeriod(retryPeriod)
                    .clock(clock)
                    .executor(leaseExecutor)
                    .instance(effectiveInstance())
                    .departure(departure(client))
                    .loadReportPeriod(loadReportPeriod)
                    .build();
        }
    }

    /** A StatefulSet pod's name, {@code <sts>-<ordinal>}. */
    static final Pattern STATEFUL_SET_POD = Pattern.compile(".+-(0|[1-9][0-9]*)");
    /** How long {@link #start} waits for a name of the identity pool when the options have none yet. */
    static final Duration CLAIM_TIMEOUT = Duration.ofMinutes(10);

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
    private final List<RangeInformer<?>> rangeInformers = new ArrayList<>();
    /** Range mode: queues every ConfigMap of the range informers again each resync period; null: none. */
    private ScheduledExecutorService resyncer;
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
     * Starts a shard: its informers and its Lease. Returns at once (unless the options name an
     * identity pool and no shard yet: then it first claims a name of the pool, waiting up to 10 minutes
     * while all are held); the shard reconciles once it holds its Lease and the sharder assigned
     * objects to it.
     *
     * @param client       the client for everything the shard does; not closed by the shard
     * @param given        ring, shard (or identity pool), namespaces, timings, departure
     * @param reconcileLog receives one {@link ReconcileLine} (as text) per reconcile, from the shard's
     *                     worker thread; must be thread-safe if shared between shards
     * @throws IllegalArgumentException if a name is invalid or the timings are inconsistent
     * @throws IllegalStateException    if a name of the identity pool could not be claimed
     */
    public static ChecksumShard start(KubernetesClient client, Options given, Consumer<String> reconcileLog) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(given, "options");
        Objects.requireNonNull(reconcileLog, "reconcileLog");
        Options options = given.named(client);
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
        ChecksumReconciler logic = new ChecksumReconciler(client, options.clock(), options.shard(), reconcileLog,
                new Cost(options.costAs()));
        ShardInformers filtered = sharding.informers();
        List<String> scopes = options.watchNamespaces().isEmpty() ? Collections.singletonList(null)
                : options.watchNamespaces();
        if (options.rangeMode()) {
            List<Runnable> resyncs = new ArrayList<>();
            for (String namespace : scopes) {
                resyncs.add(shard.watchRanges(client, logic, namespace));
            }
            if (!options.resync().isZero()) {
                shard.resyncer = Executors.newSingleThreadScheduledExecutor(daemon("checksum-resync-" + options.shard()));
                long period = options.resync().toNanos();
                shard.resyncer.scheduleAtFixedRate(() -> resyncs.forEach(Runnable::run), period, period, TimeUnit.NANOSECONDS);
            }
            sharding.lease().start();
            LOG.info("Shard {} of {} {} started in range mode (Lease {}/{}, watching {})", options.shard(),
                    options.ringKind().kind(), options.ring(), options.leaseNamespace(), options.shard(),
                    options.watchNamespaces().isEmpty() ? "all namespaces" : String.join(", ", options.watchNamespaces()));
            return shard;
        }
        for (String namespace : scopes) {
            FilterWatchListDeletable<ConfigMap, ConfigMapList, Resource<ConfigMap>> configMapOperation = namespace == null
                    ? client.configMaps().inAnyNamespace() : client.configMaps().inNamespace(namespace);
            SharedIndexInformer<ConfigMap> configMaps = filtered.runnableInformer(configMapOperation, options.resync());
            SharedIndexInformer<Secret> secrets = filtered.runnableInformer(namespace == null
                    ? client.secrets().inAnyNamespace() : client.secrets().inNamespace(namespace));
            ShardedReconciler<ConfigMap> reconciler = ShardedReconciler.builder(sharding, configMaps)
                    .worker(worker)
                    .reconciler(logic::reconcile)
                    // a drain is acknowledged even if the watch went silent in an outage
                    .drainSweep(configMapOperation, DRAIN_SWEEP)
                    .build();
            reconciler.start();
            secrets.addEventHandler(new SecretEvents(configMaps.getStore()::getByKey, reconciler));
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

    /**
     * Range mode, one namespace ({@code null}: all): a {@link RangeInformer} of the ConfigMaps in the
     * ranges the Lease assigns, feeding a {@link ShardedReconciler} (no drains, no drain sweep), and an
     * informer of the controller's Secrets there (by its managed-by label: range mode labels nothing).
     * A Secret whose ConfigMap this shard does not serve is ignored, as the ConfigMap is not in the
     * range informer's store.
     *
     * @return the resync of this namespace: queues every ConfigMap the range informer serves again
     */
    private Runnable watchRanges(KubernetesClient client, ChecksumReconciler logic, String namespace) {
        RangeInformer<ConfigMap> configMaps = sharding.rangeInformer(ConfigMap.class,
                c -> namespace == null ? c.configMaps().inAnyNamespace() : c.configMaps().inNamespace(namespace));
        SharedIndexInformer<Secret> secrets = ShardInformers.retrying((namespace == null ? client.secrets().inAnyNamespace()
                : client.secrets().inNamespace(namespace))
                .withLabel(ChecksumReconciler.MANAGED_BY_LABEL, ChecksumReconciler.MANAGED_BY)
                .runnableInformer(0), sharding.labels().shard());
        ShardedReconciler<ConfigMap> reconciler = ShardedReconciler.builder(sharding, configMaps)
                .worker(worker)
                .reconciler(logic::reconcile)
                .build();
        reconciler.start();
        secrets.addEventHandler(new SecretEvents(configMaps.getStore()::getByKey, reconciler));
        reconcilers.add(reconciler);
        rangeInformers.add(configMaps);
        informers.add(secrets);
        // the range informer starts watching once the Lease assigns ranges
        secrets.start();
        return () -> configMaps.getStore().list().forEach(configMap -> reconciler.onUpdate(configMap, configMap));
    }

    /** This shard's name. */
    public String shard() {
        return sharding.labels().shard();
    }

    @Override
    public Sharding sharding() {
        return sharding;
    }

    /** Whether the shard holds its Lease now, i.e. may reconcile. */
    public boolean isLeaseHeld() {
        return sharding.lease().isHeld();
    }

    /**
     * Stops gracefully (what SIGTERM does): no new reconciles, waits for the running one (up to 30 s),
     * stops the informers, then closes the Lease ({@link dev.ringmaster.shard.client.ShardLease#close()}):
     * for a leave it is released, so the sharder moves this shard's objects at once; for a restart
     * ({@link Options#departure}) it is kept, marked restarting, so the objects wait for the shard's
     * next instance. Either way no other shard reconciles them while this one still does. Idempotent.
     */
    @Override
    public void close() {
        if (!stop()) {
            return;
        }
        sharding.close();
        leaseExecutor.shutdownNow();
        LOG.info("Shard {} stopped", shard());
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
        if (resyncer != null) {
            resyncer.shutdownNow();
        }
        reconcilers.forEach(ShardedReconciler::close);
        worker.shutdown();
        await(worker);
        informers.forEach(SharedIndexInformer::close);
        rangeInformers.forEach(RangeInformer::close);
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

        /** The shard's ConfigMap by {@code namespace/name}, null if it has none such. */
        private final Function<String, ConfigMap> configMaps;
        private final ShardedReconciler<ConfigMap> reconciler;

        SecretEvents(Function<String, ConfigMap> configMaps, ShardedReconciler<ConfigMap> reconciler) {
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
            ConfigMap configMap = configMaps.apply(secret.getMetadata().getNamespace() + "/" + owner.getName());
            if (configMap == null || (!deleted && ChecksumReconciler.isUpToDate(configMap, secret))) {
                return;
            }
            reconciler.onUpdate(configMap, configMap);
        }
    }
}
