package dev.ringmaster.examples.checksum;

import dev.ringmaster.flags.Flags;
import dev.ringmaster.flags.StopOnSignal;
import dev.ringmaster.flags.UsageException;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code bin/checksum-controller}: runs one shard of the example controller until SIGTERM (or
 * Ctrl-C), then stops it gracefully, which releases the shard's Lease or, for a restart
 * ({@code --on-stop}), keeps it marked restarting. With {@code --identity-pool} it first claims a
 * name of the Deployment's pool, waiting while all are held. Several processes with
 * different shard names form the controller's ring; in pods, the defaults of {@link CommandLine}
 * (pod name, pod namespace, the ServiceAccount's client configuration) make {@code --ring} the only
 * flag needed.
 *
 * <p>Before starting, one request (a read of the shard's Lease) checks that the API server is
 * reachable and lets the shard in; if not, one line on stderr says why and the exit code is 1. Bad
 * arguments print the problem and the usage to stderr, exit code 2; a setting found nowhere (no
 * shard name, no Lease namespace, no cluster) is one line on stderr, exit code 2.
 */
public final class ChecksumController {

    static final String NAME = "checksum-controller";
    static final int EXIT_FAILURE = 1;
    static final int EXIT_USAGE = Flags.USAGE_ERROR;
    /** Set in every pod: fabric8's auto-configuration then uses the pod's ServiceAccount. */
    static final String KUBERNETES_SERVICE_HOST = "KUBERNETES_SERVICE_HOST";

    static {
        // slf4j-simple, before the first logger exists: stdout carries only the reconcile lines, so logs go
        // to stderr, with time and logger name; -D options (CHECKSUM_CONTROLLER_JAVA_OPTS) take precedence
        defaultProperty("org.slf4j.simpleLogger.logFile", "System.err");
        defaultProperty("org.slf4j.simpleLogger.showDateTime", "true");
        defaultProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        defaultProperty("org.slf4j.simpleLogger.showThreadName", "false");
        defaultProperty("org.slf4j.simpleLogger.showShortLogName", "true");
    }

    private static final Logger LOG = LoggerFactory.getLogger(ChecksumController.class);
    /** The start check fails fast: no retries, short timeouts. */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);
    /** A claim of a pool name waits until a name is free or the command is stopped. */
    private static final Duration CLAIM_FOREVER = Duration.ofDays(3650);
    /** How long the shutdown hook waits for the shard to stop and release its Lease. */
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(40);

    /** Starts one shard of a checksum controller implementation; {@link ChecksumShard#start} is this one's. */
    @FunctionalInterface
    public interface Shards {

        /**
         * @return the running shard; closing it stops it gracefully and releases its Lease
         */
        RunningShard start(KubernetesClient client, ChecksumShard.Options options, Consumer<String> reconcileLog);

        /** Whether these shards can run in range mode ({@code --range-mode}); only {@link ChecksumShard}'s can. */
        default boolean rangeMode() {
            return false;
        }

        /** {@code shards}, range mode included. */
        static Shards withRangeMode(Shards shards) {
            return new Shards() {
                @Override
                public RunningShard start(KubernetesClient client, ChecksumShard.Options options,
                                          Consumer<String> reconcileLog) {
                    return shards.start(client, options, reconcileLog);
                }

                @Override
                public boolean rangeMode() {
                    return true;
                }
            };
        }
    }

    /** {@link ChecksumShard#start}, range mode included. */
    static final Shards CHECKSUM_SHARDS = Shards.withRangeMode(ChecksumShard::start);

    private ChecksumController() {
    }

    public static void main(String[] args) {
        main(NAME, CommandLine.USAGE, CHECKSUM_SHARDS, args);
    }

    /**
     * The command line of a checksum controller implementation: {@code name} in messages and the
     * shutdown hook's thread, {@code usage} for {@code --help} and bad arguments, {@code shards} to run.
     */
    public static void main(String name, String usage, Shards shards, String[] args) {
        // after a signal, the shard releases its Lease before the JVM ends
        StopOnSignal.run(name + "-shutdown", SHUTDOWN_TIMEOUT,
                stop -> run(name, usage, shards, Arrays.asList(args), System.out, System.err, stop));
    }

    /**
     * Runs the command line until {@code stop} is counted down.
     *
     * @param args the arguments
     * @param out  receives the usage for {@code --help}, and the reconcile lines
     * @param err  receives the errors
     * @param stop counted down to stop the shard (the shutdown hook does it on SIGTERM)
     * @return the exit code: 0 after a stop, 1 if the API server is unreachable or refuses the start
     *     check, 2 for bad arguments
     */
    static int run(List<String> args, PrintStream out, PrintStream err, CountDownLatch stop) {
        return run(NAME, CommandLine.USAGE, CHECKSUM_SHARDS, args, out, err, stop);
    }

    /** {@link #run(List, PrintStream, PrintStream, CountDownLatch)} of another implementation, see {@link #main(String, String, Shards, String[])}. */
    public static int run(String name, String usage, Shards shards, List<String> args, PrintStream out,
                          PrintStream err, CountDownLatch stop) {
        return run(name, usage, shards, args, out, err, stop, CommandLine.Environment.system(),
                () -> Config.autoConfigure(null));
    }

    /**
     * {@link #run(String, String, Shards, List, PrintStream, PrintStream, CountDownLatch)} with the
     * defaults taken from {@code environment} and, without {@code --kubeconfig}, the client
     * configuration from {@code autoConfiguration} (fabric8's {@code Config.autoConfigure(null)}: in a
     * pod its ServiceAccount, else {@code $KUBECONFIG} or {@code ~/.kube/config}).
     */
    public static int run(String name, String usage, Shards shards, List<String> args, PrintStream out,
                          PrintStream err, CountDownLatch stop, CommandLine.Environment environment,
                          Supplier<Config> autoConfiguration) {
        if (Flags.wantsHelp(args)) {
            out.print(usage);
            return 0;
        }
        CommandLine commandLine;
        try {
            commandLine = CommandLine.parse(args, environment);
        } catch (UsageException e) {
            if (e instanceof CommandLine.EnvironmentException) {
                return e.report(name, err);
            }
            err.println(name + ": " + e.getMessage());
            err.println();
            err.print(usage);
            return EXIT_USAGE;
        }
        if (commandLine.shard().rangeMode() && !shards.rangeMode()) {
            err.println(name + ": unknown flag " + CommandLine.RANGE_MODE);
            err.println();
            err.print(usage);
            return EXIT_USAGE;
        }
        Config config;
        if (commandLine.kubeconfig().isPresent()) {
            Path kubeconfig = commandLine.kubeconfig().get();
            try {
                config = Config.fromKubeconfig(kubeconfig.toFile());
            } catch (RuntimeException e) {
                err.println(name + ": cannot use kubeconfig " + kubeconfig + ": " + rootMessage(e));
                return EXIT_USAGE;
            }
        } else {
            try {
                config = autoConfiguration.get();
            } catch (RuntimeException e) {
                err.println(name + ": cannot configure the client from $KUBECONFIG or ~/.kube/config: "
                        + rootMessage(e) + " (give --kubeconfig FILE)");
                return EXIT_USAGE;
            }
            if (foundNoCluster(config, environment)) {
                err.println(name + ": no cluster to connect to: not in a pod ($" + KUBERNETES_SERVICE_HOST
                        + " is not set) and no kubeconfig ($KUBECONFIG, ~/.kube/config): give --kubeconfig FILE");
                return EXIT_USAGE;
            }
        }
        ChecksumShard.Options given = commandLine.shard();
        String problem = probe(config, given);
        if (problem != null) {
            err.println(name + ": " + problem);
            return EXIT_FAILURE;
        }
        MetricsEndpoint metrics = null;
        if (commandLine.metricsPort().isPresent()) {
            int port = commandLine.metricsPort().getAsInt();
            try {
                metrics = new MetricsEndpoint(port);
            } catch (IOException e) {
                err.println(name + ": cannot serve metrics on port " + port + ": " + e.getMessage());
                return EXIT_FAILURE;
            }
        }
        try (MetricsEndpoint served = metrics; KubernetesClient client = client(config)) {
            ChecksumShard.Options options = given;
            if (options.shard() == null) {
                try {
                    options = claim(client, options, stop);
                } catch (IllegalStateException e) {
                    err.println(name + ": " + e.getMessage());
                    return EXIT_FAILURE;
                }
                if (options == null) {
                    return 0; // stopped while waiting for a name
                }
            }
            try (RunningShard shard = shards.start(client, options, line -> {
                out.println(line);
                out.flush();
            })) {
                if (served != null) {
                    served.serve(shard);
                }
                LOG.info("{} shard {} of ring {} running against {}", name, options.shard(), options.ring(),
                        config.getMasterUrl());
                stop.await();
                LOG.info("Stopping shard {}", options.shard());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            err.println(name + ": " + rootMessage(e));
            return EXIT_FAILURE;
        }
        return 0;
    }

    /**
     * Claims a name of the options' identity pool, waiting while all are held, until {@code stop}:
     * the options with the name, or null if stopped first.
     *
     * @throws IllegalStateException if the pool's Deployment cannot be read
     */
    static ChecksumShard.Options claim(KubernetesClient client, ChecksumShard.Options options, CountDownLatch stop)
            throws InterruptedException {
        ExecutorService claimer = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "claim-" + options.identityPool().orElse("pool"));
            thread.setDaemon(true);
            return thread;
        });
        try {
            Future<ChecksumShard.Options> claim = claimer.submit(() -> options.claimShard(client, CLAIM_FOREVER));
            while (!claim.isDone()) {
                if (stop.await(100, TimeUnit.MILLISECONDS)) {
                    claim.cancel(true);
                    return null;
                }
            }
            try {
                return claim.get();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof IllegalStateException problem) {
                    throw problem;
                }
                throw new IllegalStateException("cannot claim a name of pool " + options.identityPool().orElse("?")
                        + ": " + rootMessage(e.getCause()), e.getCause());
            }
        } finally {
            claimer.shutdownNow();
        }
    }

    /**
     * Whether fabric8's auto-configuration found nothing: not in a pod, no kubeconfig context, so
     * it fell back to its default URL, which resolves only inside a cluster.
     */
    static boolean foundNoCluster(Config config, CommandLine.Environment environment) {
        return environment.variables().apply(KUBERNETES_SERVICE_HOST) == null
                && config.getCurrentContext() == null
                && config.getMasterUrl() != null
                && config.getMasterUrl().startsWith(Config.DEFAULT_MASTER_URL);
    }

    /**
     * Reads the shard's Lease once (with an identity pool: the pool's Deployment), without retries:
     * {@code null} if the API server answered (the Lease may not exist yet; the Deployment must), else a
     * one-line description of the failure.
     */
    static String probe(Config config, ChecksumShard.Options options) {
        Config fast = new ConfigBuilder(config)
                .withRequestRetryBackoffLimit(0)
                .withConnectionTimeout((int) PROBE_TIMEOUT.toMillis())
                .withRequestTimeout((int) PROBE_TIMEOUT.toMillis())
                .build();
        String what = options.shard() == null
                ? "Deployment " + options.leaseNamespace() + "/" + options.identityPool().orElseThrow()
                : "Lease " + options.leaseNamespace() + "/" + options.shard();
        try (KubernetesClient client = client(fast)) {
            if (options.shard() == null) {
                if (client.apps().deployments().inNamespace(options.leaseNamespace())
                        .withName(options.identityPool().orElseThrow()).get() == null) {
                    return what + " of --identity-pool does not exist";
                }
                return null;
            }
            client.leases().inNamespace(options.leaseNamespace()).withName(options.shard()).get();
            return null;
        } catch (KubernetesClientException e) {
            if (e.getCode() > 0) {
                return "the API server at " + config.getMasterUrl() + " refused to read " + what + ": HTTP " + e.getCode()
                        + (e.getStatus() != null && e.getStatus().getMessage() != null
                                ? " " + e.getStatus().getMessage() : "");
            }
            return "cannot reach the API server at " + config.getMasterUrl() + ": " + rootMessage(e);
        } catch (RuntimeException e) {
            return "cannot reach the API server at " + config.getMasterUrl() + ": " + rootMessage(e);
        }
    }

    private static KubernetesClient client(Config config) {
        return new KubernetesClientBuilder().withConfig(config)
                .withHttpClientFactory(new JdkHttpClientFactory())
                .build();
    }

    private static void defaultProperty(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /**
     * Why a request failed, on one line: an unknown host, a timeout, a TLS failure or a refused
     * connection by name, anything else by its innermost cause's message (its type if it has none).
     */
    static String rootMessage(Throwable failure) {
        return describe(failure).replaceAll("\\s+", " ").strip();
    }

    private static String describe(Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable cause = failure; cause != null && !chain.contains(cause); cause = cause.getCause()) {
            chain.add(cause);
        }
        for (Throwable cause : chain) {
            if (cause instanceof UnknownHostException || cause instanceof UnresolvedAddressException) {
                return "unknown host" + (cause.getMessage() == null ? "" : " " + cause.getMessage());
            }
        }
        for (Throwable cause : chain) {
            if (cause instanceof HttpTimeoutException || cause instanceof SocketTimeoutException) {
                return "timed out" + inParentheses(cause);
            }
            if (cause instanceof SSLException) {
                return "TLS failed" + inParentheses(cause);
            }
            if (cause instanceof ConnectException) {
                // the JDK client's refused connection carries no message
                return cause.getMessage() == null ? "connection refused" : "cannot connect" + inParentheses(cause);
            }
        }
        Throwable root = chain.get(chain.size() - 1);
        return root.getMessage() == null || root.getMessage().isBlank()
                ? root.getClass().getSimpleName() : root.getMessage();
    }

    private static String inParentheses(Throwable cause) {
        return cause.getMessage() == null ? "" : " (" + cause.getMessage() + ")";
    }
}
