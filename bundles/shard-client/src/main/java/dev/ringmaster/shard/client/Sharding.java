package dev.ringmaster.shard.client;

import dev.ringmaster.ring.RingKind;
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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Function;
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

    /** Environment variable naming the pod's namespace (set it with the downward API). */
    public static final String POD_NAMESPACE_ENV = "POD_NAMESPACE";
    /** Environment variable holding the pod's hostname, which is the pod name. */
    public static final String HOSTNAME_ENV = "HOSTNAME";
    /** The namespace file of the pod's service account token mount. */
    public static final String SERVICE_ACCOUNT_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

    private static final int MAX_NAME_LENGTH = 63;
    /** Valid as a Lease name (DNS subdomain) and as a label value, hence at most 63 characters. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    /** A namespace name (DNS label). */
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    private final ShardLabels labels;
    private final ShardLease lease;
    private final DrainAcknowledger drainAcknowledger;

    private Sharding(ShardLabels labels, ShardLease lease, DrainAcknowledger drainAcknowledger) {
        this.labels = labels;
        this.lease = lease;
        this.drainAcknowledger = drainAcknowledger;
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

    /** Restricts list, watch and informer calls to this shard's objects. */
    public ShardInformers informers() {
        return new ShardInformers(labels);
    }

    /** Closes the lease: {@link ShardLease#close()}. */
    @Override
    public void close() {
        lease.close();
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
        private Function<String, String> environment = System::getenv;
        private Path serviceAccountNamespaceFile = Path.of(SERVICE_ACCOUNT_NAMESPACE_FILE);

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

        Builder environment(Function<String, String> environment, Path serviceAccountNamespaceFile) {
            this.environment = environment;
            this.serviceAccountNamespaceFile = serviceAccountNamespaceFile;
            return this;
        }

        /**
         * Validates the settings and builds the shard; the lease is not started yet.
         *
         * @throws IllegalStateException if the client is missing, or the shard name or namespace is
         *     neither set nor found in the environment
         * @throws IllegalArgumentException if the timings are inconsistent (they must satisfy
         *     lease duration &gt; renew deadline &gt; retry period &gt; 0, the duration whole seconds)
         */
        public Sharding build() {
            if (client == null) {
                throw new IllegalStateException("client must be set: the shard needs a KubernetesClient");
            }
            String shardName = shard != null ? shard : defaultShard();
            String leaseNamespace = namespace != null ? namespace : defaultNamespace();
            checkTimings();
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
            KubernetesClient writes = failFast(client, renewDeadline);
            ShardLease lease = new ShardLease(writes, ringKind, ring, shardName, leaseNamespace, weight, leaseDuration,
                    renewDeadline, retryPeriod, clock, scheduler, ownsExecutor, listener);
            return new Sharding(labels, lease, new DrainAcknowledger(writes, labels));
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
