package dev.ringmaster.sandbox;

import dev.ringmaster.launcher.run.RunFlag;
import dev.ringmaster.ring.RingContract;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The sandbox's own configuration folder, which File Install watches as it watches {@code etc/} in
 * {@code run}: a copy of the distribution's {@code etc/*.cfg} with the settings that point the
 * sharder at the embedded API server (and never at a real cluster, whatever the operator's files
 * say), switch the webhook off (the unassigned-object watch assigns every object) and keep every
 * listener on the loopback interface. The webhook's own file is left out, so no HTTPS server starts.
 */
final class SandboxEtc {

    static final String OPS_PID = "dev.ringmaster.ops.http";
    static final String IDENTITY = "sandbox-sharder";
    /** The sandbox starts as {@code run} does, with the sharder's default strategy. */
    static final String INITIAL_STRATEGY = RingContract.DEFAULT_STRATEGY;

    private final Path root;
    private final Path etc;
    private final Path kubeconfig;

    private SandboxEtc(Path root) {
        this.root = root;
        this.etc = root.resolve("etc");
        this.kubeconfig = root.resolve("kubeconfig.yaml");
    }

    /**
     * Writes the folder under {@code root}.
     *
     * @param home      the distribution, whose {@code etc/} is copied
     * @param root      an empty folder of the sandbox's own
     * @param apiServer URL of the embedded API server
     * @param opsPort   port of {@code /metrics}, {@code /healthz} and {@code /readyz} on 127.0.0.1
     */
    static SandboxEtc write(Path home, Path root, String apiServer, int opsPort) throws IOException {
        SandboxEtc sandbox = new SandboxEtc(root);
        Files.createDirectories(sandbox.etc);
        Path shipped = home.resolve("etc");
        if (Files.isDirectory(shipped)) {
            try (Stream<Path> files = Files.list(shipped)) {
                for (Path file : files.filter(SandboxEtc::isCfg).toList()) {
                    if (!file.getFileName().toString().equals(RunFlag.WEBHOOK_PID + ".cfg")) {
                        Files.copy(file, sandbox.etc.resolve(file.getFileName()));
                    }
                }
            }
        }
        Files.writeString(sandbox.kubeconfig, kubeconfig(apiServer), StandardCharsets.UTF_8);
        Map<String, String> kubernetes = keys(RunFlag.KUBECONFIG, RunFlag.KUBERNETES_PID, sandbox.kubeconfig.toString());
        kubernetes.put("masterUrl", apiServer);
        kubernetes.put("trustCerts", "true");
        sandbox.override(RunFlag.KUBERNETES_PID, kubernetes);
        Map<String, String> sharder = keys(RunFlag.DEFAULT_STRATEGY, RunFlag.SHARDER_PID, INITIAL_STRATEGY);
        sharder.put("leaseDetector", "default");
        sharder.put("resourceInterpreter", "default");
        sharder.putAll(keys(RunFlag.NAMESPACE, RunFlag.SHARDER_PID, RingContract.SYSTEM_NAMESPACE));
        sharder.put("leaderElectionLease", "sharder");
        sharder.put("identity", IDENTITY);
        sharder.putAll(keys(RunFlag.WEBHOOK_MODE, RunFlag.SHARDER_PID, "off"));
        sandbox.override(RunFlag.SHARDER_PID, sharder);
        sandbox.override(OPS_PID, Map.of("host", "127.0.0.1", "port", String.valueOf(opsPort)));
        return sandbox;
    }

    /** The folder File Install watches. */
    Path dir() {
        return etc;
    }

    /** The kubeconfig of the embedded API server that the sharder uses. */
    Path kubeconfig() {
        return kubeconfig;
    }

    /** Sets the sharder's default strategy as an operator would: by saving its file. File Install applies it. */
    void defaultStrategy(String strategy) throws IOException {
        override(RunFlag.SHARDER_PID, keys(RunFlag.DEFAULT_STRATEGY, RunFlag.SHARDER_PID, strategy));
    }

    /**
     * Rewrites one PID's file with some values set. The new text is written next to the folder and
     * moved in, so File Install never reads a half-written file.
     */
    void override(String pid, Map<String, String> values) throws IOException {
        Path file = etc.resolve(pid + ".cfg");
        String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        Path staged = root.resolve(pid + ".cfg.staged");
        Files.writeString(staged, CfgText.override(text, values), StandardCharsets.UTF_8);
        Files.move(staged, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The current text of one PID's file. */
    String read(String pid) throws IOException {
        return Files.readString(etc.resolve(pid + ".cfg"), StandardCharsets.UTF_8);
    }

    /** One PID's file as properties; empty if there is none. */
    Properties properties(String pid) throws IOException {
        Properties properties = new Properties();
        Path file = etc.resolve(pid + ".cfg");
        if (Files.exists(file)) {
            try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                properties.load(reader);
            }
        }
        return properties;
    }

    /** The keys of {@code pid} that {@code flag} sets, each with {@code value}: what giving it to {@code run} would set. */
    private static Map<String, String> keys(RunFlag flag, String pid, String value) {
        Map<String, String> keys = new LinkedHashMap<>();
        flag.targets().stream().filter(target -> target.pid().equals(pid)).forEach(target -> keys.put(target.key(), value));
        return keys;
    }

    private static boolean isCfg(Path file) {
        return Files.isRegularFile(file) && file.getFileName().toString().endsWith(".cfg");
    }

    private static String kubeconfig(String apiServer) {
        // the embedded server's certificate is self-signed; nothing but this process talks to it
        return String.join("\n", List.of(
                "apiVersion: v1",
                "kind: Config",
                "clusters:",
                "- name: sandbox",
                "  cluster: {server: \"" + apiServer + "\", insecure-skip-tls-verify: true}",
                "contexts:",
                "- name: sandbox",
                "  context: {cluster: sandbox, user: sandbox}",
                "current-context: sandbox",
                "users:",
                "- name: sandbox",
                "  user: {token: sandbox}",
                ""));
    }
}
