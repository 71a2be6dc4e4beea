package dev.ringmaster.shard.client;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.load.LoadReport;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfig;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * One shard of one ring, a ClusterRing or a ControllerRing: its labels, its Lease and its drain
 * acknowledgement, built and validated by a fluent builder.
 *
 * <pre>{@code
 * Sharding sharding = Sharding.forRing("example")
 *         .ringKind(RingKind.CONTROLLER_RING)  // default: RingKind.CLUSTER_RING
 *         .shard("shard-0")            // default: $HOSTNAME (the pod name)
 *         .namespace("default")        // default: the pod's namespace
 *         .client(client)
 *         .listener(new ShardLease.Listener() { ... start / stop controllers ... })
 *         .build();
 * sharding.lease().start();
 * // watch with sharding.labels().selector(); in reconcile:
 * //   if (sharding.drainAcknowledger().acknowledgeIfDraining(object)) return;
 * sharding.close();                    // releases the Lease
 * }</pre>
 */
public final class Sharding implements AutoCloseable {

    /** How often a shard's Lease renewals carry its load report unless {@link Builder#loadReportPeriod} says otherwise. */
    public static final Duration DEFAULT_LOAD_REPORT_PERIOD = Duration.ofSeconds(15);
    /** Environment variable naming the pod's namespace (set it with the downward API). */
    public static final String POD_NAMESPACE_ENV = "POD_NAMESPACE";
    /** Environment variable holding the pod's hostname, which is the pod name. */
    public static final String HOSTNAME_ENV = "HOSTNAME";
    /**
     * Environment variable holding the pod's UID (downward API, {@code fieldRef: metadata.uid}): this
     * process's instance ({@link Builder#instance(String)}).
     */
    public static final String POD_UID_ENV = "POD_UID";
    /** The namespace file of the pod's service account token mount. */
    public static final String SERVICE_ACCOUNT_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

    private static final int MAX_NAME_LENGTH = 63;
    /** Valid as a Lease name (DNS subdomain) and as a label value, hence at most 63 characters. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    /** A namespace name (DNS label). */
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    /** This process's instance when {@code $POD_UID} is not set: random, the same for the whole process. */
    private static final String PROCESS_INSTANCE = UUID.randomUUID().toString();

    private final ShardLabels labels;
    private final ShardLease lease;
    private final DrainAcknowledger drainAcknowledger;
    /** Range mode's handover, its executor and the watch on the shard's Lease; null in label mode. */
    private final ShardRanges ranges;
    private final ScheduledExecutorService rangeExecutor;
    private final AssignmentWatch assignmentWatch;
    private final KubernetesClient client;
    private final LoadMeter loadMeter;

    private Sharding(ShardLabels labels, ShardLease lease, DrainAcknowledger drainAcknowledger, ShardRanges ranges,
                     ScheduledExecutorService rangeExecutor, AssignmentWatch assignmentWatch, KubernetesClient client,
                     LoadMeter loadMeter) {
        this.loadMeter = loadMeter;
        this.labels = labels;
        this.lease = lease;
        this.drainAcknowledger = drainAcknowledger;
        this.ranges = ranges;
        this.rangeExecutor = rangeExecutor;
        this.assignmentWatch = assignmentWatch;
        this.client = client;
    }

    /**
     * Starts a builder for a shard of the ring {@code ring}, a ClusterRing unless
     * {@link Builder#ringKind(RingKind)} says otherwise.
     *
     * @throws IllegalArgumentException if {@code ring} is not a valid ring name (at most 63
     *     lower-case alphanumerics, '-' and '.', starting and ending alphanumeric)
     */
    public static Builder forRing(String ring) {
        return new Builder(checkName("ring name", ring, NAME));
    }

    /**
     * The instance of this process, as {@link Builder#instance(String)} and {@link ShardPool} default
     * it: {@code $POD_UID} (a pod's UID; a container restarted in the same pod is the same instance),
     * else a random UUID made once per process.
     */
    public static String defaultInstance() {
        return defaultInstance(System::getenv);
    }

    static String defaultInstance(Function<String, String> environment) {
        String uid = environment.apply(POD_UID_ENV);
        return uid == null || uid.isBlank() ? PROCESS_INSTANCE : uid.strip();
    }

    /** Whether {@code value} is valid as a shard, ring or pool name (a Lease name and label value). */
    static boolean validName(String value) {
        return value != null && value.length() <= MAX_NAME_LENGTH && NAME.matcher(value).matches();
    }

    /** The shard's labels: watch selector, ownership and drain checks. */
    public ShardLabels labels() {
        return labels;
    }

    /** The shard's Lease; call {@link ShardLease#start()} to begin holding it. */
    public ShardLease lease() {
        return lease;
    }

    /** Hands objects back to the sharder when it drains them from this shard. */
    public DrainAcknowledger drainAcknowledger() {
        return drainAcknowledger;
    }

    /**
     * What this shard's work costs: {@link ShardedReconciler} (and shard-josdk) record their reconciles here, and
     * the Lease's renewals publish it ({@link Builder#loadReportPeriod}).
     */
    public LoadMeter loadMeter() {
        return loadMeter;
    }

    /**
     * The load report last written on the shard's Lease as its {@code ringmaster.dev/load} annotation: busy time
     * per second, mean queue wait, objects, and in range mode the same per cell of the hash space, over the window
     * before it was written. Empty until the first report is written, and always with publishing off
     * ({@link Builder#loadReportPeriod} zero). {@link dev.ringmaster.shard.client.metrics.ShardLoadMetrics} exports
     * it as metrics.
     */
    public Optional<LoadReport> lastLoadReport() {
        return lease.lastLoadReport();
    }

    /** Restricts list, watch and informer calls to this shard's objects. */
    public ShardInformers informers() {
        return new ShardInformers(labels);
    }

    /** Whether this shard runs in range mode ({@link Builder#rangeMode()}). */
    public boolean rangeMode() {
        return ranges != null;
    }

    /**
     * Range mode's handover: the ranges this shard serves, handed to its {@link RangeInformer}s.
     *
     * @throws IllegalStateException in label mode
     */
    public ShardRanges ranges() {
        if (ranges == null) {
            throw new IllegalStateException("the shard is not in range mode: see Sharding.Builder#rangeMode()");
        }
        return ranges;
    }

    /**
     * Range mode: an informer over {@code operation} of a typed resource that serves this shard's
     * assigned ranges, registered with {@link #ranges()}; it starts watching when the shard's Lease
     * assigns it ranges. Add its handlers (e.g. {@link ShardedReconciler#builder(Sharding, RangeInformer)})
     * and close it when done.
     *
     * @param operation the collection on the given client, e.g. {@code c -> c.configMaps().inAnyNamespace()}
     * @throws IllegalStateException in label mode
     */
    public <T extends HasMetadata> RangeInformer<T> rangeInformer(Class<T> type,
            Function<KubernetesClient, FilterWatchListDeletable<T, ? extends KubernetesResourceList<T>, ?>> operation) {
        RangeInformer<T> informer = RangeInformer.of(client, type, operation);
        ranges().register(informer);
        return informer;
    }

    /** Closes the lease ({@link ShardLease#close()}); in range mode the informers then serve nothing. */
    @Override
    public void close() {
        lease.close();
        if (assignmentWatch != null) {
            assignmentWatch.close();
            rangeExecutor.shutdown(); // after the queued steps, the last one serving nothing
        }
    }

    /** Collects and validates a shard's settings. Not thread-safe. */
    public static final class Builder {

        private final String ring;
        private RingKind ringKind = RingKind.CLUSTER_RING;
        private String shard;
        private String namespace;
        private KubernetesClient client;
        private Integer weight;
        private Duration leaseDuration = Duration.ofSeconds(15);
        private Duration renewDeadline = Duration.ofSeconds(10);
        private Duration retryPeriod = Duration.ofSeconds(2);
        private Clock clock = Clock.systemUTC();
        private ScheduledExecutorService executor;
        private ShardLease.Listener listener = () -> { };
        private String instance;
        private ShardDeparture departure;
        private String identityPool;
        private Duration claimTimeout;
        private Function<String, String> environment = System::getenv;
        private Path serviceAccountNamespaceFile = Path.of(SERVICE_ACCOUNT_NAMESPACE_FILE);
        private boolean rangeMode;
        private Duration rangeRecheck = Duration.ofMillis(200);
        private Duration loadReportPeriod = DEFAULT_LOAD_REPORT_PERIOD;
        private LongSupplier ticker = System::nanoTime;

        private Builder(String ring) {
            this.ring = ring;
        }

        /**
         * The kind of the ring, which decides the names of its labels (docs/design.md section 1):
         * {@link RingKind#CLUSTER_RING} (the default) or {@link RingKind#CONTROLLER_RING}, the
         * reference sharder's kind since v0.9.0.
         */
        public Builder ringKind(RingKind ringKind) {
            this.ringKind = Objects.requireNonNull(ringKind, "ringKind");
            return this;
        }

        /**
         * This shard's name: the Lease name, its holder identity and the shard label value. If not
         * set, {@code $HOSTNAME} (the pod name) is used.
         *
         * @throws IllegalArgumentException unless a valid Lease name and label value (at most 63
         *     lower-case alphanumerics, '-' and '.', starting and ending alphanumeric)
         */
        public Builder shard(String shard) {
            this.shard = checkName("shard name", shard, NAME);
            return this;
        }

        /**
         * Namespace of the shard's Lease. If not set: {@code $POD_NAMESPACE}, else the service
         * account's namespace file; {@link #build()} fails if neither exists.
         *
         * @throws IllegalArgumentException unless a valid namespace name
         */
        public Builder namespace(String namespace) {
            this.namespace = checkName("namespace", namespace, DNS_LABEL);
            return this;
        }

        /**
         * The client for Lease and label writes (required). Not closed by this library. Those writes go
         * through a client derived from it that makes each request once, with a timeout no longer than
         * the renew deadline ({@link #failFast}).
         */
        public Builder client(KubernetesClient client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        /**
         * This shard's weight, written as the {@code ringmaster.dev/weight} Lease annotation. If not
         * set, the annotation is left as it is.
         *
         * @throws IllegalArgumentException unless positive
         */
        public Builder weight(int weight) {
            if (weight <= 0) {
                throw new IllegalArgumentException("weight must be positive, got " + weight);
            }
            this.weight = weight;
            return this;
        }

        /** {@code leaseDurationSeconds} written to the Lease; default 15 s, whole seconds. */
        public Builder leaseDuration(Duration leaseDuration) {
            this.leaseDuration = Objects.requireNonNull(leaseDuration, "leaseDuration");
            return this;
        }

        /** How long renewals may fail before {@link ShardLease.Listener#onLost()}; default 10 s. */
        public Builder renewDeadline(Duration renewDeadline) {
            this.renewDeadline = Objects.requireNonNull(renewDeadline, "renewDeadline");
            return this;
        }

        /** Interval between acquire or renew attempts; default 2 s. */
        public Builder retryPeriod(Duration retryPeriod) {
            this.retryPeriod = Objects.requireNonNull(retryPeriod, "retryPeriod");
            return this;
        }

        /** The clock for renew times and deadlines; default the UTC system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Executor for the renew loop and the deadline check; not shut down by this library. With a
         * single thread, the deadline check cannot run while a renewal request hangs (it then fences
         * when the request times out or at {@link ShardLease#isHeld()}); use two or more threads.
         * Default: the lease's own two daemon threads, stopped on close.
         */
        public Builder executor(ScheduledExecutorService executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /** Told when the lease is acquired and lost; default: nobody. */
        public Builder listener(ShardLease.Listener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * This process's instance, written as the {@code ringmaster.dev/holder-instance} annotation with
         * every acquisition and renewal: the fence between two processes of one shard name (a replacement
         * pod started while the old one still runs); the second waits until the first stops (marking the
         * Lease restarting or releasing it) or its Lease expires. Default: {@code $POD_UID}, else a random
         * UUID per process ({@link Sharding#defaultInstance()}). Two shards of one name in one process
         * (tests) need different instances.
         *
         * @throws IllegalArgumentException if empty
         */
        public Builder instance(String instance) {
            if (instance == null || instance.isBlank()) {
                throw new IllegalArgumentException("instance must not be empty");
            }
            this.instance = instance;
            return this;
        }

        /**
         * Decides at {@link ShardLease#close()} whether the stop is a restart (the Lease is kept, marked
         * restarting, and the objects stay) or a leave (the Lease is released and the objects move at
         * once). Default: {@link ShardDeparture#leave()}, or {@link ShardDeparture#pool} with
         * {@link #identityPool(String, Duration)}.
         */
        public Builder departure(ShardDeparture departure) {
            this.departure = Objects.requireNonNull(departure, "departure");
            return this;
        }

        /**
         * Takes the shard name from the pool of the Deployment {@code poolName} (in the Lease namespace):
         * {@link #build()} claims the lowest free name {@code <poolName>-<i>} first ({@link ShardPool}),
         * waiting up to {@code claimTimeout} while every name is held, and the departure defaults to
         * {@link ShardDeparture#pool}. Excludes {@link #shard(String)}.
         *
         * @throws IllegalArgumentException if the pool name is invalid
         */
        public Builder identityPool(String poolName, Duration claimTimeout) {
            if (!validName(poolName) || poolName.length() > MAX_NAME_LENGTH - 3) {
                throw new IllegalArgumentException("pool name '" + poolName + "' is invalid: at most "
                        + (MAX_NAME_LENGTH - 3) + " lower-case letters, digits, '-' and '.', starting and ending"
                        + " with a letter or digit");
            }
            this.identityPool = poolName;
            this.claimTimeout = Objects.requireNonNull(claimTimeout, "claimTimeout");
            return this;
        }

        /**
         * Range mode (docs/design.md section 9, KEP-5866): the shard serves the hash ranges the sharder
         * writes on its Lease ({@code ringmaster.dev/assigned-ranges}) instead of the objects labelled
         * for it; watch with {@link Sharding#rangeInformer}. Default: label mode.
         */
        public Builder rangeMode() {
            this.rangeMode = true;
            return this;
        }

        /** Range mode: how often a shrink looks again whether the reconciles outside the new ranges ended; default 200 ms. */
        public Builder rangeRecheck(Duration recheck) {
            Objects.requireNonNull(recheck, "recheck");
            if (recheck.isNegative() || recheck.isZero()) {
                throw new IllegalArgumentException("range recheck must be positive, got " + recheck);
            }
            this.rangeRecheck = recheck;
            return this;
        }

        /**
         * How often the Lease's renewals carry the shard's load report (the {@code ringmaster.dev/load} annotation,
         * {@link Sharding#lastLoadReport()}): a renewal at least this long after the previous report writes the
         * next, in the same update; no extra request is ever made for it. Default 15 s; {@link Duration#ZERO} turns
         * publishing off (an annotation on the Lease is left as it is).
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder loadReportPeriod(Duration period) {
            Objects.requireNonNull(period, "period");
            if (period.isNegative()) {
                throw new IllegalArgumentException("load report period must not be negative, got " + period);
            }
            this.loadReportPeriod = period;
            return this;
        }

        /** The nanosecond ticker timing reconciles and queue waits for the load report; default {@link System#nanoTime()}. */
        public Builder ticker(LongSupplier ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        Builder environment(Function<String, String> environment, Path serviceAccountNamespaceFile) {
            this.environment = environment;
            this.serviceAccountNamespaceFile = serviceAccountNamespaceFile;
            return this;
        }

        /**
         * Validates the settings and builds the shard; the lease is not started yet.
         *
         * @throws IllegalStateException if the client is missing, or the shard name or namespace is
         *     neither set nor found in the environment, or both a shard name and an identity pool are set,
         *     or (with an identity pool) its Deployment cannot be read, no name was free within the claim
         *     timeout, or the thread was interrupted while waiting (its interrupt flag is set again)
         * @throws IllegalArgumentException if the timings are inconsistent (they must satisfy
         *     lease duration &gt; renew deadline &gt; retry period &gt; 0, the duration whole seconds)
         */
        public Sharding build() {
            if (client == null) {
                throw new IllegalStateException("client must be set: the shard needs a KubernetesClient");
            }
            if (shard != null && identityPool != null) {
                throw new IllegalStateException("set either shard(...) or identityPool(...), not both");
            }
            String leaseNamespace = namespace != null ? namespace : defaultNamespace();
            checkTimings();
            String me = instance != null ? instance : defaultInstance(environment);
            KubernetesClient writes = failFast(client, renewDeadline);
            String shardName;
            if (identityPool != null) {
                shardName = claim(writes, leaseNamespace, me);
            } else {
                shardName = shard != null ? shard : defaultShard();
            }
            ShardDeparture leaving = departure != null ? departure
                    : identityPool != null ? ShardDeparture.pool(client, leaseNamespace, identityPool)
                    : ShardDeparture.leave();
            ScheduledExecutorService scheduler = executor;
            boolean ownsExecutor = scheduler == null;
            if (ownsExecutor) {
                ScheduledThreadPoolExecutor own = (ScheduledThreadPoolExecutor) Executors.newScheduledThreadPool(2, task -> {
                    Thread thread = new Thread(task, "shard-lease-" + shardName);
                    thread.setDaemon(true);
                    return thread;
                });
                own.setRemoveOnCancelPolicy(true);
                scheduler = own;
            }
            ShardLabels labels = ShardLabels.of(ringKind, ring, shardName);
            ShardLease lease = new ShardLease(writes, ringKind, ring, shardName, leaseNamespace, weight, me, leaving,
                    leaseDuration,
                    renewDeadline, retryPeriod, clock, scheduler, ownsExecutor, listener);
            ShardRanges ranges = null;
            ScheduledThreadPoolExecutor rangeExecutor = null;
            AssignmentWatch assignmentWatch = null;
            if (rangeMode) {
                ScheduledThreadPoolExecutor steps = new ScheduledThreadPoolExecutor(1, task -> {
                    Thread thread = new Thread(task, "shard-ranges-" + shardName);
                    thread.setDaemon(true);
                    return thread;
                });
                steps.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
                rangeExecutor = steps;
                ranges = new ShardRanges(shardName, lease.access(), held -> LeaseRules.heldBy(held, shardName, me),
                        steps, (task, delay) -> steps.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS), rangeRecheck);
                lease.addListener(ranges);
                lease.addObserver(ranges::observe);
                assignmentWatch = new AssignmentWatch(client, leaseNamespace, shardName, ranges);
                lease.addListener(assignmentWatch);
                lease.servesRanges();
            } else {
                lease.servesNoRanges();
            }
            ShardRanges served = ranges;
            LoadMeter meter = new LoadMeter(ticker,
                    served == null ? LoadMeter.LABEL_MODE : () -> new LoadMeter.Served(served.serving(), served.key()));
            lease.publishLoad(meter, loadReportPeriod);
            return new Sharding(labels, lease, new DrainAcknowledger(writes, labels), ranges, rangeExecutor,
                    assignmentWatch, client, meter);
        }

        /**
         * The user's client making each request once and giving up after {@code timeout} at most. By
         * default fabric8 retries a failed request up to ten times over about 20 s; a renewal stuck in
         * those retries through an outage is one the renew loop cannot make on its schedule, and a
         * hand-back stuck there holds a hand-back thread long after the API server is back. The lease
         * retries every retry period and a drain is retried by its next event or the drain sweep, as
         * client-go's leader election does. Shares the user's connections; closing it would close them.
         */
        static KubernetesClient failFast(KubernetesClient client, Duration timeout) {
            RequestConfig requests = client.getConfiguration().getRequestConfig();
            int timeoutMillis = (int) Math.min(timeout.toMillis(),
                    requests.getRequestTimeout() == null || requests.getRequestTimeout() <= 0
                            ? Integer.MAX_VALUE : requests.getRequestTimeout());
            return client.newClient(new RequestConfigBuilder(requests).withRequestRetryBackoffLimit(0)
                    .withRequestTimeout(timeoutMillis).build()).adapt(KubernetesClient.class);
        }

        private String claim(KubernetesClient writes, String leaseNamespace, String me) {
            ShardPool pool = ShardPool.of(writes, leaseNamespace, identityPool).ring(ringKind, ring).instance(me)
                    .weight(weight).leaseDuration(leaseDuration).retryPeriod(retryPeriod).clock(clock);
            try {
                return pool.claim(claimTimeout);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while claiming a name of pool " + identityPool, e);
            } catch (TimeoutException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }

        private String defaultShard() {
            String hostname = environment.apply(HOSTNAME_ENV);
            if (hostname == null || hostname.isBlank()) {
                throw new IllegalStateException("shard name is not set: call shard(...) or set $" + HOSTNAME_ENV);
            }
            return checkName("shard name (from $" + HOSTNAME_ENV + ")", hostname.trim(), NAME);
        }

        private String defaultNamespace() {
            String fromEnv = environment.apply(POD_NAMESPACE_ENV);
            if (fromEnv != null && !fromEnv.isBlank()) {
                return checkName("namespace (from $" + POD_NAMESPACE_ENV + ")", fromEnv.trim(), DNS_LABEL);
            }
            if (Files.isReadable(serviceAccountNamespaceFile)) {
                try {
                    String fromFile = Files.readString(serviceAccountNamespaceFile, StandardCharsets.UTF_8).trim();
                    return checkName("namespace (from " + serviceAccountNamespaceFile + ")", fromFile, DNS_LABEL);
                } catch (IOException e) {
                    throw new IllegalStateException("cannot read " + serviceAccountNamespaceFile + ": " + e.getMessage(), e);
                }
            }
            throw new IllegalStateException("lease namespace is not set: call namespace(...), set $"
                    + POD_NAMESPACE_ENV + " (downward API: fieldRef metadata.namespace) or run in a pod with "
                    + serviceAccountNamespaceFile);
        }

        private void checkTimings() {
            if (retryPeriod.isNegative() || retryPeriod.isZero()) {
                throw new IllegalArgumentException("retry period must be positive, got " + retryPeriod);
            }
            if (leaseDuration.toMillis() % 1000 != 0 || leaseDuration.toSeconds() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("lease duration must be whole seconds, got " + leaseDuration);
            }
            if (renewDeadline.compareTo(retryPeriod) <= 0) {
                throw new IllegalArgumentException("renew deadline (" + renewDeadline
                        + ") must be longer than the retry period (" + retryPeriod + ")");
            }
            if (leaseDuration.compareTo(renewDeadline) <= 0) {
                throw new IllegalArgumentException("lease duration (" + leaseDuration
                        + ") must be longer than the renew deadline (" + renewDeadline
                        + "), so that the shard stops before its lease expires");
            }
        }
    }

    private static String checkName(String what, String value, Pattern pattern) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        if (value.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(what + " must be at most " + MAX_NAME_LENGTH
                    + " characters, got " + value.length() + ": " + value);
        }
        if (!pattern.matcher(value).matches()) {
            throw new IllegalArgumentException(what + " '" + value + "' is invalid: use lower-case letters, digits"
                    + (pattern == NAME ? ", '-' and '.'" : " and '-'") + ", starting and ending with a letter or digit");
        }
        return value;
    }
}
