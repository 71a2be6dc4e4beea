package dev.ringmaster.testing.apiserver;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real kube-apiserver with etcd (fabric8's kube-api-test), started once per test JVM and stopped
 * when the JVM exits: admission webhooks, paging, CRD and CEL validation, RBAC and optimistic locking
 * as a cluster has them. Binaries come from {@code $KUBE_API_TEST_DIR} (default {@code ~/.kubeapitest});
 * {@code ../shared/k8s/provision} puts v1.32.13 there, and on a machine with internet access
 * kube-api-test downloads the newest 1.32 patch release itself.
 *
 * <p>The server writes an audit log of every write request (see {@link AuditLog}), so tests can say
 * who wrote what and when. Tests share the server: each works in namespaces and rings of its own.
 */
public final class RealApiServer {

    /** The minor release the tier is proven on; kube-api-test picks the newest local patch release of it. */
    public static final String VERSION = "1.32.*";

    private static final Pattern TOKEN = Pattern.compile("\\{token: ([^}]+)}");

    /** The release with KEP-5866 (server-side sharded list and watch), {@link #shardedListAndWatch()}. */
    public static final String SHARDED_LIST_AND_WATCH_VERSION = "1.36.*";
    /** The alpha feature gate of KEP-5866. */
    public static final String SHARDED_LIST_AND_WATCH_GATE = "ShardedListAndWatch=true";

    private static RealApiServer shared;
    private static RealApiServer sharded;

    private final KubeAPIServer server;
    private final Path home;
    private final Path kubeconfig;
    private final AuditLog audit;
    private final KubernetesClient admin;

    /**
     * @param version    the release, as kube-api-test picks it (e.g. {@code 1.32.*})
     * @param extraFlags further kube-apiserver flags, name to value
     */
    private RealApiServer(Path home, String version, Map<String, String> extraFlags, String auditPolicy) throws IOException {
        this.home = home;
        Path policy = Files.writeString(home.resolve("audit-policy.yaml"), auditPolicy);
        Path auditFile = home.resolve("audit.log");
        KubeAPIServerConfigBuilder config = KubeAPIServerConfigBuilder.anAPIServerConfig();
        extraFlags.forEach(config::withApiServerFlag);
        server = new KubeAPIServer(config
                .withApiServerVersion(version)
                .withUpdateKubeConfig(false)
                .withApiServerFlag("--bind-address", "127.0.0.1")
                .withApiServerFlag("--audit-policy-file", policy.toString())
                .withApiServerFlag("--audit-log-path", auditFile.toString())
                .withApiServerFlag("--audit-log-format", "json")
                // 0 (the default) rotates at 100 MB, and AuditLog reads only the current file: 100,000
                // objects created (RealScaleBench) were enough for events to go missing
                .withApiServerFlag("--audit-log-maxsize", "1000000")
                .build());
        server.start();
        kubeconfig = Files.writeString(home.resolve("admin.kubeconfig"), server.getKubeConfigYaml());
        audit = new AuditLog(auditFile);
        admin = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(server.getKubeConfigYaml())).build();
    }

    /** The server of this JVM ({@value #VERSION}), started on first use. */
    public static synchronized RealApiServer shared() {
        if (shared == null) {
            shared = start("ringmaster-apiserver-", VERSION, Map.of(), AuditLog.POLICY);
        }
        return shared;
    }

    /**
     * A second server of this JVM, started on first use: {@value #SHARDED_LIST_AND_WATCH_VERSION}
     * (v1.36.3 from {@code ../shared/k8s/provision}) with the KEP-5866 gate
     * ({@code --feature-gates=}{@value #SHARDED_LIST_AND_WATCH_GATE}), so lists and watches honour
     * {@code shardSelector}. Runs beside {@link #shared()}. Its audit log has reads too ({@link AuditLog#reads()}).
     */
    public static synchronized RealApiServer shardedListAndWatch() {
        if (sharded == null) {
            sharded = start("ringmaster-apiserver-136-", SHARDED_LIST_AND_WATCH_VERSION,
                    Map.of("--feature-gates", SHARDED_LIST_AND_WATCH_GATE), AuditLog.POLICY_WITH_READS);
        }
        return sharded;
    }

    private static RealApiServer start(String prefix, String version, Map<String, String> extraFlags, String auditPolicy) {
        try {
            RealApiServer started = new RealApiServer(Files.createTempDirectory(prefix), version, extraFlags, auditPolicy);
            Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "real-apiserver-stop"));
            return started;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A kubeconfig file of the cluster administrator ({@code system:masters}, client certificate). */
    public Path adminKubeconfig() {
        return kubeconfig;
    }

    /** The cluster administrator's client, shared: do not close it. */
    public KubernetesClient admin() {
        return admin;
    }

    /** The API server's audit log of write requests. */
    public AuditLog audit() {
        return audit;
    }

    /** A folder of this server's run for files the tests write (kubeconfigs, manifests). */
    public Path workFolder(String name) {
        try {
            return Files.createDirectories(home.resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A kubeconfig that authenticates as the ServiceAccount {@code namespace/name} with a token the API
     * server issued for it (TokenRequest), created with the namespace and ServiceAccount if missing.
     * Each call issues a new token, with a credential id of its own in the audit log, so two processes
     * with the same identity can be told apart there. RBAC decides what it may do: nothing is granted here.
     */
    public Path serviceAccountKubeconfig(String namespace, String name, Path file) {
        if (admin.namespaces().withName(namespace).get() == null) {
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
                    .serverSideApply();
        }
        if (admin.serviceAccounts().inNamespace(namespace).withName(name).get() == null) {
            admin.serviceAccounts().inNamespace(namespace).resource(new ServiceAccountBuilder()
                    .withNewMetadata().withName(name).endMetadata().build()).create();
        }
        TokenRequest issued = admin.serviceAccounts().inNamespace(namespace).withName(name)
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(24 * 3600L).endSpec().build());
        return withToken(issued.getStatus().getToken(), "system:serviceaccount:" + namespace + ":" + name, file);
    }

    /**
     * The credential id the audit log gives requests made with the token of a kubeconfig from
     * {@link #serviceAccountKubeconfig}: {@code JTI=} and the token's {@code jti} claim.
     */
    public String credentialId(Path kubeconfigFile) {
        try {
            Matcher token = TOKEN.matcher(Files.readString(kubeconfigFile));
            if (!token.find()) {
                throw new IllegalArgumentException(kubeconfigFile + " holds no service account token");
            }
            String payload = new String(Base64.getUrlDecoder().decode(token.group(1).split("\\.")[1]), StandardCharsets.UTF_8);
            return "JTI=" + admin.getKubernetesSerialization().unmarshal(payload, Map.class).get("jti");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Grants the ServiceAccount {@code namespace/account} these rules in its namespace: a Role and a
     * RoleBinding, both named after the account (applied again, they replace the earlier grant).
     */
    public void grant(String namespace, String account, List<PolicyRule> rules) {
        admin.rbac().roles().inNamespace(namespace).resource(new RoleBuilder().withNewMetadata().withName(account)
                .endMetadata().withRules(rules).build()).forceConflicts().serverSideApply();
        admin.rbac().roleBindings().inNamespace(namespace).resource(new RoleBindingBuilder().withNewMetadata()
                .withName(account).endMetadata().withNewRoleRef("rbac.authorization.k8s.io", "Role", account)
                .addNewSubject().withKind("ServiceAccount").withName(account).withNamespace(namespace).endSubject()
                .build()).forceConflicts().serverSideApply();
    }

    /**
     * A client acting as the ServiceAccount {@code namespace/account}, granted {@code rules} in its namespace
     * ({@link #serviceAccountKubeconfig} in the namespace's work folder, {@link #grant}); the caller closes it.
     */
    public KubernetesClient clientAs(String namespace, String account, List<PolicyRule> rules) {
        Path kubeconfig = serviceAccountKubeconfig(namespace, account,
                workFolder(namespace).resolve(account + ".kubeconfig"));
        grant(namespace, account, rules);
        return clientFor(kubeconfig);
    }

    /** A client for {@link #serviceAccountKubeconfig}; the caller closes it. */
    public KubernetesClient clientFor(Path kubeconfigFile) {
        try {
            return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfigFile))).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path withToken(String token, String user, Path file) {
        Config config = admin.getConfiguration();
        String yaml = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: real
                  cluster:
                    server: %s
                    certificate-authority-data: %s
                contexts:
                - name: real
                  context: {cluster: real, user: "%s"}
                current-context: real
                users:
                - name: "%s"
                  user: {token: %s}
                """.formatted(config.getMasterUrl(), caData(config), user, user, token);
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            return Files.writeString(file, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String caData(Config config) {
        if (config.getCaCertData() != null) {
            return config.getCaCertData();
        }
        try {
            return Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(config.getCaCertFile())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The server's version, e.g. {@code v1.32.13}. */
    public String gitVersion() {
        return admin.getKubernetesVersion().getGitVersion();
    }

    private void stop() {
        admin.close();
        server.stop();
        try (Stream<Path> files = Files.walk(home)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            // a temporary folder: what is left is left to the system
        }
    }
}
