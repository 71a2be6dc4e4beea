package dev.ringmaster.itests.support;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.apiserver.RealApiServer;
import dev.ringmaster.testing.rings.RingState;
import dev.ringmaster.testing.rings.Rings;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.AggregationRule;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The real API server of this JVM ({@link RealApiServer}) set up as {@code kubectl apply -k manifests}
 * sets up a cluster, without the Deployment: the ring CRDs as the build generates them, the
 * sharder's namespace, ServiceAccount and RBAC exactly as {@code manifests/} grants them. Processes of
 * the sharder authenticate as that ServiceAccount with a token the API server issued, so RBAC decides
 * what they may do, as in a cluster.
 */
public final class RealCluster {

    public static final String SYSTEM_NAMESPACE = "sharding-system";
    public static final String SHARDER_ACCOUNT = "sharder";
    /** The label that adds a ClusterRole's rules to the sharder's aggregated role for sharded resources. */
    public static final String AGGREGATE_TO_SHARDER = "ringmaster.dev/aggregate-to-sharder";

    private static final List<String> INSTALLED = List.of("namespace.yaml", "crd/clusterrings.sharding.timebertt.dev-v1.yml",
            "crd/controllerrings.sharding.timebertt.dev-v1.yml",
            "serviceaccount.yaml", "clusterrole.yaml", "clusterrole-sharded-resources.yaml", "clusterrolebinding.yaml",
            "clusterrolebinding-sharded-resources.yaml", "clusterrole-shard-leases.yaml",
            "clusterrolebinding-shard-leases.yaml", "role-leader-election.yaml", "rolebinding-leader-election.yaml",
            "role-events.yaml", "rolebinding-events.yaml", "role-webhook-certificates.yaml", "rolebinding-webhook-certificates.yaml",
            "role-delivery.yaml", "rolebinding-delivery.yaml",
            "clusterrole-metrics-auth.yaml", "clusterrolebinding-metrics-auth.yaml", "clusterrole-metrics-reader.yaml");

    private static RealCluster installed;
    private static RealCluster installedSharded;

    private final RealApiServer server;

    private RealCluster(RealApiServer server) {
        this.server = server;
    }

    /** The cluster of this JVM with {@code manifests/} installed (once). */
    public static synchronized RealCluster get() {
        if (installed == null) {
            RealCluster cluster = new RealCluster(RealApiServer.shared());
            cluster.install();
            installed = cluster;
        }
        return installed;
    }

    /**
     * The same installation on this JVM's second server, {@link RealApiServer#shardedListAndWatch()}
     * (v1.36 with the KEP-5866 gate: lists and watches honour {@code shardSelector}), installed once.
     */
    public static synchronized RealCluster shardedListAndWatch() {
        if (installedSharded == null) {
            RealCluster cluster = new RealCluster(RealApiServer.shardedListAndWatch());
            cluster.install();
            installedSharded = cluster;
        }
        return installedSharded;
    }

    public KubernetesClient admin() {
        return server.admin();
    }

    public RealApiServer server() {
        return server;
    }

    /** The folder {@code manifests/} of the repository. */
    public static Path manifests() {
        return Path.of(System.getProperty("ringmaster.itests.manifests", "../manifests")).toAbsolutePath().normalize();
    }

    /** A kubeconfig in {@code replica}'s home authenticating as the sharder's ServiceAccount, with a token of its own. */
    public Path sharderKubeconfig(SharderHome replica) {
        return server.serviceAccountKubeconfig(SYSTEM_NAMESPACE, SHARDER_ACCOUNT, replica.home().resolve("sharder.kubeconfig"));
    }

    /**
     * Starts {@code bin/ringmaster run} in {@code replica}'s home with {@code kubeconfig}, the API
     * server calling its webhook, and returns once {@code /readyz} answers 200.
     */
    public Cli.Started runSharder(SharderHome replica, Path kubeconfig) {
        Cli.Started sharder = Cli.start(replica.home(), replica.runArgsCalledBack(kubeconfig));
        try {
            Waiting.until(Duration.ofSeconds(60), () -> replica.home().getFileName() + " ready\n" + sharder.err(),
                    () -> replica.status("/readyz") == 200);
        } catch (AssertionError notReady) {
            // a replica left running would go on watching and writing beside the classes after this one
            sharder.process().destroyForcibly();
            throw notReady;
        }
        return sharder;
    }

    /** The holder of the sharder replicas' leader election Lease, null if there is none. */
    public String electionHolder() {
        Lease election = admin().leases().inNamespace(SYSTEM_NAMESPACE).withName("sharder").get();
        return election == null ? null : election.getSpec().getHolderIdentity();
    }

    /** A new namespace, labelled as the tests' own. */
    public void namespace(String name) {
        admin().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
                .addToLabels("ringmaster.dev/test", "true").endMetadata().build()).serverSideApply();
    }

    /**
     * Grants the sharder what an operator grants for a ring's resources (docs/install.md): a ClusterRole
     * labelled {@value #AGGREGATE_TO_SHARDER}. A cluster's controller manager aggregates it into the
     * sharder's role; this API server has no controller manager, so this does the aggregation as it would.
     */
    public void grantShardedResources(String roleName, String group, List<String> resources) {
        admin().rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName(roleName)
                .addToLabels(AGGREGATE_TO_SHARDER, "true").endMetadata()
                .withRules(new PolicyRuleBuilder().withApiGroups(group).withResources(resources)
                        .withVerbs("get", "list", "watch", "patch", "update").build())
                .build()).serverSideApply();
        aggregate("ringmaster:sharder:sharded-resources");
    }

    /** Creates (or replaces) a ClusterRing from the YAML of its {@code spec}, indented by two spaces. */
    public void clusterRing(String name, String spec) {
        ring(RingKind.CLUSTER_RING, name, spec);
    }

    /** Creates (or replaces) a ring of the kind from the YAML of its {@code spec}, indented by two spaces. */
    public void ring(RingKind kind, String name, String spec) {
        Rings.apply(admin(), kind, name, spec);
    }

    /**
     * A ClusterRing over the ConfigMaps (and, with {@code controlsSecrets}, the Secrets they control)
     * of one new namespace only, so that the rings of the test classes sharing the server never meet.
     */
    public void configMapRing(String ring, String namespace, boolean controlsSecrets) {
        configMapRing(RingKind.CLUSTER_RING, ring, namespace, controlsSecrets);
    }

    /** {@link #configMapRing(String, String, boolean)}, as a ring of the kind. */
    public void configMapRing(RingKind kind, String ring, String namespace, boolean controlsSecrets) {
        namespace(namespace);
        Rings.configMapRing(admin(), kind, ring, namespace, controlsSecrets);
    }

    /**
     * A range-mode ClusterRing ({@code spec.ranges}) over the ConfigMaps of one new namespace: the
     * sharder assigns hash ranges of {@code key} ({@code uid} or {@code namespace}) in {@code buckets}
     * on the shard Leases and labels nothing.
     */
    public void rangeModeConfigMapRing(String ring, String namespace, String key, int buckets) {
        rangeModeConfigMapRing(ring, namespace, key, buckets, "");
    }

    /** The same with more of {@code spec.ranges}, e.g. {@code balancing}, as YAML lines indented by four spaces. */
    public void rangeModeConfigMapRing(String ring, String namespace, String key, int buckets, String moreRanges) {
        namespace(namespace);
        ring(RingKind.CLUSTER_RING, ring, """
                  resources:
                  - group: ""
                    resource: configmaps
                  namespaceSelector:
                    matchLabels: {kubernetes.io/metadata.name: %s}
                  ranges:
                    key: %s
                    buckets: %d
                """.formatted(namespace, key, buckets) + moreRanges);
    }

    /**
     * Stops a sharder gracefully (so that the next test's sharder on this server need not wait for the election
     * Lease), forcibly if it takes over 20 s, and deletes its ClusterRing: the server is shared with other test
     * classes, whose sharders need not see it.
     */
    public void stopSharderAndDeleteRing(Cli.Started sharder, String ring) throws InterruptedException {
        if (sharder != null) {
            sharder.process().destroy();
            if (!sharder.process().waitFor(20, TimeUnit.SECONDS)) {
                sharder.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        admin().genericKubernetesResources(RingContract.API_GROUP + "/" + RingContract.API_VERSION,
                RingKind.CLUSTER_RING.kind()).withName(ring).delete();
    }

    /** {@link Rings#liveShardLease}: a shard's Lease as a live shard keeps it, renewed now for an hour. */
    public void liveShardLease(String namespace, String shard, String ring) {
        liveShardLease(RingKind.CLUSTER_RING, namespace, shard, ring);
    }

    /** {@link #liveShardLease(String, String, String)} of a ring of the kind. */
    public void liveShardLease(RingKind kind, String namespace, String shard, String ring) {
        Rings.liveShardLease(admin(), kind, namespace, shard, ring);
    }

    /** {@link #liveShardLease}, of a shard in range mode: its Lease announces ranges, none served yet. */
    public void liveRangeShardLease(String namespace, String shard, String ring) {
        Rings.liveShardLease(admin(), RingKind.CLUSTER_RING, namespace, shard, ring,
                Map.of(RingContract.SERVED_RANGES_ANNOTATION, ""));
    }

    /**
     * Waits until the API server sends creates of ConfigMaps in {@code namespace} to the webhook that puts
     * {@code shardLabel} on them: a dry-run create comes back labelled. The API server picks a new webhook
     * configuration up through a watch of its own, a moment after it is written (longer on a loaded
     * machine); until then creates are not sent to the webhook at all.
     */
    public void awaitWebhookLabels(String namespace, String shardLabel, Duration atMost, Supplier<String> diagnostics) {
        Waiting.until(atMost, () -> "the API server calls the webhook for " + namespace + " (a dry-run create labelled "
                + shardLabel + ")\n" + diagnostics.get(), () -> RingState.labels(admin().configMaps().inNamespace(namespace)
                .resource(new ConfigMapBuilder().withNewMetadata().withName("webhook-probe").endMetadata().build())
                .dryRun().create()).containsKey(shardLabel));
    }

    /** Lets a ServiceAccount of {@code namespace} read and change the given core resources there (a Role). */
    public void grantInNamespace(String namespace, String account, List<String> resources) {
        server.grant(namespace, account, List.of(readWrite("", resources)));
    }

    /**
     * Lets a ServiceAccount of {@code namespace} run a shard of the checksum controller there: its Lease,
     * the ConfigMaps it reconciles and the Secrets it writes.
     */
    public void grantShard(String namespace, String account) {
        server.grant(namespace, account, List.of(readWrite("", List.of("configmaps", "secrets")),
                readWrite("coordination.k8s.io", List.of("leases"))));
    }

    private static PolicyRule readWrite(String group, List<String> resources) {
        return new PolicyRuleBuilder().withApiGroups(group).withResources(resources)
                .withVerbs("get", "list", "watch", "create", "update", "patch", "delete").build();
    }

    /**
     * Applies the objects of the kustomize Component {@code manifests/<component>} (one that patches
     * nothing of the base) as its kustomization lists them.
     */
    private void installComponent(String component) {
        Path folder = manifests().resolve(component);
        try {
            Map<?, ?> kustomization = admin().getKubernetesSerialization()
                    .unmarshal(Files.readString(folder.resolve("kustomization.yaml")), Map.class);
            if (kustomization.containsKey("patches")) {
                throw new IllegalArgumentException(folder + " patches the base: render it with kubectl kustomize instead");
            }
            ((List<?>) kustomization.get("resources")).forEach(file -> apply(folder.resolve(String.valueOf(file))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void apply(Path file) {
        try (InputStream yaml = Files.newInputStream(file)) {
            admin().load(yaml).items().forEach(resource -> admin().resource(resource).forceConflicts().serverSideApply());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void install() {
        INSTALLED.forEach(file -> apply(manifests().resolve(file)));
        // the admission policies of docs/install.md (Kubernetes 1.30+), so that every sharder of the tier,
        // which runs as the sharder's ServiceAccount, works under them; AdmissionPoliciesRealIT proves them
        installComponent("admission-policies");
        // what an operator grants for rings over ConfigMaps and Secrets (docs/install.md)
        grantShardedResources("itests-sharded-core", "", List.of("configmaps", "secrets"));
        for (RingKind kind : RingKind.values()) {
            Waiting.within(Duration.ofSeconds(30), "the " + kind.kind() + " CRD established").until(() -> {
                CustomResourceDefinition crd = admin().apiextensions().v1().customResourceDefinitions()
                        .withName(kind.plural() + ".sharding.timebertt.dev").get();
                return crd.getStatus() != null && crd.getStatus().getConditions().stream()
                        .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
            });
        }
    }

    /** What kube-controller-manager's ClusterRole aggregation controller does for one aggregated role. */
    private void aggregate(String aggregatedName) {
        ClusterRole aggregated = admin().rbac().clusterRoles().withName(aggregatedName).get();
        AggregationRule rule = aggregated.getAggregationRule();
        List<PolicyRule> rules = rule.getClusterRoleSelectors().stream()
                .flatMap(selector -> admin().rbac().clusterRoles().withLabels(selector.getMatchLabels()).list().getItems().stream())
                .flatMap(role -> role.getRules().stream())
                .distinct()
                .toList();
        admin().rbac().clusterRoles().withName(aggregatedName)
                .edit(role -> new ClusterRoleBuilder(role).withRules(rules).build());
    }
}
