package dev.ringmaster.bench;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.apiserver.ApiServerLink;
import dev.ringmaster.testing.apiserver.RealApiServer;
import dev.ringmaster.testing.rings.Rings;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real API server (kube-api-test) with the ClusterRing CRD, and the distribution's processes run
 * against it from a copy of the distribution: {@code bin/ringmaster run} with its webhook on a free
 * port of 127.0.0.1, {@code bin/checksum-controller} shards. Every process gets a ServiceAccount
 * token of its own, bound to cluster-admin: benchmarks measure speed (RBAC as shipped is tested in
 * itests), and the audit log tells the accounts apart. With {@link #link()}, they reach the API server
 * through a link that can be taken down. Closing stops every process started.
 */
public final class BenchCluster implements AutoCloseable {

    public static final String SYSTEM_NAMESPACE = "sharding-system";
    private static final String CRD = "manifests/crd/clusterrings.sharding.timebertt.dev-v1.yml";
    private static final Pattern PORT = Pattern.compile("(?m)^port = (\\d+)$");

    private final RealApiServer server;
    private final KubernetesClient admin;
    private final Path work;
    private final Path home;
    private final Map<String, String> sharderSettings;
    private final List<Process> processes = new ArrayList<>();
    private BenchCertificate certificate;
    private ApiServerLink link;

    /**
     * Copies {@code distribution} into {@code work} and installs the CRD.
     *
     * @param sharderSettings keys of {@code etc/dev.ringmaster.sharder.cfg} to set, e.g. {@code moveBudget}
     */
    public BenchCluster(Path distribution, Path work, Map<String, String> sharderSettings) throws Exception {
        this(RealApiServer.shared(), distribution, work, sharderSettings);
    }

    /** The same on {@code server}, e.g. {@link RealApiServer#shardedListAndWatch()} for range mode. */
    public BenchCluster(RealApiServer server, Path distribution, Path work, Map<String, String> sharderSettings)
            throws Exception {
        this.server = server;
        this.admin = server.admin();
        this.work = Files.createDirectories(work);
        this.home = work.resolve("ringmaster");
        this.sharderSettings = Map.copyOf(sharderSettings);
        exec(List.of("rm", "-rf", home.toString()));
        exec(List.of("cp", "-a", distribution.toAbsolutePath().toString(), home.toString()));
        Map<String, String> settings = new LinkedHashMap<>(sharderSettings);
        settings.putIfAbsent("identity", "sharder"); // else $HOSTNAME, the same for every replica
        configure(home, settings);
        try (InputStream crd = Files.newInputStream(home.resolve(CRD))) {
            for (HasMetadata resource : admin.load(crd).items()) {
                admin.resource(resource).forceConflicts().serverSideApply();
            }
        }
        if (!waitUntil(Duration.ofSeconds(30), this::servesClusterRings)) {
            throw new IllegalStateException("the ClusterRing CRD was not established within 30 s");
        }
    }

    /** Ports of its own on 127.0.0.1 for {@code /readyz}… and the webhook, and the sharder settings. */
    private static void configure(Path home, Map<String, String> sharderSettings) throws IOException {
        // both sockets open while the ports are chosen: a port closed at once may be handed out again
        try (ServerSocket ops = new ServerSocket(0); ServerSocket webhookSocket = new ServerSocket(0)) {
            Files.writeString(home.resolve("etc/dev.ringmaster.ops.http.cfg"), "host = 127.0.0.1\nport = "
                    + ops.getLocalPort() + "\n");
            Path webhook = home.resolve("etc/dev.ringmaster.webhook.cfg");
            Files.writeString(webhook, Files.readString(webhook).replaceAll("(?m)^host = .*$", "host = 127.0.0.1")
                    .replaceAll("(?m)^port = .*$", "port = " + webhookSocket.getLocalPort()));
        }
        Path sharder = home.resolve("etc/dev.ringmaster.sharder.cfg");
        String config = Files.readString(sharder);
        for (Map.Entry<String, String> setting : sharderSettings.entrySet()) {
            config = config.replaceAll("(?m)^" + Pattern.quote(setting.getKey()) + " =.*$",
                    Matcher.quoteReplacement(setting.getKey() + " = " + setting.getValue()));
        }
        Files.writeString(sharder, config);
    }

    /** {@code key=value,...} as {@link #BenchCluster}'s sharder settings. */
    public static Map<String, String> settings(String keyValues) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String setting : keyValues.split(",")) {
            if (!setting.isBlank()) {
                String[] keyValue = setting.split("=", 2);
                settings.put(keyValue[0].trim(), keyValue[1].trim());
            }
        }
        return settings;
    }

    public RealApiServer server() {
        return server;
    }

    public KubernetesClient admin() {
        return admin;
    }

    /**
     * The link through which every process started from now on (sharders, shards, {@link #clientAs}
     * clients) reaches the API server, created on first use; {@link #admin()} keeps the direct way.
     */
    public ApiServerLink link() {
        if (link == null) {
            link = ApiServerLink.to(admin.getConfiguration().getMasterUrl());
        }
        return link;
    }

    /** A namespace, and a ClusterRing over the ConfigMaps of that namespace alone. */
    public void configMapRing(String ring, String namespace) {
        configMapRing(ring, namespace, false);
    }

    /**
     * A namespace, and a ClusterRing over the ConfigMaps of that namespace alone; with
     * {@code controlledSecrets}, the Secrets they control follow them (docs/install.md's ring).
     */
    public void configMapRing(String ring, String namespace, boolean controlledSecrets) {
        namespace(namespace);
        Rings.configMapRing(admin, RingKind.CLUSTER_RING, ring, namespace, controlledSecrets);
    }

    /** Creates or replaces a ClusterRing from the YAML of its {@code spec}, indented by two spaces. */
    public void clusterRing(String name, String spec) {
        Rings.apply(admin, RingKind.CLUSTER_RING, name, spec);
    }

    /** A shard Lease as a live shard keeps it, renewed now for an hour: no process needs to run for it. */
    public void liveShardLease(String ring, String namespace, String shard) {
        namespace(namespace);
        Rings.liveShardLease(admin, RingKind.CLUSTER_RING, namespace, shard, ring);
    }

    private void namespace(String name) {
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
                .serverSideApply();
    }

    /**
     * Starts {@code bin/ringmaster run} with its webhook called back by the API server, and waits until
     * {@code /readyz} answers 200.
     *
     * @return the sharder's process (its pid is the JVM's: the script execs java)
     */
    public Process startSharder(String jvmOptions) throws Exception {
        return startSharder(home, "sharder", jvmOptions);
    }

    /**
     * Starts one of several sharder replicas: {@code bin/ringmaster run} from a copy of the distribution
     * of its own (ports of its own, {@code identity} as its leader election identity, its own token),
     * with its webhook called back by the API server while it leads; waits until {@code /readyz}
     * answers 200. The leader is whoever holds {@link #electionHolder()}.
     */
    public Process startReplica(String identity, String jvmOptions) throws Exception {
        Path replica = work.resolve(identity);
        exec(List.of("rm", "-rf", replica.toString()));
        exec(List.of("cp", "-a", home.toString(), replica.toString()));
        Map<String, String> settings = new LinkedHashMap<>(sharderSettings);
        settings.put("identity", identity);
        configure(replica, settings);
        return startSharder(replica, identity, jvmOptions);
    }

    private Process startSharder(Path sharderHome, String name, String jvmOptions) throws Exception {
        namespace(SYSTEM_NAMESPACE);
        if (certificate == null) {
            certificate = BenchCertificate.create(work.resolve("tls"));
        }
        ProcessBuilder sharder = new ProcessBuilder(sharderHome.resolve("bin/ringmaster").toString(), "run",
                "--kubeconfig", kubeconfig(SYSTEM_NAMESPACE, "sharder", name).toString(), "--namespace", SYSTEM_NAMESPACE,
                "--tls-dir", certificate.directory().toString(),
                "--webhook-url", "https://127.0.0.1:" + port(sharderHome, "etc/dev.ringmaster.webhook.cfg"),
                "--webhook-ca", certificate.directory().resolve("tls.crt").toString());
        sharder.environment().put("RINGMASTER_JAVA_OPTS", jvmOptions);
        Process process = start(sharder, name);
        int opsPort = port(sharderHome, "etc/dev.ringmaster.ops.http.cfg");
        if (!waitUntil(Duration.ofSeconds(90), () -> ready("http://127.0.0.1:" + opsPort + "/readyz"))) {
            throw new IllegalStateException("the sharder did not become ready; see " + work.resolve(name + ".log"));
        }
        return process;
    }

    /** The holder of the sharder replicas' leader election Lease, empty if none. */
    public String electionHolder() {
        Lease election = admin.leases().inNamespace(SYSTEM_NAMESPACE).withName("sharder").get();
        return election == null || election.getSpec().getHolderIdentity() == null ? ""
                : election.getSpec().getHolderIdentity();
    }

    /** The log (standard error) of the process started as {@code name}, e.g. {@code sharder} or {@code shard-3}. */
    public Path log(String name) {
        return work.resolve(name + ".log");
    }

    /** The first sharder's webhook port on 127.0.0.1. */
    public int webhookPort() throws IOException {
        return port(home, "etc/dev.ringmaster.webhook.cfg");
    }

    /** The self-signed certificate the sharder's webhook serves (once started). */
    public BenchCertificate webhookCertificate() {
        return certificate;
    }

    /** Starts {@code bin/checksum-controller} as {@code shard} of {@code ring}, watching {@code namespace}. */
    public Process startShard(String ring, String namespace, String shard, String jvmOptions) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(home.resolve("bin/checksum-controller").toString(),
                "--kubeconfig", kubeconfig(namespace, shard, shard).toString(), "--ring", ring, "--shard-name", shard,
                "--namespace", namespace, "--watch-namespace", namespace);
        builder.environment().put("CHECKSUM_CONTROLLER_JAVA_OPTS", jvmOptions);
        return start(builder, shard);
    }

    /**
     * A client of the bench itself authenticating as the ServiceAccount {@code account} of
     * {@code namespace}, bound to cluster-admin as the processes' accounts are: what it writes counts
     * as that account's in the audit log.
     */
    public KubernetesClient clientAs(String namespace, String account) {
        return server.clientFor(kubeconfig(namespace, account, account));
    }

    /**
     * A kubeconfig {@code work/<file>.kubeconfig} with a token of its own for the ServiceAccount, through
     * the {@link #link()} if there is one.
     */
    private Path kubeconfig(String namespace, String account, String file) {
        Path kubeconfig = server.serviceAccountKubeconfig(namespace, account, work.resolve(file + ".kubeconfig"));
        if (link != null) {
            link.reroute(kubeconfig);
        }
        admin.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata()
                .withName("bench-" + namespace + "-" + account).endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "cluster-admin")
                .addNewSubject().withKind("ServiceAccount").withNamespace(namespace).withName(account).endSubject()
                .build()).serverSideApply();
        return kubeconfig;
    }

    private Process start(ProcessBuilder builder, String name) throws IOException {
        Process process = builder.redirectOutput(work.resolve(name + ".out").toFile())
                .redirectError(work.resolve(name + ".log").toFile()).start();
        processes.add(process);
        return process;
    }

    private static int port(Path home, String configFile) throws IOException {
        Matcher port = PORT.matcher(Files.readString(home.resolve(configFile)));
        if (!port.find()) {
            throw new IllegalStateException("no port in " + configFile);
        }
        return Integer.parseInt(port.group(1));
    }

    private boolean servesClusterRings() {
        try {
            admin.genericKubernetesResources("sharding.timebertt.dev/v1alpha1", "ClusterRing").list();
            return true;
        } catch (RuntimeException notYet) {
            return false;
        }
    }

    @Override
    public void close() throws InterruptedException {
        processes.forEach(Process::destroy);
        for (Process process : processes) {
            process.waitFor(30, TimeUnit.SECONDS);
        }
        if (link != null) {
            link.close();
        }
    }

    /** Polls every 100 ms until the condition holds or the time is up; whether it held. */
    public static boolean waitUntil(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(100);
        }
        return condition.getAsBoolean();
    }

    /** Runs a command to its end; its output, or an exception if it failed. */
    public static String exec(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(command + " failed: " + output);
        }
        return output;
    }

    private static boolean ready(String url) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2))
                    .build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
