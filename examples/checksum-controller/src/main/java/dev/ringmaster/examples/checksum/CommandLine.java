package dev.ringmaster.examples.checksum;

import dev.ringmaster.flags.Flags;
import dev.ringmaster.flags.Given;
import dev.ringmaster.flags.UsageException;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.shard.client.Sharding;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The command line of {@code bin/checksum-controller} (and of {@code bin/josdk-checksum-operator}):
 * {@code --ring NAME [--ring-kind clusterring|controllerring] [--kubeconfig F] [--shard-name NAME |
 * --identity-pool DEPLOYMENT] [--on-stop auto|restart|leave] [--namespace LEASE_NS] [--watch-namespace NS]...
 * [--resync DURATION] [--cost-as wait|cpu] [--load-report-period DURATION] [--metrics-port PORT] [--range-mode]}, in
 * the syntax of {@link Flags}.
 *
 * <p>What a pod knows need not be given ({@link Environment}): the shard name defaults to
 * {@code $POD_NAME}, else {@code $HOSTNAME} (a pod's hostname is its name); the Lease namespace to
 * {@code $POD_NAMESPACE}, else the namespace file of the pod's ServiceAccount; the instance (the fence
 * between two processes of one shard name) to {@code $POD_UID}. Without
 * {@code --kubeconfig} the command uses fabric8's auto-configuration, as {@code bin/ringmaster run}
 * does: in a pod its ServiceAccount, else {@code $KUBECONFIG} or {@code ~/.kube/config}.
 *
 * @param kubeconfig the kubeconfig file to reach the API server with (its current context); empty:
 *     fabric8's auto-configuration
 * @param shard      what the shard runs with
 * @param metricsPort the port to serve {@code GET /metrics} on; empty: none
 */
public record CommandLine(Optional<Path> kubeconfig, ChecksumShard.Options shard, OptionalInt metricsPort) {

    /** Downward API variable of the pod's name: the shard name when {@code --shard-name} is not given. */
    public static final String POD_NAME_ENV = "POD_NAME";
    /** Set in every pod: only there does the pod's name decide {@code --on-stop auto}. */
    public static final String KUBERNETES_SERVICE_HOST_ENV = "KUBERNETES_SERVICE_HOST";

    public CommandLine {
        Objects.requireNonNull(kubeconfig, "kubeconfig");
        Objects.requireNonNull(shard, "shard");
        Objects.requireNonNull(metricsPort, "metricsPort");
    }

    /**
     * Where the defaults come from: the process environment and the namespace file of the pod's
     * ServiceAccount. Tests pass their own.
     *
     * @param variables                   environment variables by name; {@code null} for an unset one
     * @param serviceAccountNamespaceFile the ServiceAccount's namespace file (absent outside a pod)
     */
    public record Environment(Function<String, String> variables, Path serviceAccountNamespaceFile) {

        public Environment {
            Objects.requireNonNull(variables, "variables");
            Objects.requireNonNull(serviceAccountNamespaceFile, "serviceAccountNamespaceFile");
        }

        /** This process's environment and {@value Sharding#SERVICE_ACCOUNT_NAMESPACE_FILE}. */
        public static Environment system() {
            return new Environment(System::getenv, Path.of(Sharding.SERVICE_ACCOUNT_NAMESPACE_FILE));
        }

        /** These variables and no ServiceAccount (a file that does not exist), for tests. */
        public static Environment of(Map<String, String> variables) {
            return new Environment(Map.copyOf(variables)::get, Path.of("/nonexistent/serviceaccount/namespace"));
        }

        /** A variable's value, trimmed; empty if unset or blank. */
        Optional<String> variable(String name) {
            String value = variables.apply(name);
            return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
        }
    }

    public static final String USAGE = usage("checksum-controller", """
            One shard of the example sharded controller: for every ConfigMap the sharder assigns to this
            shard it keeps a Secret checksums-<configmap> with the SHA-256 of each data key, controlled by
            the ConfigMap.""", true);

    /**
     * The usage text of a command with these flags: {@code name}, what it does (one paragraph), then
     * the reconcile line, the flags and the exit codes.
     */
    public static String usage(String name, String description) {
        return usage(name, description, false);
    }

    /**
     * {@link #usage(String, String)}, with {@code --range-mode} if the command has it (only
     * {@code bin/checksum-controller} does; see {@link ChecksumController.Shards#rangeMode()}).
     */
    public static String usage(String name, String description, boolean rangeMode) {
        String indent = " ".repeat("Usage: ".length() + name.length() + 1);
        return "Usage: " + name + " --ring NAME [--ring-kind clusterring|controllerring] [--kubeconfig FILE]\n"
                + indent + "[--shard-name NAME | --identity-pool DEPLOYMENT] [--on-stop auto|restart|leave]\n"
                + indent + "[--namespace LEASE_NAMESPACE] [--watch-namespace NAMESPACE]...\n"
                + indent + "[--resync DURATION] [--cost-as wait|cpu] [--load-report-period DURATION]\n"
                + indent + "[--metrics-port PORT]"
                + (rangeMode ? "\n" + indent + "[--range-mode]" : "") + "\n\n"
                + description + " Prints one line per reconcile to stdout:\n" + """
                  reconcile shard=S object=NS/NAME start=MS end=MS
                Logs go to stderr. SIGTERM stops it and releases its Lease, or keeps it for a restart
                (--on-stop).

                  --ring NAME                  the ring this controller's shards belong to
                  --ring-kind KIND             its kind: clusterring (default) or controllerring (the reference
                                               sharder's ControllerRing, v0.9.0 and later)
                  --kubeconfig FILE            kubeconfig of the cluster (its current context); default: in a pod
                                               its ServiceAccount, else $KUBECONFIG or ~/.kube/config
                  --shard-name NAME            this shard's name: its Lease and the shard label value;
                                               default: $POD_NAME, else $HOSTNAME (in a pod: the pod's name)
                  --identity-pool DEPLOYMENT   take the shard name from the pool of this Deployment (in the
                                               Lease namespace): the lowest free DEPLOYMENT-<i>, i below its
                                               replicas, waiting while all are held; not with --shard-name
                  --on-stop MODE               what SIGTERM does with the Lease: leave (release it: the objects
                                               move at once), restart (keep it, marked restarting: the objects
                                               wait for the shard's next instance), or auto (default): with
                                               --identity-pool, restart unless the pool has more live shards
                                               than replicas; in a pod named <statefulset>-<n>, restart while
                                               n is below the StatefulSet's replicas; else leave
                  --namespace LEASE_NAMESPACE  namespace of the shard's Lease; default: $POD_NAMESPACE, else
                                               the namespace of the pod's ServiceAccount
                  --watch-namespace NAMESPACE  reconcile ConfigMaps of this namespace only; repeat or separate
                                               with commas for several; default: all namespaces
                  --resync DURATION            reconcile every ConfigMap again this often (1s or more, e.g.
                                               30s, 10m); 0: only on changes; default: 10m
                  --cost-as MODE               how a reconcile spends the cost its ConfigMap's annotation
                                               checksums.ringmaster.dev/cost asks for (a duration, e.g. 250ms)
                                               before its work: wait (default: sleep) or cpu (compute until
                                               the thread used that much CPU time)
                  --load-report-period DURATION
                                               how often the Lease's renewals carry the shard's load report
                                               (ringmaster.dev/load, for a balanced ring); 0: never;
                                               default: 15s
                  --metrics-port PORT          serve GET /metrics on this port (all addresses), in Prometheus'
                                               text format: the shard's load report as
                                               ringmaster_shard_load_seconds_per_second,
                                               ringmaster_shard_queue_wait_seconds, ringmaster_shard_objects;
                                               default: no metrics
                """ + (rangeMode ? """
                  --range-mode                 for a ring with spec.ranges: serve the hash ranges the sharder
                                               assigns on the shard's Lease (list and watch with the KEP-5866
                                               shardSelector, filtered here too) instead of labelled objects
                """ : "") + """
                  -h, --help                   this text

                The instance written on the Lease (the fence between two processes of one shard name) is
                $POD_UID (downward API, fieldRef metadata.uid), else a random id.

                Exit codes: 1 the API server is unreachable or refuses the shard (or the identity pool's
                Deployment cannot be read), 2 bad arguments or a setting found nowhere; SIGTERM (143) or
                Ctrl-C (130) stops the shard gracefully, releasing its Lease or keeping it for a restart.
                """;
    }

    /**
     * A setting the environment lacks or has wrong, not a flag: the message says where it was looked
     * for, and the usage text would not help.
     */
    public static final class EnvironmentException extends UsageException {

        private static final long serialVersionUID = 1L;

        public EnvironmentException(String message) {
            super(message);
        }
    }

    private static final String KUBECONFIG = "--kubeconfig";
    private static final String RING = "--ring";
    private static final String RING_KIND = "--ring-kind";
    private static final String SHARD_NAME = "--shard-name";
    private static final String NAMESPACE = "--namespace";
    private static final String WATCH_NAMESPACE = "--watch-namespace";
    private static final String IDENTITY_POOL = "--identity-pool";
    private static final String ON_STOP = "--on-stop";
    private static final String RESYNC = "--resync";
    private static final String COST_AS = "--cost-as";
    private static final String LOAD_REPORT_PERIOD = "--load-report-period";
    private static final String METRICS_PORT = "--metrics-port";
    private static final Duration MIN_RESYNC = Duration.ofSeconds(1);
    /** The one flag without a value. */
    static final String RANGE_MODE = "--range-mode";
    private static final Flags FLAGS = Flags.of()
            .valued(KUBECONFIG, RING, RING_KIND, SHARD_NAME, NAMESPACE, IDENTITY_POOL, ON_STOP, RESYNC, COST_AS,
                    LOAD_REPORT_PERIOD, METRICS_PORT)
            .repeatable(WATCH_NAMESPACE)
            .switches(RANGE_MODE);
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    /**
     * Parses and validates the arguments, with the defaults from this process's environment.
     *
     * @see #parse(List, Environment)
     */
    public static CommandLine parse(List<String> args) throws UsageException {
        return parse(args, Environment.system());
    }

    /**
     * Parses and validates the arguments; a kubeconfig given must be a readable file, a shard name
     * or Lease namespace not given comes from {@code environment}.
     *
     * @throws UsageException for a missing, unknown, repeated or empty flag, a stray argument, an
     *     invalid name, an unreadable kubeconfig, or a shard name or Lease namespace that is neither
     *     given nor found in the environment (then an {@link EnvironmentException})
     */
    public static CommandLine parse(List<String> args, Environment environment) throws UsageException {
        Objects.requireNonNull(environment, "environment");
        Given given = FLAGS.parse(args);
        if (!given.has(RING)) {
            throw new UsageException("missing required flag " + RING);
        }
        List<String> watched = new ArrayList<>();
        for (String value : given.values(WATCH_NAMESPACE)) {
            for (String namespace : value.split(",", -1)) {
                watched.add(namespace(namespace.strip()));
            }
        }
        Optional<Path> kubeconfig = given.value(KUBECONFIG).map(Path::of);
        if (kubeconfig.isPresent() && (!Files.isRegularFile(kubeconfig.get()) || !Files.isReadable(kubeconfig.get()))) {
            throw new UsageException("kubeconfig " + kubeconfig.get() + " is not a readable file");
        }
        RingKind ringKind = given.has(RING_KIND) ? ringKind(given.value(RING_KIND).get()) : RingKind.CLUSTER_RING;
        String ring = given.value(RING).get();
        Sharding.Builder names;
        try {
            // the shard library's own checks of the names, without building anything
            names = Sharding.forRing(ring);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        String pool = given.value(IDENTITY_POOL).orElse(null);
        if (pool != null && given.has(SHARD_NAME)) {
            throw new UsageException(IDENTITY_POOL + " and " + SHARD_NAME + " exclude each other: the pool names the shard");
        }
        ChecksumShard.OnStop onStop = given.has(ON_STOP) ? onStop(given.value(ON_STOP).get()) : ChecksumShard.OnStop.AUTO;
        Optional<Duration> resync = given.duration(RESYNC);
        if (resync.isPresent() && !resync.get().isZero() && resync.get().compareTo(MIN_RESYNC) < 0) {
            // fabric8's informers resync at most once a second
            throw new UsageException(RESYNC + " must be 0 (only on changes) or at least 1s, not '"
                    + given.value(RESYNC).get() + "'");
        }
        Optional<Duration> loadReportPeriod = given.duration(LOAD_REPORT_PERIOD);
        Cost.Mode costAs = given.has(COST_AS) ? costAs(given.value(COST_AS).get()) : Cost.Mode.WAIT;
        OptionalInt metricsPort = given.number(METRICS_PORT, 1, 65535);
        Value shard = null;
        if (pool != null) {
            try {
                names.identityPool(pool, Duration.ZERO);
            } catch (IllegalArgumentException e) {
                throw new UsageException(IDENTITY_POOL + ": " + e.getMessage());
            }
        } else {
            shard = shardName(given.value(SHARD_NAME).orElse(null), environment);
        }
        Value leaseNamespace = leaseNamespace(given.value(NAMESPACE).orElse(null), environment);
        if (shard != null) {
            try {
                names.shard(shard.value());
            } catch (IllegalArgumentException e) {
                throw shard.invalid(e);
            }
        }
        try {
            names.namespace(leaseNamespace.value());
        } catch (IllegalArgumentException e) {
            throw leaseNamespace.invalid(e);
        }
        ChecksumShard.Options options = pool != null
                ? ChecksumShard.Options.ofPool(ring, pool, leaseNamespace.value())
                : ChecksumShard.Options.of(ring, shard.value(), leaseNamespace.value());
        options = options.withRingKind(ringKind)
                .withWatchNamespaces(watched.stream().distinct().toList())
                .withOnStop(onStop)
                .withRangeMode(given.has(RANGE_MODE))
                .withCostAs(costAs);
        if (loadReportPeriod.isPresent()) {
            options = options.withLoadReportPeriod(loadReportPeriod.get());
        }
        if (resync.isPresent()) {
            options = options.withResync(resync.get());
        }
        Optional<String> instance = environment.variable(Sharding.POD_UID_ENV);
        if (instance.isPresent()) {
            options = options.withInstance(instance.get());
        }
        Optional<String> podName = podName(environment);
        if (podName.isPresent()) {
            options = options.withPodName(podName.get());
        }
        return new CommandLine(kubeconfig, options, metricsPort);
    }

    /** In a pod ({@code $KUBERNETES_SERVICE_HOST} set): {@code $POD_NAME}, else {@code $HOSTNAME}; else empty. */
    private static Optional<String> podName(Environment environment) {
        if (environment.variable(KUBERNETES_SERVICE_HOST_ENV).isEmpty()) {
            return Optional.empty();
        }
        return environment.variable(POD_NAME_ENV).or(() -> environment.variable(Sharding.HOSTNAME_ENV));
    }

    private static ChecksumShard.OnStop onStop(String value) throws UsageException {
        return switch (value) {
            case "auto" -> ChecksumShard.OnStop.AUTO;
            case "restart" -> ChecksumShard.OnStop.RESTART;
            case "leave" -> ChecksumShard.OnStop.LEAVE;
            default -> throw new UsageException(ON_STOP + " '" + value + "' is not a mode: use auto, restart or leave");
        };
    }

    private static Cost.Mode costAs(String value) throws UsageException {
        try {
            return Cost.Mode.ofFlagValue(value);
        } catch (IllegalArgumentException e) {
            throw new UsageException(COST_AS + " " + e.getMessage());
        }
    }

    /**
     * A setting's value and where it came from: {@code null} for a flag, else the variable or file
     * it was read from.
     */
    private record Value(String value, String source) {

        UsageException invalid(IllegalArgumentException problem) {
            return source == null ? new UsageException(problem.getMessage())
                    : new EnvironmentException(problem.getMessage() + " (from " + source + ")");
        }
    }

    /** {@code --shard-name}, else {@code $POD_NAME}, else {@code $HOSTNAME}. */
    private static Value shardName(String flag, Environment environment) throws UsageException {
        if (flag != null) {
            return new Value(flag, null);
        }
        for (String variable : List.of(POD_NAME_ENV, Sharding.HOSTNAME_ENV)) {
            Optional<String> value = environment.variable(variable);
            if (value.isPresent()) {
                return new Value(value.get(), "$" + variable);
            }
        }
        throw new EnvironmentException("no shard name: give " + SHARD_NAME + " NAME, or set $" + POD_NAME_ENV + " or $"
                + Sharding.HOSTNAME_ENV + " (in a pod: " + POD_NAME_ENV + " from the downward API, fieldRef metadata.name)");
    }

    /** {@code --namespace}, else {@code $POD_NAMESPACE}, else the ServiceAccount's namespace file. */
    private static Value leaseNamespace(String flag, Environment environment) throws UsageException {
        if (flag != null) {
            return new Value(flag, null);
        }
        Optional<String> variable = environment.variable(Sharding.POD_NAMESPACE_ENV);
        if (variable.isPresent()) {
            return new Value(variable.get(), "$" + Sharding.POD_NAMESPACE_ENV);
        }
        Path file = environment.serviceAccountNamespaceFile();
        if (Files.isRegularFile(file)) {
            String content;
            try {
                content = Files.readString(file, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new EnvironmentException("no Lease namespace: cannot read " + file + " (" + e.getMessage()
                        + "): give " + NAMESPACE + " LEASE_NAMESPACE or set $" + Sharding.POD_NAMESPACE_ENV);
            }
            if (!content.isEmpty()) {
                return new Value(content, file.toString());
            }
        }
        throw new EnvironmentException("no Lease namespace: give " + NAMESPACE + " LEASE_NAMESPACE, or set $"
                + Sharding.POD_NAMESPACE_ENV + " (in a pod: from the downward API, fieldRef metadata.namespace), or run"
                + " in a pod with " + file);
    }

    /** The kind by its Kind name, case ignored: {@code clusterring} as the usage spells it, or {@code ClusterRing}. */
    private static RingKind ringKind(String value) throws UsageException {
        try {
            return RingKind.ofKind(value);
        } catch (IllegalArgumentException e) {
            throw new UsageException(RING_KIND + " '" + value + "' is not a ring kind: use "
                    + RingKind.CLUSTER_RING.lowerCaseKind() + " or " + RingKind.CONTROLLER_RING.lowerCaseKind());
        }
    }

    private static String namespace(String value) throws UsageException {
        if (!DNS_LABEL.matcher(value).matches()) {
            throw new UsageException("--watch-namespace '" + value + "' is not a namespace name:"
                    + " use at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit");
        }
        return value;
    }
}
