package dev.ringmaster.clustertests.support;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * The one cluster of a test run, shared by every scenario: a real one-node Kubernetes v1.32 cluster
 * ({@code ../shared/k8s/node-up}: API server, etcd, containerd, kubelet, controller-manager, scheduler)
 * with Ringmaster installed in it as docs/install.md tells a user.
 *
 * <p>The first {@link #get()} provisions it, timing every phase:
 * <ol>
 * <li>waits for a provisioning under way: {@code .ci/run} installs the tier's packages and builds the base image
 * in the background while Maven builds the modules the tier needs, holding the file named in
 * {@code RINGMASTER_PROVISIONING_LOCK} locked until it is done ({@link #awaitProvisioning});</li>
 * <li>checks that this machine can: {@code node-up} exists ({@code -Dcluster.tests.k8s}, default
 * {@code ../shared/k8s} beside the repository), the JVM runs as root, buildah is there or
 * {@code apt-get install -y buildah} installs it, the distribution was built;</li>
 * <li>builds the sharder's and the example shards' images with buildah ({@link Images}), and meanwhile stops
 * what an earlier run may have left ({@code node-down}) and starts the cluster with {@code node-up}; then imports
 * the images into its containerd and gives its pods their CPU share ({@link #favourPods}); the cluster has its own
 * run folder under {@code target/} and its own ports
 * (API server 26443, etcd 22379/22380 unless {@code -Dcluster.tests.apiserver.port} etc.), so it
 * never meets the real-API-server tier's servers; stopped again by {@code node-down} at JVM exit
 * (unless {@code -Dcluster.tests.keep=true}, for looking around after a run);</li>
 * <li>installs the sharder: {@code kubectl apply -k} of the base with the Component
 * {@code manifests/admission-policies}, {@code kubectl -n sharding-system rollout status
 * deployment/sharder} ({@link SharderInstall}).</li>
 * </ol>
 * A machine that cannot run the tier ({@link Unavailable}) gets a banner saying why, and the scenarios
 * are skipped (JUnit assumptions) — unless {@code CI=true}, where they fail. A failure of what is
 * tested (an image that does not build, an install that does not roll out) fails them everywhere.
 */
public final class NodeCluster {

    public static final String VERSION = System.getProperty("cluster.tests.version", "0.1.0-SNAPSHOT");
    public static final boolean CI = "true".equals(System.getenv("CI"));
    /** The CPU weight of the node's pods against the machine's other processes ({@link #favourPods}). */
    static final int POD_CPU_SHARES = 8192;
    /** The longest the tier waits for what {@code .ci/run} provisions beside the build ({@link #awaitProvisioning}). */
    private static final Duration PROVISIONING_WAIT = Duration.ofMinutes(15);
    /** containerd's cgroup of every container of the node (cgroup v1 cpu controller). */
    private static final Path POD_CGROUP = Path.of("/sys/fs/cgroup/cpu/k8s.io");

    private static NodeCluster cluster;
    private static Unavailable unavailable;
    private static RuntimeException failed;
    private static final Map<String, Duration> PHASES = new LinkedHashMap<>();

    private final Path root;
    private final Path k8s;
    private final Path work;
    private final Path runDir;
    private final Map<String, String> nodeEnv;
    private Path kubeconfig;
    private KubernetesClient admin;
    private final Map<String, Examples> examples = new LinkedHashMap<>();
    private SharderInstall install;
    /** The pods' CPU weight before {@link #favourPods}, written back when the cluster stops: the cgroup outlives it. */
    private String machinePodShares;
    private final Set<SharderInstall.Extra> extras = EnumSet.noneOf(SharderInstall.Extra.class);

    private NodeCluster(Path root, Path k8s, Path work) {
        this.root = root;
        this.k8s = k8s;
        this.work = work;
        this.runDir = work.resolve("k8s");
        this.nodeEnv = Map.of("K8S_RUN_DIR", runDir.toString(),
                "APISERVER_PORT", System.getProperty("cluster.tests.apiserver.port", "26443"),
                "ETCD_CLIENT_PORT", System.getProperty("cluster.tests.etcd.client.port", "22379"),
                "ETCD_PEER_PORT", System.getProperty("cluster.tests.etcd.peer.port", "22380"));
    }

    /**
     * The cluster with the sharder installed, provisioned on the first call. Skips the calling test
     * (JUnit assumption) with a banner if this machine cannot provision it, or fails it when
     * {@code CI=true}.
     */
    public static synchronized NodeCluster get() {
        if (cluster == null && unavailable == null && failed == null) {
            provision();
        }
        if (failed != null) {
            throw new AssertionError("cluster-tests: provisioning the cluster failed (see the first failure): "
                    + failed.getMessage(), failed);
        }
        if (unavailable != null) {
            String banner = banner(unavailable.getMessage());
            if (CI) {
                throw new AssertionError(banner, unavailable);
            }
            Assumptions.abort(banner);
        }
        return cluster;
    }

    private static void provision() {
        Path root = Path.of(System.getProperty("cluster.tests.root", "..")).toAbsolutePath().normalize();
        Path k8s = Path.of(System.getProperty("cluster.tests.k8s", root.resolve("../shared/k8s").toString()))
                .toAbsolutePath().normalize();
        Path work = Path.of(System.getProperty("cluster.tests.work", "target/cluster")).toAbsolutePath().normalize();
        NodeCluster candidate = new NodeCluster(root, k8s, work);
        try {
            candidate.start();
            cluster = candidate;
            System.err.println("cluster-tests: cluster ready; " + phases()
                    + "\n  kubectl --kubeconfig " + candidate.kubeconfig + " get pods -A");
        } catch (Unavailable e) {
            unavailable = e;
            System.err.println(banner(e.getMessage()));
        } catch (RuntimeException | AssertionError e) {
            failed = e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getMessage(), e);
            System.err.println("cluster-tests: provisioning failed after " + phases() + ":\n" + e.getMessage());
        }
    }

    private void start() throws Unavailable {
        timed("provisioning wait", this::awaitProvisioning);
        timed("prerequisites", this::checkPrerequisites);
        timed("base image", () -> {
            Command.Result base = Command.run(root, Map.of(), Duration.ofMinutes(10), List.of(k8s.resolve("base-image").toString()));
            if (!base.ok()) {
                throw new Unavailable("../shared/k8s/base-image failed:\n" + base.describe());
            }
            return null;
        });
        // the node starts while the images build (each takes tens of seconds, mostly apart from the other); the
        // images are imported once both are done
        ExecutorService starter = Executors.newSingleThreadExecutor(task -> new Thread(task, "cluster-tests-node-up"));
        Future<Void> nodeUp = starter.submit(() -> timed("node-up", this::nodeUp));
        List<Path> archives;
        try {
            archives = timed("image build", () -> {
                Images images = new Images(root, work);
                List<Path> built = new ArrayList<>();
                for (Images.Image image : images.images(VERSION)) {
                    built.add(images.build(image));
                }
                images.pruneDangling();
                return built;
            });
        } finally {
            starter.shutdown();
        }
        awaitNodeUp(nodeUp);
        timed("pods' CPU share", this::favourPods);
        timed("image import", () -> {
            for (Path archive : archives) {
                ctr("images", "import", archive.toString()).orThrow();
            }
            return null;
        });
        timed("install", () -> {
            install = new SharderInstall(this);
            install.install();
            return null;
        });
    }

    /** {@code node-up} without the tier's images, after any earlier run's cluster is down. */
    private Void nodeUp() throws Unavailable {
        nodeDown("an earlier run's cluster");
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "cluster-tests-node-down"));
        Command.Result up = Command.run(root, nodeEnv, Duration.ofMinutes(5), List.of(k8s.resolve("node-up").toString()));
        if (!up.ok()) {
            throw new Unavailable("../shared/k8s/node-up failed (run folder " + runDir + "):\n" + up.describe());
        }
        kubeconfig = Path.of(up.lastLine());
        admin = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig.toFile())).build();
        if (!nodeReady()) {
            throw new Unavailable("node-up returned, but no node is Ready (see " + runDir.resolve("kubelet.log") + ")");
        }
        return null;
    }

    /**
     * Gives the node's pods the CPU share that a node's pods have, against this machine's other processes. node-up's
     * kubelet runs without QoS cgroups, so containerd puts every container under one cgroup, {@code k8s.io}, with
     * the default weight of a single thread (cgroup v1 {@code cpu.shares} 1024), while the integration tests' JVMs,
     * API servers and shards run beside it as dozens of threads of that weight each: the pods got a
     * small part of the two cores whenever the integration tests ran, and the tier waited for them (rolling the
     * sharder's Deployment took twice as long; docs/development.md). With the weight of {@value #POD_CPU_SHARES}
     * (eight such threads; {@code -Dcluster.tests.pod.cpu.shares}, 1024 as node-up leaves it) the pods get the CPU
     * when they need it, and the rest of the machine whatever they leave. A machine without the v1 cpu controller,
     * or one that refuses the setting, keeps its own, said once: it changes how fast the tier runs, not what it checks.
     * The weight the machine had is written back when the cluster stops ({@link #restorePodShares}).
     */
    private Void favourPods() {
        if (!Files.isRegularFile(POD_CGROUP.resolveSibling("cpu.shares"))) {
            System.err.println("cluster-tests: no cgroup v1 cpu controller at " + POD_CGROUP.getParent()
                    + "; the pods keep the CPU share the machine gives them");
            return null;
        }
        String shares = Integer.getInteger("cluster.tests.pod.cpu.shares", POD_CPU_SHARES).toString();
        try {
            Path file = Files.createDirectories(POD_CGROUP).resolve("cpu.shares");
            machinePodShares = Files.readString(file).strip();
            Files.writeString(file, shares);
        } catch (IOException e) {
            System.err.println("cluster-tests: could not give the pods " + shares + " CPU shares (" + e
                    + "); they keep the machine's setting");
        }
        return null;
    }

    /** Waits for {@link #nodeUp} started beside the image build, with its failure as its own. */
    private static void awaitNodeUp(Future<Void> nodeUp) throws Unavailable {
        try {
            nodeUp.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the node started", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Unavailable unavailable) {
                throw unavailable;
            }
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
        }
    }

    /**
     * Returns once no one holds the lock {@code .ci/run} names in {@code RINGMASTER_PROVISIONING_LOCK} (at once where
     * none is named). Past the timeout the tier goes on: what the provisioning did not finish, the next phases do
     * themselves.
     */
    private Void awaitProvisioning() {
        String lock = System.getenv("RINGMASTER_PROVISIONING_LOCK");
        if (lock != null && !lock.isBlank()) {
            Command.Result waited = Command.run(root, Map.of(), PROVISIONING_WAIT.plusMinutes(1),
                    List.of("flock", "--shared", "--wait", Long.toString(PROVISIONING_WAIT.toSeconds()), lock, "true"));
            if (!waited.ok()) {
                System.err.println("cluster-tests: the provisioning holding " + lock + " did not end in "
                        + PROVISIONING_WAIT.toMinutes() + " min, going on:\n" + waited.describe());
            }
        }
        return null;
    }

    private Void checkPrerequisites() throws Unavailable, IOException {
        if (!Files.isExecutable(k8s.resolve("node-up"))) {
            throw new Unavailable("no " + k8s.resolve("node-up") + " (set -Dcluster.tests.k8s=DIR to the folder of"
                    + " node-up, node-down and base-image)");
        }
        Command.Result id = Command.run(root, Map.of(), Duration.ofSeconds(10), List.of("id", "-u"));
        if (!id.ok() || !id.out().strip().equals("0")) {
            throw new Unavailable("node-up needs root (containerd, kubelet, iptables); this JVM runs as uid "
                    + id.out().strip());
        }
        if (!onPath("buildah")) {
            Command.Result install = Command.run(root, Map.of("DEBIAN_FRONTEND", "noninteractive"), Duration.ofMinutes(5),
                    List.of("apt-get", "install", "-y", "-q", "buildah"));
            if (!install.ok() || !onPath("buildah")) {
                throw new Unavailable("buildah is not installed and `apt-get install -y buildah` failed:\n" + install.describe());
            }
        }
        Path distribution = root.resolve("distribution/target/ringmaster/bin/ringmaster");
        if (!Files.isRegularFile(distribution)) {
            throw new IllegalStateException("no " + distribution + ": build the distribution first"
                    + " (mvn -B install -DskipTests)");
        }
        Files.createDirectories(work);
        Path logs = work.resolve("logs");
        if (Files.isDirectory(logs)) {
            try (Stream<Path> old = Files.walk(logs)) {
                old.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
            }
        }
        return null;
    }

    private boolean onPath(String command) {
        return Command.run(root, Map.of(), Duration.ofSeconds(10), List.of("sh", "-c", "command -v " + command)).ok();
    }

    private boolean nodeReady() {
        try {
            Waiting.until(Duration.ofSeconds(60), () -> "node Ready", () -> admin.nodes().list().getItems().stream()
                    .map(Node::getStatus).flatMap(status -> status.getConditions().stream())
                    .anyMatch(condition -> "Ready".equals(condition.getType()) && "True".equals(condition.getStatus())));
            return true;
        } catch (AssertionError e) {
            return false;
        }
    }

    private void nodeDown(String what) {
        boolean running;
        try (Stream<Path> pids = Files.isDirectory(runDir) ? Files.list(runDir) : Stream.empty()) {
            running = pids.anyMatch(file -> file.getFileName().toString().endsWith(".pid"));
        } catch (IOException e) {
            running = false;
        }
        if (running) {
            Command.Result down = Command.run(root, nodeEnv, Duration.ofMinutes(3), List.of(k8s.resolve("node-down").toString()));
            System.err.println("cluster-tests: node-down (" + what + "): exit " + down.exit() + " in "
                    + down.took().toMillis() + " ms");
        }
    }

    private void stop() {
        System.err.println("cluster-tests: " + phases());
        if (admin != null) {
            admin.close();
        }
        examples.values().forEach(Examples::stopLogs);
        if (Boolean.getBoolean("cluster.tests.keep")) {
            System.err.println("cluster-tests: -Dcluster.tests.keep=true, the cluster keeps running: kubectl --kubeconfig "
                    + kubeconfig + "; stop it with K8S_RUN_DIR=" + runDir + " " + k8s.resolve("node-down"));
            return;
        }
        nodeDown("end of the run");
        restorePodShares();
    }

    /** Writes back the pods' CPU weight {@link #favourPods} found, if it changed it. */
    private void restorePodShares() {
        if (machinePodShares != null) {
            try {
                Files.writeString(POD_CGROUP.resolve("cpu.shares"), machinePodShares);
            } catch (IOException e) {
                System.err.println("cluster-tests: could not write the pods' CPU shares back to " + machinePodShares
                        + " (" + e + ")");
            }
        }
    }

    /** Runs one phase of the provisioning and records how long it took. */
    private static <T> T timed(String phase, Callable<T> work) throws Unavailable {
        long started = System.nanoTime();
        try {
            return work.call();
        } catch (Unavailable | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(phase + ": " + e.getMessage(), e);
        } finally {
            record(phase, Duration.ofNanos(System.nanoTime() - started));
        }
    }

    /**
     * Records how long a phase took (provisioning or a scenario), for the summary printed at the end. Guarded by
     * {@code PHASES}, not the class: node-up records from its own thread while {@link #get()} holds the class.
     */
    public static void record(String phase, Duration took) {
        synchronized (PHASES) {
            PHASES.merge(phase, took, Duration::plus);
        }
        System.err.printf(Locale.ROOT, "cluster-tests: %s took %.1f s%n", phase, took.toMillis() / 1000.0);
    }

    /** Every phase so far with its time. */
    public static String phases() {
        synchronized (PHASES) {
            return "times: " + PHASES.entrySet().stream()
                    .map(phase -> String.format(Locale.ROOT, "%s %.1f s", phase.getKey(), phase.getValue().toMillis() / 1000.0))
                    .collect(Collectors.joining(", "));
        }
    }

    private static String banner(String reason) {
        String line = "#".repeat(100);
        return "\n" + line + "\n#\n# cluster-tests: CANNOT RUN THE REAL-CLUSTER TIER ON THIS MACHINE"
                + (CI ? " (CI=true: failing)" : " (skipping every *ClusterIT; CI=true would fail)") + "\n#\n"
                + reason.lines().map(text -> "#   " + text).collect(Collectors.joining("\n")) + "\n#\n" + line + "\n";
    }

    /** The repository's root (Dockerfiles, {@code manifests/}, {@code examples/manifests/}). */
    public Path root() {
        return root;
    }

    /** Where the tier keeps its files: image archives, the cluster's run folder, pod logs. */
    public Path work() {
        return work;
    }

    /** The cluster's containerd socket, for {@code ctr}. */
    public Path containerdSocket() {
        return runDir.resolve("containerd/containerd.sock");
    }

    public Path kubeconfig() {
        return kubeconfig;
    }

    /** A client with the cluster's admin credentials. */
    public KubernetesClient admin() {
        return admin;
    }

    /** {@code kubectl ARGS} with the cluster's admin kubeconfig, in the repository's root; at most 4 minutes. */
    public Command.Result kubectl(String... args) {
        List<String> command = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString()));
        command.addAll(List.of(args));
        return Command.run(root, Map.of(), Duration.ofMinutes(4), command);
    }

    /** {@code ctr -n k8s.io ARGS} against the cluster's containerd. */
    public Command.Result ctr(String... args) {
        List<String> command = new ArrayList<>(List.of("ctr", "-a", containerdSocket().toString(), "-n", "k8s.io"));
        command.addAll(List.of(args));
        return Command.run(root, Map.of(), Duration.ofMinutes(1), command);
    }

    /**
     * Builds the image {@code name} ({@code NAME:TAG}) from {@code containerfile} with the build context
     * {@code context} as the tier builds its own ({@link Images}; its {@code FROM} may name one of them as
     * {@code localhost/NAME:TAG}), and imports it into the node's containerd, where a manifest's
     * {@code NAME:TAG} finds it. Timed as the phase "image NAME".
     */
    public void buildImage(String name, Path containerfile, Path context) {
        long started = System.nanoTime();
        try {
            Path archive = new Images(root, work).build(new Images.Image(name, containerfile, context));
            ctr("images", "import", archive.toString()).orThrow();
        } finally {
            record("image " + name, Duration.ofNanos(System.nanoTime() - started));
        }
    }

    /**
     * Adds {@code extra} to the install (with the extras added before: a scenario that adds one keeps
     * the others) and waits for the sharder's rollout; nothing if it is there already. Timed as the
     * phase "install + EXTRA".
     */
    public synchronized void installWith(SharderInstall.Extra extra) {
        if (extras.add(extra)) {
            apply("install + " + extra);
        }
    }

    /** Takes {@code extra} out of the install again (its cluster-wide objects stay, as after a user's apply). */
    public synchronized void installWithout(SharderInstall.Extra extra) {
        if (extras.remove(extra)) {
            apply("install - " + extra);
        }
    }

    private void apply(String phase) {
        long started = System.nanoTime();
        try {
            install.install(extras);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            record(phase, Duration.ofNanos(System.nanoTime() - started));
        }
    }

    /**
     * The example shards of {@code examples/manifests/<variant>}, applied on first use (and timed as
     * the phase "examples <variant>"), their pods' logs collected from then on. The variants share a
     * namespace and their rings the same ConfigMaps, so another variant installed before is deleted
     * first ({@code kubectl delete -k}), as docs/example-shards.md tells a user to.
     */
    public synchronized Examples examples(String variant) {
        Examples installed = examples.get(variant);
        if (installed == null) {
            long started = System.nanoTime();
            for (Examples other : List.copyOf(examples.values())) {
                other.uninstall();
                examples.remove(other.variant());
            }
            installed = Examples.install(this, variant);
            record("install examples/" + variant, Duration.ofNanos(System.nanoTime() - started));
            examples.put(variant, installed);
        }
        return installed;
    }
}
