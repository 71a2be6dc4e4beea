package dev.ringmaster.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.ringmaster.delivery.DeliveryComponent;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.sharder.app.SharderSettings;
import dev.ringmaster.sharder.certificates.WebhookCertificates;
import dev.ringmaster.sharder.ringcontrol.WebhookClientSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.Reader;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps manifests/ (the in-cluster install) honest against the code: every file is a known kind
 * without unknown fields, the kustomizations list exactly the files there are, the Deployment, the
 * Service and the sharder's certificates (its own by default, cert-manager's with the cert-manager
 * component) agree with each other and with the sharder's defaults, and the RBAC grants exactly what
 * the sharder's code calls. manifests/label-guard belongs to the label guard plug-in and is checked by
 * LabelGuardManifestTest, the policy of manifests/admission-policies by AdmissionPoliciesManifestTest.
 */
class ManifestsTest {

    private static final Path REPO = Repository.ROOT;
    private static final Path MANIFESTS = REPO.resolve("manifests");
    /** Kustomizations of their own that the base deliberately leaves out (docs/install.md). */
    private static final Set<String> OPTIONAL = Set.of("monitoring", "pod-readiness", "label-guard", "cert-manager",
            "namespaced-leases", "network-policy", "admission-policies");
    /** Not ours to check. */
    private static final Path LABEL_GUARD = MANIFESTS.resolve("label-guard");
    /** A kustomize Component of admission policies only (Kubernetes 1.30 or later), checked by AdmissionPoliciesManifestTest. */
    private static final Path ADMISSION_POLICIES = MANIFESTS.resolve("admission-policies");
    /** A kustomize Component: objects (Issuer, Certificate) and patches of the base, loaded apart ({@link #component}). */
    private static final Path CERT_MANAGER = MANIFESTS.resolve("cert-manager");
    /**
     * A kustomize Component: shard Leases only in listed namespaces (a RoleBinding each), the base's cluster-wide
     * binding deleted, the sharder started with --shard-lease-namespaces; its resources are loaded apart.
     */
    private static final Path NAMESPACED_LEASES = MANIFESTS.resolve("namespaced-leases");
    /** The ClusterRole of shard Leases, bound cluster-wide by the base and per namespace by the component. */
    private static final String SHARD_LEASES = "ringmaster:sharder:shard-leases";
    /** The label guard's ValidatingWebhookConfiguration, which the sharder gives the webhook's CA. */
    private static final String LABEL_GUARD_CONFIGURATION = "ringmaster-label-guard";

    private static final String NS = RingContract.SYSTEM_NAMESPACE;
    private static final String SERVICE_ACCOUNT = "sharder";
    /** The HTTPS webhook port (docs/design.md section 7). */
    private static final int WEBHOOK_PORT = 9443;
    /** Where the image puts the distribution (distribution/Dockerfile). */
    private static final String HOME = "/opt/ringmaster";
    private static final String SHARDER_CFG = "dev.ringmaster.sharder.cfg";
    /** RingStatusReconciler writes core/v1 events about rings (cluster-scoped) here. */
    private static final String CLUSTER_EVENTS_NAMESPACE = "default";
    /** The ClusterRole scrapers of /metrics need (docs/monitoring.md). */
    private static final String METRICS_READER = "ringmaster:metrics-reader";
    /** The leader election Lease's name (SharderSettings.leaderElectionLease), which the Role names. */
    private static final String ELECTION_LEASE = "sharder";

    /**
     * Every permission the sharder's code needs, written once: (namespace or null for cluster-wide,
     * API group, resource, verb) and the class that needs it. The sharded resources themselves are
     * the user's to grant (aggregated ClusterRole), API discovery and GET /version are granted to
     * every authenticated user by Kubernetes.
     */
    private static final List<Permission> SHARDER_NEEDS = List.of(
            // RingStatusReconciler: reads the ring it reconciles, of either kind
            cluster("sharding.timebertt.dev", "clusterrings", "get"),
            cluster("sharding.timebertt.dev", "controllerrings", "get"),
            // RingWatch: one informer per kind on every replica
            cluster("sharding.timebertt.dev", "clusterrings", "list"),
            cluster("sharding.timebertt.dev", "clusterrings", "watch"),
            cluster("sharding.timebertt.dev", "controllerrings", "list"),
            cluster("sharding.timebertt.dev", "controllerrings", "watch"),
            // RingStatusReconciler: status through the status subresource (locked JSON patch)
            cluster("sharding.timebertt.dev", "clusterrings/status", "patch"),
            cluster("sharding.timebertt.dev", "controllerrings/status", "patch"),
            // WebhookConfigurations: owner reference to the ring with blockOwnerDeletion
            cluster("sharding.timebertt.dev", "clusterrings/finalizers", "update"),
            cluster("sharding.timebertt.dev", "controllerrings/finalizers", "update"),
            // WebhookConfigurations.apply and remove read the ring's configuration
            cluster("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "get"),
            // WebhookConfigurations.apply: a ring's first configuration
            cluster("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "create"),
            // WebhookConfigurations.apply: locked JSON patch of an existing configuration
            cluster("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "patch"),
            // WebhookConfigurations.remove: webhookMode=off
            cluster("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "delete"),
            // ValidatingWebhookCa: the label guard's configuration, by name (webhookValidatingConfigurations):
            // a by-name informer in LeaderControllers (list and watch with a metadata.name field selector),
            // the reconciler's read and its locked JSON patch of caBundle or the cert-manager annotation
            named(null, "admissionregistration.k8s.io", "validatingwebhookconfigurations", "get", LABEL_GUARD_CONFIGURATION),
            named(null, "admissionregistration.k8s.io", "validatingwebhookconfigurations", "list", LABEL_GUARD_CONFIGURATION),
            named(null, "admissionregistration.k8s.io", "validatingwebhookconfigurations", "watch", LABEL_GUARD_CONFIGURATION),
            named(null, "admissionregistration.k8s.io", "validatingwebhookconfigurations", "patch", LABEL_GUARD_CONFIGURATION),
            // LeaderElection: fabric8's LeaseLock reads the election Lease, renews and releases it by merge
            // patch (role-leader-election.yaml, by name)
            named(NS, "coordination.k8s.io", "leases", "get", ELECTION_LEASE),
            named(NS, "coordination.k8s.io", "leases", "patch", ELECTION_LEASE),
            // the shard Leases in every namespace (clusterrole-shard-leases.yaml; in the namespaced-leases
            // component, in the listed namespaces only, SHARD_LEASES_NEED)
            cluster("coordination.k8s.io", "leases", "get"),
            cluster("coordination.k8s.io", "leases", "list"),
            cluster("coordination.k8s.io", "leases", "watch"),
            cluster("coordination.k8s.io", "leases", "update"),
            cluster("coordination.k8s.io", "leases", "patch"),
            cluster("coordination.k8s.io", "leases", "delete"),
            // LeaderControllers: namespace informer behind NamespaceScope
            cluster("", "namespaces", "list"),
            cluster("", "namespaces", "watch"),
            // ObjectEvents (ShardLeaseReconciler, InvalidKeyEvents): events.k8s.io/v1 Warnings in the
            // object's namespace
            cluster("events.k8s.io", "events", "create"),
            // RingAutoscaler: reads the scale target (missing or without a scale subresource?) and reads and
            // updates its scale subresource
            cluster("apps", "statefulsets", "get"),
            cluster("apps", "deployments", "get"),
            cluster("apps", "statefulsets/scale", "get"),
            cluster("apps", "statefulsets/scale", "update"),
            cluster("apps", "statefulsets/scale", "patch"),
            cluster("apps", "deployments/scale", "get"),
            cluster("apps", "deployments/scale", "update"),
            cluster("apps", "deployments/scale", "patch"),
            // LeaderElection: LeaseLock creates sharding-system/sharder when it does not exist yet
            namespaced(NS, "coordination.k8s.io", "leases", "create"),
            // RingStatusReconciler: core/v1 Warning events about ClusterRings
            namespaced(CLUSTER_EVENTS_NAMESPACE, "", "events", "create"),
            // WebhookCertificates (self-signed mode): the first replica creates each Secret (create cannot be
            // limited to names), every replica reads, watches (by name) and updates (renewals, repairs) them
            namespaced(NS, "", "secrets", "create"),
            named(NS, "", "secrets", "get", webhookSecrets()),
            named(NS, "", "secrets", "list", webhookSecrets()),
            named(NS, "", "secrets", "watch", webhookSecrets()),
            named(NS, "", "secrets", "update", webhookSecrets()),
            // DeliveryComponent: an informer over the delivery ConfigMaps of its namespace, and core/v1
            // Events on them (DeliveryReport)
            namespaced(NS, "", "configmaps", "list"),
            namespaced(NS, "", "configmaps", "watch"),
            namespaced(NS, "", "events", "create"),
            // KubernetesAuthorizer (metrics-auth, --metrics-auth kubernetes): a scraper's bearer token is
            // reviewed, and whether its user may get /metrics
            cluster("authentication.k8s.io", "tokenreviews", "create"),
            cluster("authorization.k8s.io", "subjectaccessreviews", "create"));

    /**
     * What the sharder does with shard Leases, in every namespace it watches them in: ShardLeaseController's
     * label-selected informers list and watch, ShardLeaseReconciler acquires an uncertain Lease (optimistic
     * update), writes the state label (merge patch) and deletes orphaned Leases; get for whoever reads one.
     */
    private static final List<String> SHARD_LEASE_VERBS = List.of("get", "list", "watch", "update", "patch", "delete");

    /** The pod-readiness lease detector plug-in watches the Pods behind shard Leases. */
    private static final List<Permission> POD_READINESS_NEEDS = List.of(
            cluster("", "pods", "get"),
            cluster("", "pods", "list"),
            cluster("", "pods", "watch"));

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static Map<Path, Object> objects;
    /** The cert-manager component's objects (Issuer, Certificate), by file. */
    private static Map<Path, Object> component;
    /** The namespaced-leases component's objects (its RoleBindings), by file. */
    private static Map<Path, Object> namespacedLeases;

    @BeforeAll
    static void load() throws IOException {
        objects = new TreeMap<>();
        component = new TreeMap<>();
        Map<String, Object> kustomization = yamlMap(CERT_MANAGER.resolve("kustomization.yaml"));
        List<Path> componentResources = strings(kustomization.get("resources")).stream()
                .map(CERT_MANAGER::resolve).toList();
        namespacedLeases = new TreeMap<>();
        List<Path> namespacedResources = strings(yamlMap(NAMESPACED_LEASES.resolve("kustomization.yaml")).get("resources"))
                .stream().map(NAMESPACED_LEASES::resolve).toList();
        for (Path file : manifestFiles()) {
            if (file.startsWith(NAMESPACED_LEASES)) {
                if (namespacedResources.contains(file)) {
                    namespacedLeases.put(file, SERIALIZATION.unmarshal(Files.readString(file, StandardCharsets.UTF_8)));
                }
            } else if (!file.startsWith(CERT_MANAGER)) {
                objects.put(file, SERIALIZATION.unmarshal(Files.readString(file, StandardCharsets.UTF_8)));
            } else if (componentResources.contains(file)) {
                component.put(file, SERIALIZATION.unmarshal(Files.readString(file, StandardCharsets.UTF_8)));
            }
        }
    }

    @Test
    void everyFileIsOneObjectOfAKnownKindWithoutUnknownFields() {
        assertThat(objects).isNotEmpty();
        assertThat(component).hasSize(4);
        Set<String> customKinds = Set.of("cert-manager.io/v1/Issuer", "cert-manager.io/v1/Certificate",
                "monitoring.coreos.com/v1/ServiceMonitor", "monitoring.coreos.com/v1/PrometheusRule");
        Map<Path, Object> all = new TreeMap<>(objects);
        all.putAll(component);
        all.forEach((file, object) -> {
            assertThat(object).as("%s holds one Kubernetes object", MANIFESTS.relativize(file)).isInstanceOf(HasMetadata.class);
            if (object instanceof GenericKubernetesResource generic) {
                // no model on the class path: only the kinds we mean to ship
                assertThat(generic.getApiVersion() + "/" + generic.getKind())
                        .as("kind of %s", MANIFESTS.relativize(file)).isIn(customKinds);
            } else {
                assertThat(ModelFields.unknown(object)).as("fields the %s model does not know in %s (typos?)",
                        object.getClass().getSimpleName(), MANIFESTS.relativize(file)).isEmpty();
            }
            HasMetadata resource = (HasMetadata) object;
            assertThat(resource.getMetadata().getName()).as("name in %s", file).isNotBlank();
        });
    }

    @Test
    void namespacedObjectsLiveInTheSystemNamespace() {
        assertThat(single(Namespace.class).getMetadata().getName()).isEqualTo(NS);
        objects.forEach((file, object) -> {
            HasMetadata resource = (HasMetadata) object;
            boolean clusterScoped = resource instanceof Namespace || resource instanceof ClusterRole
                    || resource instanceof ClusterRoleBinding || resource instanceof CustomResourceDefinition
                    || resource instanceof PriorityClass;
            String expected = clusterScoped ? null
                    : file.getFileName().toString().equals("role-events.yaml")
                            || file.getFileName().toString().equals("rolebinding-events.yaml")
                            ? CLUSTER_EVENTS_NAMESPACE : NS;
            assertThat(resource.getMetadata().getNamespace()).as("namespace of %s", MANIFESTS.relativize(file))
                    .isEqualTo(expected);
        });
        assertThat(single(ServiceAccount.class).getMetadata().getName()).isEqualTo(SERVICE_ACCOUNT);
    }

    @Test
    void kustomizationsListExactlyTheFilesThatExist() throws IOException {
        List<Path> roots;
        try (Stream<Path> paths = Files.walk(MANIFESTS)) {
            roots = paths.filter(path -> path.getFileName().toString().equals("kustomization.yaml"))
                    .filter(path -> !path.startsWith(LABEL_GUARD))
                    .map(Path::getParent)
                    .sorted()
                    .toList();
        }
        assertThat(roots).contains(MANIFESTS, MANIFESTS.resolve("crd"), MANIFESTS.resolve("monitoring"),
                MANIFESTS.resolve("pod-readiness"), MANIFESTS.resolve("network-policy"), CERT_MANAGER);
        for (Path root : roots) {
            Map<String, Object> kustomization = yamlMap(root.resolve("kustomization.yaml"));
            Set<Path> listed = new TreeSet<>();
            strings(kustomization.get("resources")).forEach(entry -> listed.add(root.resolve(entry).normalize()));
            strings(kustomization.get("components")).forEach(entry -> listed.add(root.resolve(entry).normalize()));
            for (Object patch : list(kustomization.get("patches"))) {
                Object path = ((Map<?, ?>) patch).get("path");
                if (path != null) {
                    listed.add(root.resolve(String.valueOf(path)).normalize());
                }
            }
            for (Object generator : list(kustomization.get("configMapGenerator"))) {
                strings(((Map<?, ?>) generator).get("files")).forEach(entry -> listed.add(
                        root.resolve(entry.contains("=") ? entry.substring(entry.indexOf('=') + 1) : entry).normalize()));
            }
            for (Path entry : listed) {
                assertThat(Files.isRegularFile(entry) || Files.isRegularFile(entry.resolve("kustomization.yaml")))
                        .as("%s/kustomization.yaml lists %s, which is neither a file nor a kustomization",
                                REPO.relativize(root), REPO.relativize(entry)).isTrue();
            }
            for (Path owned : ownedBy(root, roots)) {
                boolean optional = Files.isDirectory(owned) && root.equals(MANIFESTS)
                        && OPTIONAL.contains(owned.getFileName().toString());
                if (!optional) {
                    assertThat(listed).as("%s/kustomization.yaml lists %s", REPO.relativize(root),
                            REPO.relativize(owned)).contains(owned);
                }
            }
        }
    }

    @Test
    void deploymentRunsTwoHardenedReplicasWithProbesOnTheOpsPort() throws IOException {
        Deployment deployment = single(Deployment.class);
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        Container container = sharderContainer();
        int opsPort = Integer.parseInt(distributionCfg("dev.ringmaster.ops.http.cfg").getProperty("port").trim());
        assertThat(opsPort).isEqualTo(8080);
        int metricsPort = metricsPort();

        assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
        assertThat(deployment.getSpec().getSelector().getMatchLabels())
                .isEqualTo(deployment.getSpec().getTemplate().getMetadata().getLabels());
        assertThat(pod.getServiceAccountName()).isEqualTo(SERVICE_ACCOUNT);
        assertThat(container.getPorts()).extracting(ContainerPort::getName, ContainerPort::getContainerPort)
                .containsExactlyInAnyOrder(tuple("webhook", WEBHOOK_PORT),
                        tuple("health", opsPort), tuple("metrics", metricsPort));
        Properties webhookCfg = distributionCfgIfPresent("dev.ringmaster.webhook.cfg");
        if (webhookCfg.containsKey("port")) {
            assertThat(Integer.parseInt(webhookCfg.getProperty("port").trim())).isEqualTo(WEBHOOK_PORT);
        }

        assertThat(probe(container.getStartupProbe())).isEqualTo(opsPort + "/healthz");
        assertThat(probe(container.getLivenessProbe())).isEqualTo(opsPort + "/healthz");
        assertThat(probe(container.getReadinessProbe())).isEqualTo(opsPort + "/readyz");

        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsUser()).isPositive();
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(container.getResources().getRequests()).containsKeys("cpu", "memory");
        assertThat(container.getResources().getLimits()).containsKey("memory");
        assertThat(pod.getTopologySpreadConstraints()).isNotEmpty();
        // the launcher waits up to 30 s for the framework to stop after SIGTERM
        assertThat(pod.getTerminationGracePeriodSeconds()).isGreaterThan(30L);

        // POD_NAMESPACE from the downward API, handed to `run --namespace`
        assertThat(container.getEnv()).anySatisfy(env -> {
            assertThat(env.getName()).isEqualTo("POD_NAMESPACE");
            assertThat(env.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.namespace");
        });
        assertThat(flag(container, "--namespace")).isEqualTo("$(POD_NAMESPACE)");
        assertThat(container.getCommand()).as("the image's entrypoint runs `bin/ringmaster run`").isNullOrEmpty();

        // /metrics only over HTTPS to authorized tokens (the ops port keeps the probes); metricsAuth of both
        // listeners comes from that one flag
        assertThat(flag(container, "--metrics-auth")).isEqualTo("kubernetes");
        assertThat(distributionCfg("dev.ringmaster.ops.http.cfg").getProperty("metricsAuth"))
                .isEqualTo("${ringmaster.run.metricsAuth}");
        assertThat(distributionCfg("dev.ringmaster.metrics.cfg").getProperty("auth"))
                .isEqualTo("${ringmaster.run.metricsAuth}");
        assertThat(distributionCfg("dev.ringmaster.metrics.cfg").getProperty("tlsDir"))
                .as("the webhook's certificate").isEqualTo("${ringmaster.run.tlsDir}");

        // a priority class the manifests ship, below the system classes
        PriorityClass priority = single(PriorityClass.class);
        assertThat(pod.getPriorityClassName()).isEqualTo(priority.getMetadata().getName());
        assertThat(priority.getValue()).isPositive().isLessThan(1_000_000_000);
        assertThat(priority.getGlobalDefault()).isFalse();

        // the Felix storage goes to java.io.tmpdir: writable although the root filesystem is not
        assertThat(mount(container, "/tmp")).isNotNull();
        assertThat(volume(pod, mount(container, "/tmp").getName()).getEmptyDir()).isNotNull();
    }

    /**
     * Self-signed mode: the webhook reads its certificate from --tls-dir, which the sharder fills
     * (webhookCertificateDir takes the same flag): a writable emptyDir there, in memory, no Secret volume
     * to wait for.
     */
    @Test
    void deploymentGivesTheWebhookAWritableTlsDirectoryThatTheSharderFills() throws IOException {
        Container container = sharderContainer();
        PodSpec pod = single(Deployment.class).getSpec().getTemplate().getSpec();
        String tlsDir = flag(container, "--tls-dir");
        VolumeMount tls = mount(container, tlsDir);
        assertThat(tls).as("a volume mounted at --tls-dir %s", tlsDir).isNotNull();
        assertThat(tls.getReadOnly()).as("the sharder writes there").isNotEqualTo(Boolean.TRUE);
        Volume volume = volume(pod, tls.getName());
        assertThat(volume.getSecret()).isNull();
        assertThat(volume.getEmptyDir()).isNotNull();
        assertThat(volume.getEmptyDir().getMedium()).isEqualTo("Memory");

        assertThat(flag(container, "--webhook-certificates")).isEqualTo("self-signed");
        assertThat(distributionCfg(SHARDER_CFG).getProperty("webhookCertificateDir"))
                .as("the directory --tls-dir gives the webhook").isEqualTo("${ringmaster.run.tlsDir}");
        assertThat(distributionCfg("dev.ringmaster.webhook.cfg").getProperty("tlsDir")).isEqualTo("${ringmaster.run.tlsDir}");
    }

    /**
     * The cert-manager component: the Certificate's Secret mounted where the webhook reads, read-only,
     * instead of the emptyDir; the sharder switched to cert-manager mode by the flag (which wins over the
     * base's file); the Role for the sharder's own Secrets removed.
     */
    @Test
    void certManagerComponentMountsItsSecretAndSwitchesTheSharderToCertManager() throws IOException {
        Map<String, Object> kustomization = yamlMap(CERT_MANAGER.resolve("kustomization.yaml"));
        assertThat(kustomization.get("kind")).isEqualTo("Component");

        Deployment patch = SERIALIZATION.unmarshal(Files.readString(CERT_MANAGER.resolve("deployment-patch.yaml")),
                Deployment.class);
        Deployment base = single(Deployment.class);
        assertThat(patch.getMetadata().getName()).isEqualTo(base.getMetadata().getName());
        assertThat(patch.getMetadata().getNamespace()).isEqualTo(base.getMetadata().getNamespace());
        Container patched = patch.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(patched.getName()).isEqualTo(sharderContainer().getName());
        String tlsDir = flag(sharderContainer(), "--tls-dir");
        VolumeMount tls = mount(patched, tlsDir);
        assertThat(tls.getName()).isEqualTo(mount(sharderContainer(), tlsDir).getName());
        assertThat(tls.getReadOnly()).isTrue();
        Volume volume = volume(patch.getSpec().getTemplate().getSpec(), tls.getName());
        assertThat(volume.getSecret().getSecretName()).isEqualTo(spec(certificate()).get("secretName"));
        String patchText = Files.readString(CERT_MANAGER.resolve("deployment-patch.yaml"));
        assertThat(patchText).as("the base's emptyDir goes").contains("emptyDir: null");

        List<?> args = SERIALIZATION.unmarshal(Files.readString(CERT_MANAGER.resolve("args-patch.yaml")), List.class);
        assertThat(args).extracting(operation -> ((Map<?, ?>) operation).get("op"), operation -> ((Map<?, ?>) operation).get("path"),
                operation -> ((Map<?, ?>) operation).get("value"))
                .containsExactly(tuple("add", "/spec/template/spec/containers/0/args/-", "--webhook-certificates"),
                        tuple("add", "/spec/template/spec/containers/0/args/-", "cert-manager"));
        assertThat(base.getSpec().getTemplate().getSpec().getContainers()).hasSize(1);

        Set<String> deleted = new TreeSet<>();
        for (String file : List.of("rbac-patch.yaml", "rbac-binding-patch.yaml")) {
            Map<String, Object> delete = yamlMap(CERT_MANAGER.resolve(file));
            assertThat(delete.get("$patch")).isEqualTo("delete");
            deleted.add(delete.get("kind") + " " + ((Map<?, ?>) delete.get("metadata")).get("namespace") + "/"
                    + ((Map<?, ?>) delete.get("metadata")).get("name"));
        }
        Set<String> secretsAccess = new TreeSet<>();
        objects.values().stream().filter(object -> object instanceof Role || object instanceof RoleBinding)
                .map(HasMetadata.class::cast)
                .filter(object -> object.getMetadata().getName().endsWith(":webhook-certificates"))
                .forEach(object -> secretsAccess.add(object.getKind() + " " + object.getMetadata().getNamespace() + "/"
                        + object.getMetadata().getName()));
        assertThat(deleted).as("the Role and RoleBinding for the Secrets the sharder keeps in self-signed mode")
                .isEqualTo(secretsAccess).hasSize(2);
    }

    /**
     * Configuration is delivered, not mounted (docs/operating.md): nothing over the image's etc/ or
     * deploy/, and the base's sharder settings are a ConfigMap of the delivery namespace with the
     * delivery label and a fixed name, so that a change is applied by the running pods, not rolled out.
     */
    @Test
    void sharderConfigurationIsDeliveredNotMounted() throws IOException {
        Container container = sharderContainer();
        assertThat(container.getVolumeMounts()).extracting(VolumeMount::getMountPath)
                .noneMatch(path -> path.startsWith(HOME + "/etc") || path.startsWith(HOME + "/deploy"));
        Map<String, Object> kustomization = yamlMap(MANIFESTS.resolve("kustomization.yaml"));
        Map<?, ?> generator = (Map<?, ?>) list(kustomization.get("configMapGenerator")).get(0);
        assertDelivered(generator);
        assertThat(strings(generator.get("files"))).containsExactly("etc/" + SHARDER_CFG);
        assertThat(distributionCfg("dev.ringmaster.delivery.cfg").getProperty("namespace"))
                .isEqualTo("${ringmaster.run.namespace}");
        assertThat(flag(container, "--namespace")).isEqualTo("$(POD_NAMESPACE)");

        PodSpec pod = single(Deployment.class).getSpec().getTemplate().getSpec();
        // the image: distribution in HOME, `bin/ringmaster run` as entrypoint, the pod's user
        ExampleManifestsTest.Dockerfile image = sharderImage();
        assertThat(image.copies()).containsEntry("target/ringmaster/etc/", HOME + "/etc/");
        assertThat(image.all("ENTRYPOINT")).containsExactly("[\"" + HOME + "/bin/ringmaster\", \"run\"]");
        assertThat(image.user()).startsWith(pod.getSecurityContext().getRunAsUser() + ":");
        assertThat(image.all("EXPOSE")).containsExactly("8080 " + metricsPort() + " " + WEBHOOK_PORT);
    }

    // ---- the images (distribution/Dockerfile, distribution/examples.Dockerfile, one build context)

    /** What `bin/ringmaster run` reads from the distribution: the script, its launcher's class path, the framework's folders. */
    private static final Set<String> RUN_NEEDS = Set.of("bin/ringmaster", "lib/*.jar",
            // FelixRuntime.BUNDLE_FOLDERS and SHELL_FOLDERS (commands/launcher): boot, bundle, deploy; shell for --shell
            "boot", "bundle", "deploy", "shell",
            // Config Admin's files, watched
            "etc");

    @Test
    void sharderImageHoldsWhatRunNeedsAndNothingOfTheExamplesOrTheSandbox() throws IOException {
        ExampleManifestsTest.Dockerfile image = sharderImage();
        Map<String, String> copies = image.copies();

        assertThat(copies.keySet().stream().map(ExampleManifestsTest.Dockerfile::trim).toList())
                .containsExactlyInAnyOrderElementsOf(RUN_NEEDS.stream().map(path -> "target/ringmaster/" + path).toList());
        copies.forEach((source, destination) -> assertThat(ExampleManifestsTest.Dockerfile.trim(destination))
                .as("where %s lands", source)
                .isEqualTo(HOME + "/" + ExampleManifestsTest.Dockerfile.trim(source).substring("target/ringmaster/".length())));
        assertThat(copies.keySet()).noneMatch(source -> source.contains("checksum") || source.contains("josdk")
                || source.contains("sandbox"));
        assertBase(image);
        assertThat(image.user()).isEqualTo("65532:65532");
    }

    @Test
    void examplesImageHoldsTheTwoExampleShardsAndNoEntrypoint() throws IOException {
        ExampleManifestsTest.Dockerfile image = ExampleManifestsTest.Dockerfile.read(
                REPO.resolve("distribution/examples.Dockerfile"));
        Set<String> needed = new TreeSet<>();
        for (String script : List.of("checksum-controller", "josdk-checksum-operator")) {
            needed.addAll(ExampleManifestsTest.ImageContents.example(script));
            assertThat(image.all("ENV")).as("JVM options for %s", script).anySatisfy(env -> assertThat(env)
                    .contains(ExampleManifestsTest.ImageContents.javaOptsVariable(script) + "=\"-XX:MaxRAMPercentage="));
        }

        assertThat(image.copied()).as("the scripts and their class paths, nothing else").isEqualTo(needed);
        image.copies().forEach((source, destination) -> assertThat(ExampleManifestsTest.Dockerfile.trim(destination))
                .as("where %s lands", source)
                .isEqualTo(HOME + "/" + ExampleManifestsTest.Dockerfile.trim(source).substring("target/ringmaster/".length())));
        assertBase(image);
        assertThat(image.user()).as("the sharder image's user").isEqualTo(sharderImage().user());
        assertThat(image.all("RUN").get(0)).as("the same user is made the same way").isEqualTo(sharderImage().all("RUN").get(0));
        assertThat(image.all("RUN")).as("an archive of each example's classes, where its script looks").hasSize(2)
                .last().asString().contains("for example in checksum-controller josdk-checksum-operator",
                        "-XX:ArchiveClassesAtExit=lib/$example.jsa", "test -s lib/$example.jsa");
        assertThat(Files.readString(REPO.resolve("distribution/src/main/dist/bin/checksum-controller")))
                .contains("lib=\"${RINGMASTER_EXAMPLE_LIB:-checksum-controller}\"", "-XX:SharedArchiveFile=$home/lib/$lib.jsa");
        assertThat(image.all("ENTRYPOINT")).as("the pod's command picks the example").containsExactly("[]");
        assertThat(image.all("CMD")).singleElement().asString().startsWith("[\"" + HOME + "/bin/");
        // docs and manifests name the image the same
        assertThat(Files.readString(REPO.resolve("distribution/examples.Dockerfile"), StandardCharsets.UTF_8))
                .contains("-t " + ExampleManifestsTest.IMAGE + ":" + ExampleManifestsTest.projectVersion()
                        + " -f distribution/examples.Dockerfile distribution");
    }

    @Test
    void dockerignoreKeepsWhatEitherImageCopiesAndLeavesOutTheRest() throws IOException {
        Path context = REPO.resolve("distribution");
        for (String file : List.of("Dockerfile", "examples.Dockerfile")) {
            for (String source : ExampleManifestsTest.Dockerfile.read(context.resolve(file)).copied()) {
                String sample = source.replace("*", "launcher");
                assertThat(ExampleManifestsTest.Dockerfile.ignored(context, sample))
                        .as("%s copies %s, which .dockerignore must keep", file, sample).isFalse();
                assertThat(ExampleManifestsTest.Dockerfile.ignored(context, sample + "/a.jar")).isFalse();
            }
        }
        for (String unused : List.of("src/main/dist/bin/ringmaster", "pom.xml", "target/ringmaster.tar.gz",
                "target/archive-tmp/x", "target/ringmaster/lib/sandbox/vertx-core.jar")) {
            assertThat(ExampleManifestsTest.Dockerfile.ignored(context, unused)).as("%s stays out of the context", unused)
                    .isTrue();
        }
    }

    private static ExampleManifestsTest.Dockerfile sharderImage() throws IOException {
        return ExampleManifestsTest.Dockerfile.read(REPO.resolve("distribution/Dockerfile"));
    }

    /** Any Java 17 runtime as the base, Temurin's by default: ARG BASE before FROM ${BASE}. */
    private static void assertBase(ExampleManifestsTest.Dockerfile image) {
        assertThat(image.instructions().subList(0, 2))
                .containsExactly("ARG BASE=eclipse-temurin:17-jre-noble", "FROM ${BASE}");
        assertThat(image.all("FROM")).hasSize(1);
    }

    /**
     * The sharder settings each part delivers: keys of SharderSettings with literal values (no
     * placeholders: they are not substituted), no key set by two parts (the second would be refused),
     * the label guard's configuration given the webhook's CA, and the cert-manager component's
     * Certificate named.
     */
    @Test
    void deliveredSharderSettingsAreSettingsSetOnce() throws IOException {
        Set<String> attributes = Arrays.stream(SharderSettings.class.getDeclaredMethods()).map(Method::getName)
                .collect(Collectors.toSet());
        Map<String, Path> setBy = new TreeMap<>();
        for (Path part : List.of(MANIFESTS, LABEL_GUARD, CERT_MANAGER)) {
            Map<?, ?> generator = (Map<?, ?>) list(yamlMap(part.resolve("kustomization.yaml")).get("configMapGenerator")).get(0);
            assertDelivered(generator);
            assertThat(strings(generator.get("files"))).contains("etc/" + SHARDER_CFG);
            Properties delivered = cfg(part.resolve("etc/" + SHARDER_CFG));
            assertThat(attributes).containsAll(delivered.stringPropertyNames());
            for (String key : delivered.stringPropertyNames()) {
                assertThat(delivered.getProperty(key)).as("%s in %s", key, part).doesNotContain("${");
                assertThat(setBy.put(key, part)).as("%s set twice", key).isNull();
            }
        }
        assertThat(cfg(MANIFESTS.resolve("etc/" + SHARDER_CFG)).stringPropertyNames()).as("the base sets nothing").isEmpty();
        assertThat(cfg(LABEL_GUARD.resolve("etc/" + SHARDER_CFG)).getProperty("webhookValidatingConfigurations"))
                .isEqualTo(LABEL_GUARD_CONFIGURATION);
        assertThat(SERIALIZATION.unmarshal(Files.readString(LABEL_GUARD.resolve("validatingwebhookconfiguration.yaml")),
                HasMetadata.class).getMetadata().getName()).isEqualTo(LABEL_GUARD_CONFIGURATION);
        String certificate = cfg(CERT_MANAGER.resolve("etc/" + SHARDER_CFG)).getProperty("webhookCertManagerCertificate");
        GenericKubernetesResource cert = certificate();
        assertThat(certificate).isEqualTo(cert.getMetadata().getNamespace() + "/" + cert.getMetadata().getName());
        assertThatCode(() -> WebhookClientSettings.defaults().withCertManagerCertificate(certificate)).doesNotThrowAnyException();
    }

    /** A ConfigMap the running sharder applies: the delivery label, its namespace, a fixed name. */
    private static void assertDelivered(Map<?, ?> generator) {
        assertThat(generator.get("namespace")).isEqualTo(NS);
        Map<?, ?> options = (Map<?, ?>) generator.get("options");
        assertThat(options.get("disableNameSuffixHash")).isEqualTo(true);
        assertThat(((Map<?, ?>) options.get("labels")).containsKey(DeliveryComponent.LABEL)).isTrue();
    }

    @Test
    void serviceIsWhereWebhookConfigurationsPointAndTargetsTheWebhookPort() throws Exception {
        Service service = single(Service.class);
        Deployment deployment = single(Deployment.class);
        assertThat(service.getMetadata().getNamespace()).isEqualTo(defaultOf("webhookServiceNamespace"))
                .isEqualTo(WebhookClientSettings.DEFAULT_SERVICE.namespace());
        assertThat(service.getMetadata().getName()).isEqualTo(defaultOf("webhookServiceName"))
                .isEqualTo(WebhookClientSettings.DEFAULT_SERVICE.name());
        assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(service.getSpec().getSelector());

        ServicePort webhook = servicePort(service, (Integer) defaultOf("webhookServicePort"));
        assertThat(webhook.getPort()).isEqualTo(WebhookClientSettings.DEFAULT_SERVICE.port());
        assertThat(containerPort(webhook.getTargetPort())).isEqualTo(WEBHOOK_PORT);
        ServicePort metrics = service.getSpec().getPorts().stream().filter(port -> "metrics".equals(port.getName()))
                .findFirst().orElseThrow();
        assertThat(containerPort(metrics.getTargetPort())).isEqualTo(metricsPort());
        assertThat(service.getSpec().getPorts()).extracting(ServicePort::getName).as("the probes' port is the kubelet's")
                .doesNotContain("health");
    }

    /**
     * Every kustomization renders, alone or (the Components) on the base, and the rendered install is
     * what the files say: self-signed by default, cert-manager's Secret and mode with that Component.
     * Needs kubectl on the PATH (its built-in kustomize); skipped otherwise.
     */
    @Test
    void everyKustomizationRendersWithKubectl() throws Exception {
        assumeThat(kubectl("version", "--client").exitCode()).as("kubectl on this machine").isZero();
        Path overlays = Files.createDirectories(REPO.resolve("system-tests/target/kustomize-overlays"));
        for (String alone : List.of("", "crd", "monitoring", "pod-readiness", "network-policy")) {
            Rendered rendered = kubectl("kustomize", MANIFESTS.resolve(alone).toString());
            assertThat(rendered.exitCode()).as("kubectl kustomize manifests/%s: %s", alone, rendered.output()).isZero();
        }
        Map<String, List<String>> combinations = new LinkedHashMap<>();
        combinations.put("cert-manager", List.of("cert-manager"));
        combinations.put("label-guard", List.of("label-guard"));
        combinations.put("both", List.of("label-guard", "cert-manager"));
        combinations.put("both-reversed", List.of("cert-manager", "label-guard"));
        combinations.put("namespaced-leases", List.of("namespaced-leases"));
        combinations.put("admission-policies", List.of("admission-policies"));
        combinations.put("all", List.of("label-guard", "cert-manager", "namespaced-leases", "admission-policies"));
        for (Map.Entry<String, List<String>> combination : combinations.entrySet()) {
            Path overlay = Files.createDirectories(overlays.resolve(combination.getKey()));
            String relative = overlay.relativize(MANIFESTS).toString();
            Files.writeString(overlay.resolve("kustomization.yaml"), "apiVersion: kustomize.config.k8s.io/v1beta1\n"
                    + "kind: Kustomization\nresources:\n- " + relative + "\ncomponents:\n"
                    + combination.getValue().stream().map(component -> "- " + relative + "/" + component + "\n")
                            .collect(Collectors.joining()));
            Rendered rendered = kubectl("kustomize", overlay.toString());
            assertThat(rendered.exitCode()).as("%s: %s", combination.getKey(), rendered.output()).isZero();
            List<HasMetadata> resources = rendered.resources();
            Deployment deployment = resources.stream().filter(Deployment.class::isInstance).map(Deployment.class::cast)
                    .findFirst().orElseThrow();
            PodSpec pod = deployment.getSpec().getTemplate().getSpec();
            Volume tls = volume(pod, "tls");
            List<String> args = pod.getContainers().get(0).getArgs();
            boolean certManager = combination.getValue().contains("cert-manager");
            assertThat(resources).extracting(resource -> resource.getKind() + "/" + resource.getMetadata().getName())
                    .as("the admission policies exactly with their Component, unchanged by the others")
                    .filteredOn(kind -> kind.startsWith("ValidatingAdmissionPolicy"))
                    .isEqualTo(combination.getValue().contains("admission-policies")
                            ? List.of("ValidatingAdmissionPolicy/ringmaster-sharder", "ValidatingAdmissionPolicyBinding/ringmaster-sharder")
                            : List.of());
            if (combination.getValue().contains("namespaced-leases")) {
                assertNamespacedLeases(resources, args, certManager);
            }
            assertThat(resources).as(combination.getKey()).anySatisfy(resource ->
                    assertThat(resource.getKind()).isEqualTo("Role"));
            boolean secretsRole = resources.stream().anyMatch(resource -> resource.getMetadata().getName()
                    .equals("ringmaster:sharder:webhook-certificates"));
            if (certManager) {
                assertThat(tls.getSecret().getSecretName()).isEqualTo("sharder-webhook-tls");
                assertThat(tls.getEmptyDir()).isNull();
                assertThat(args.get(args.lastIndexOf("--webhook-certificates") + 1)).as("the last one wins").isEqualTo("cert-manager");
                assertThat(secretsRole).isFalse();
                assertThat(resources).extracting(HasMetadata::getKind).contains("Issuer", "Certificate");
            } else {
                assertThat(tls.getSecret()).isNull();
                assertThat(tls.getEmptyDir()).isNotNull();
                assertThat(args.get(args.lastIndexOf("--webhook-certificates") + 1)).as("the last one wins").isEqualTo("self-signed");
                assertThat(secretsRole).isTrue();
                assertThat(resources).extracting(HasMetadata::getKind).doesNotContain("Issuer", "Certificate");
            }
        }
        Rendered base = kubectl("kustomize", MANIFESTS.toString());
        assertThat(base.resources()).extracting(resource -> resource.getKind() + "/" + resource.getMetadata().getName())
                .contains("Role/ringmaster:sharder:webhook-certificates", "RoleBinding/ringmaster:sharder:webhook-certificates")
                .doesNotContain("Certificate/sharder-webhook", "Issuer/sharder-selfsigned");
    }

    /**
     * The rendered install with the namespaced-leases component: the sharder runs with --shard-lease-namespaces,
     * and the rendered RBAC grants it everything the code needs with shard Lease permissions in exactly those
     * namespaces; no binding grants any Lease permission cluster-wide.
     */
    private static void assertNamespacedLeases(List<HasMetadata> resources, List<String> args, boolean certManager) {
        int flag = args.lastIndexOf("--shard-lease-namespaces");
        assertThat(flag).as("--shard-lease-namespaces in %s", args).isNotNegative().isLessThan(args.size() - 1);
        List<String> watched = Arrays.stream(args.get(flag + 1).split(",")).map(String::trim).toList();
        List<Permission> granted = granted(resources, resources);
        assertThat(granted).noneMatch(permission -> permission.namespace() == null && permission.resource().equals("leases"));
        List<Permission> needs = namespacedNeeds(watched);
        if (certManager) {
            // cert-manager writes the Secrets; the component removes the sharder's Role for them
            needs.removeIf(need -> need.resource().equals("secrets"));
        }
        assertThat(granted).containsExactlyInAnyOrderElementsOf(needs);
    }

    private record Rendered(int exitCode, String output) {

        List<HasMetadata> resources() {
            List<HasMetadata> resources = new ArrayList<>();
            for (String document : output.split("(?m)^---$")) {
                if (!document.isBlank()) {
                    resources.add(SERIALIZATION.unmarshal(document, HasMetadata.class));
                }
            }
            return resources;
        }
    }

    private static Rendered kubectl(String... args) {
        List<String> command = new ArrayList<>(List.of("kubectl"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Rendered(process.waitFor(), output);
        } catch (IOException e) {
            return new Rendered(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Rendered(-1, e.toString());
        }
    }

    /**
     * selfSigned Issuer → CA Certificate → CA Issuer → serving Certificate: a renewal of the serving
     * certificate (new key, rotationPolicy Always) keeps the CA, so the caBundle stays; the CA itself is
     * renewed with its key.
     */
    @Test
    void certificateNamesTheServiceAndIsIssuedByAStableCa() {
        GenericKubernetesResource certificate = certificate();
        Service service = single(Service.class);
        String host = service.getMetadata().getName() + "." + service.getMetadata().getNamespace() + ".svc";
        assertThat(strings(spec(certificate).get("dnsNames"))).contains(host, host + ".cluster.local");
        GenericKubernetesResource caIssuer = issuerOf(certificate);
        GenericKubernetesResource ca = caCertificate();
        assertThat(((Map<?, ?>) spec(caIssuer).get("ca")).get("secretName")).isEqualTo(spec(ca).get("secretName"));
        assertThat(spec(ca).get("isCA")).isEqualTo(true);
        assertThat(spec(issuerOf(ca)).containsKey("selfSigned")).as("the CA is self-signed").isTrue();
        assertThat(((Map<?, ?>) spec(ca).get("privateKey")).get("rotationPolicy")).isEqualTo("Never");
        assertThat(((Map<?, ?>) spec(certificate).get("privateKey")).get("rotationPolicy")).isEqualTo("Always");
        for (GenericKubernetesResource object : List.of(certificate, ca, caIssuer, issuerOf(ca))) {
            assertThat(object.getMetadata().getNamespace()).isEqualTo(NS);
        }
        // the names and the Secret of the sharder's own certificate: either mode serves the same names from
        // the same Secret
        WebhookCertificates.Settings own = new WebhookCertificates.Settings(NS, service.getMetadata().getName(),
                WebhookCertificates.Settings.DEFAULT_CA_VALIDITY, WebhookCertificates.Settings.DEFAULT_CERTIFICATE_VALIDITY,
                Optional.empty());
        assertThat(strings(spec(certificate).get("dnsNames"))).containsExactlyElementsOf(own.dnsNames());
        assertThat(spec(certificate).get("secretName")).isEqualTo(own.tlsSecret());
        // the CA's Secret is cert-manager's own: never the sharder's CA Secret of self-signed mode
        assertThat(spec(caCertificate()).get("secretName")).isNotEqualTo(own.caSecret());
    }

    @Test
    void rbacGrantsExactlyWhatTheSharderCallsAndNoWildcards() {
        Map<Path, Object> base = new TreeMap<>(objects);
        base.keySet().removeIf(file -> !file.getParent().equals(MANIFESTS));
        assertThat(granted(base.values())).as("permissions of the sharder's service account")
                .containsExactlyInAnyOrderElementsOf(SHARDER_NEEDS);

        objects.values().stream().filter(object -> object instanceof ClusterRole || object instanceof Role)
                .forEach(role -> {
                    List<PolicyRule> rules = role instanceof ClusterRole clusterRole ? clusterRole.getRules()
                            : ((Role) role).getRules();
                    for (PolicyRule rule : rules) {
                        if (rule.getNonResourceURLs() != null && !rule.getNonResourceURLs().isEmpty()) {
                            // only the scrapers' role, and only reading /metrics
                            assertThat(((HasMetadata) role).getMetadata().getName()).isEqualTo(METRICS_READER);
                            assertThat(rule.getNonResourceURLs()).containsExactly("/metrics");
                            assertThat(rule.getVerbs()).containsExactly("get");
                            assertThat(rule.getApiGroups()).isNullOrEmpty();
                            assertThat(rule.getResources()).isNullOrEmpty();
                            continue;
                        }
                        assertThat(rule.getApiGroups()).doesNotContain("*");
                        assertThat(rule.getResources()).doesNotContain("*").noneMatch(resource -> resource.contains("*"));
                        assertThat(rule.getVerbs()).doesNotContain("*");
                        assertThat(rule.getNonResourceURLs()).isNullOrEmpty();
                        if (rule.getResourceNames() != null && !rule.getResourceNames().isEmpty()) {
                            // create and deletecollection cannot be limited by name: such a rule would grant nothing
                            assertThat(rule.getVerbs()).doesNotContain("create", "deletecollection");
                        }
                    }
                });

        // the sharded resources: an empty, aggregated ClusterRole bound to the sharder
        ClusterRole sharded = objects.values().stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast)
                .filter(role -> role.getAggregationRule() != null).findFirst().orElseThrow();
        assertThat(sharded.getRules()).isEmpty();
        assertThat(sharded.getAggregationRule().getClusterRoleSelectors()).singleElement()
                .satisfies(selector -> assertThat(selector.getMatchLabels())
                        .containsEntry("ringmaster.dev/aggregate-to-sharder", "true"));
        assertThat(objects.values()).anySatisfy(object -> {
            assertThat(object).isInstanceOf(ClusterRoleBinding.class);
            ClusterRoleBinding binding = (ClusterRoleBinding) object;
            assertThat(binding.getRoleRef().getName()).isEqualTo(sharded.getMetadata().getName());
            assertThat(binding.getSubjects()).allMatch(ManifestsTest::isSharder);
        });
    }

    @Test
    void leaderElectionLeaseIsInTheNamespaceTheRoleCovers() throws Exception {
        assertThat(defaultOf("leaderElectionNamespace")).isEqualTo(NS);
        assertThat(defaultOf("leaderElectionLease")).isEqualTo(ELECTION_LEASE);
        assertThat(SHARDER_NEEDS).contains(namespaced((String) defaultOf("leaderElectionNamespace"),
                "coordination.k8s.io", "leases", "create"),
                named(NS, "coordination.k8s.io", "leases", "get", (String) defaultOf("leaderElectionLease")),
                named(NS, "coordination.k8s.io", "leases", "patch", (String) defaultOf("leaderElectionLease")));
    }

    /**
     * The namespaced-leases component on the base, as its files say: the base's cluster-wide binding of the
     * shard Lease role deleted, that role bound in each namespace the sharder is told to watch, and nothing else
     * changed. The sharder then has every permission it needs but the cluster-wide Lease ones, shard Lease
     * permissions in exactly the namespaces it watches, and may write no Lease elsewhere but its election Lease.
     */
    @Test
    void namespacedLeasesComponentGrantsLeasesOnlyInTheNamespacesTheSharderWatches() throws Exception {
        Map<String, Object> kustomization = yamlMap(NAMESPACED_LEASES.resolve("kustomization.yaml"));
        assertThat(kustomization.get("kind")).isEqualTo("Component");
        Map<String, Object> delete = yamlMap(NAMESPACED_LEASES.resolve("rbac-binding-patch.yaml"));
        assertThat(delete.get("$patch")).isEqualTo("delete");
        assertThat(delete.get("kind")).isEqualTo("ClusterRoleBinding");
        String deleted = (String) ((Map<?, ?>) delete.get("metadata")).get("name");

        List<?> args = SERIALIZATION.unmarshal(Files.readString(NAMESPACED_LEASES.resolve("args-patch.yaml")), List.class);
        assertThat(args).extracting(operation -> ((Map<?, ?>) operation).get("op"),
                operation -> ((Map<?, ?>) operation).get("path")).containsOnly(
                        tuple("add", "/spec/template/spec/containers/0/args/-")).hasSize(2);
        assertThat(((Map<?, ?>) args.get(0)).get("value")).isEqualTo("--shard-lease-namespaces");
        List<String> watched = Arrays.stream(String.valueOf(((Map<?, ?>) args.get(1)).get("value")).split(","))
                .map(String::trim).toList();
        assertThat(defaultOf("shardLeaseNamespaces")).as("the sharder setting the flag sets; empty: every namespace")
                .isEqualTo("");

        Map<Path, Object> base = new TreeMap<>(objects);
        base.keySet().removeIf(file -> !file.getParent().equals(MANIFESTS));
        List<Object> installed = new ArrayList<>(base.values());
        assertThat(installed.removeIf(object -> object instanceof ClusterRoleBinding binding
                && binding.getMetadata().getName().equals(deleted))).as("the patch deletes a binding of the base").isTrue();
        installed.addAll(namespacedLeases.values());
        assertThat(namespacedLeases.values()).allSatisfy(object -> {
            assertThat(object).isInstanceOf(RoleBinding.class);
            assertThat(((RoleBinding) object).getRoleRef().getKind()).isEqualTo("ClusterRole");
            assertThat(((RoleBinding) object).getRoleRef().getName()).isEqualTo(SHARD_LEASES);
        });
        assertThat(namespacedLeases.values()).extracting(object -> ((HasMetadata) object).getMetadata().getNamespace())
                .as("one RoleBinding per namespace the sharder watches").containsExactlyInAnyOrderElementsOf(watched);

        assertThat(granted(installed, objects.values())).containsExactlyInAnyOrderElementsOf(namespacedNeeds(watched));
    }

    /** SHARDER_NEEDS with the shard Lease permissions in these namespaces instead of cluster-wide. */
    private static List<Permission> namespacedNeeds(List<String> namespaces) {
        List<Permission> needs = new ArrayList<>(SHARDER_NEEDS);
        assertThat(needs.removeIf(need -> need.namespace() == null && need.resource().equals("leases")))
                .as("cluster-wide Lease permissions in the base").isTrue();
        for (String namespace : namespaces) {
            SHARD_LEASE_VERBS.forEach(verb -> needs.add(namespaced(namespace, "coordination.k8s.io", "leases", verb)));
        }
        assertThat(needs).noneMatch(need -> need.namespace() == null && need.resource().equals("leases"));
        return needs;
    }

    @Test
    void podReadinessRbacIsOptionalAndReadsPods() {
        Map<Path, Object> podReadiness = new TreeMap<>(objects);
        podReadiness.keySet().removeIf(file -> !file.getParent().equals(MANIFESTS.resolve("pod-readiness")));
        assertThat(granted(podReadiness.values())).containsExactlyInAnyOrderElementsOf(POD_READINESS_NEEDS);
    }

    @Test
    void podDisruptionBudgetKeepsOneReplica() {
        PodDisruptionBudget budget = single(PodDisruptionBudget.class);
        assertThat(budget.getSpec().getMinAvailable()).isEqualTo(new IntOrString(1));
        assertThat(single(Deployment.class).getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());
    }

    /**
     * The optional NetworkPolicy selects the sharder's pods and opens exactly the container's ports (by
     * name, so it follows the Deployment), and lets out only TCP to the API server's ports. Validated
     * here, not enforced: the test cluster's CNI does not enforce policies.
     */
    @Test
    void networkPolicyOpensTheSharderContainersPortsAndLetsOutOnlyTheApiServer() {
        NetworkPolicy policy = single(NetworkPolicy.class);
        Deployment deployment = single(Deployment.class);
        assertThat(policy.getMetadata().getNamespace()).isEqualTo(NS);
        assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(policy.getSpec().getPodSelector().getMatchLabels());
        assertThat(single(Service.class).getSpec().getSelector()).isEqualTo(policy.getSpec().getPodSelector().getMatchLabels());
        assertThat(policy.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
        assertThat(policy.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(rule.getFrom()).as("from anywhere: the API server's addresses differ by cluster").isNullOrEmpty();
            assertThat(rule.getPorts()).extracting(port -> port.getPort().getStrVal())
                    .containsExactlyInAnyOrderElementsOf(sharderContainer().getPorts().stream().map(ContainerPort::getName).toList());
            assertThat(rule.getPorts()).allSatisfy(port -> assertThat(port.getProtocol()).isEqualTo("TCP"));
        });
        assertThat(policy.getSpec().getEgress()).singleElement().satisfies(rule -> {
            assertThat(rule.getPorts()).extracting(port -> port.getPort().getIntVal()).containsExactlyInAnyOrder(443, 6443);
            assertThat(rule.getPorts()).allSatisfy(port -> assertThat(port.getProtocol()).isEqualTo("TCP"));
        });
    }

    @Test
    void serviceMonitorScrapesTheServicesMetricsPort() {
        GenericKubernetesResource monitor = generic("ServiceMonitor");
        Service service = single(Service.class);
        Map<?, ?> selector = (Map<?, ?>) spec(monitor).get("selector");
        Map<String, String> matchLabels = new LinkedHashMap<>();
        castMap(selector.get("matchLabels")).forEach((key, value) -> matchLabels.put(String.valueOf(key), String.valueOf(value)));
        assertThat(service.getMetadata().getLabels()).containsAllEntriesOf(matchLabels);
        assertThat(strings(((Map<?, ?>) spec(monitor).get("namespaceSelector")).get("matchNames")))
                .containsExactly(service.getMetadata().getNamespace());
        Map<?, ?> endpoint = (Map<?, ?>) list(spec(monitor).get("endpoints")).get(0);
        assertThat(endpoint.get("path")).isEqualTo("/metrics");
        assertThat(service.getSpec().getPorts()).extracting(ServicePort::getName).contains((String) endpoint.get("port"));

        // HTTPS with Prometheus's token; the certificate verified against the webhook's CA bundle under the
        // Service's name (the sharder serves its webhook certificate on the metrics port too)
        assertThat(endpoint.get("scheme")).isEqualTo("https");
        assertThat(endpoint.get("bearerTokenFile")).isEqualTo("/var/run/secrets/kubernetes.io/serviceaccount/token");
        Map<?, ?> tls = (Map<?, ?>) endpoint.get("tlsConfig");
        assertThat(tls.get("insecureSkipVerify")).isNotEqualTo(true);
        assertThat(tls.get("serverName")).isEqualTo(service.getMetadata().getName() + "." + NS + ".svc");
        Map<?, ?> caSecret = (Map<?, ?>) ((Map<?, ?>) tls.get("ca")).get("secret");
        assertThat(caSecret.get("name")).isEqualTo(webhookSecrets()[1]);
        assertThat(caSecret.get("key")).isEqualTo(WebhookCertificates.CA_CERT);
        assertThat(spec(certificate()).get("secretName")).as("cert-manager's Secret has the same name")
                .isEqualTo(webhookSecrets()[1]);
        assertThat(strings(spec(certificate()).get("dnsNames"))).contains((String) tls.get("serverName"));
    }

    /** Scrapers get exactly get on /metrics; monitoring/ grants it to Prometheus, the base to nobody. */
    @Test
    void theMetricsReaderRoleReadsMetricsOnlyAndMonitoringBindsItToPrometheus() {
        ClusterRole reader = objects.values().stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast)
                .filter(role -> role.getMetadata().getName().equals(METRICS_READER)).findFirst().orElseThrow();
        assertThat(reader.getRules()).singleElement().satisfies(rule -> {
            assertThat(rule.getNonResourceURLs()).containsExactly("/metrics");
            assertThat(rule.getVerbs()).containsExactly("get");
        });
        List<ClusterRoleBinding> bindings = objects.entrySet().stream()
                .filter(entry -> entry.getValue() instanceof ClusterRoleBinding binding
                        && binding.getRoleRef().getName().equals(METRICS_READER))
                .peek(entry -> assertThat(entry.getKey().getParent()).isEqualTo(MANIFESTS.resolve("monitoring")))
                .map(entry -> (ClusterRoleBinding) entry.getValue()).toList();
        assertThat(bindings).singleElement().satisfies(binding -> assertThat(binding.getSubjects()).singleElement()
                .satisfies(subject -> assertThat(subject.getKind()).isEqualTo("ServiceAccount")));
    }

    /** The HTTPS metrics port of etc/dev.ringmaster.metrics.cfg. */
    private static int metricsPort() throws IOException {
        return Integer.parseInt(distributionCfg("dev.ringmaster.metrics.cfg").getProperty("port").trim());
    }

    // ---- permissions

    /** A verb on a resource, in a namespace or cluster-wide, on every object or only the named ones. */
    record Permission(String namespace, String group, String resource, String verb, Set<String> names) {
        Permission {
            names = Set.copyOf(names);
        }

        @Override
        public String toString() {
            return (namespace == null ? "cluster-wide" : "in " + namespace) + ": " + verb + " "
                    + (group.isEmpty() ? resource : resource + "." + group) + (names.isEmpty() ? "" : " " + new TreeSet<>(names));
        }
    }

    private static Permission cluster(String group, String resource, String verb) {
        return new Permission(null, group, resource, verb, Set.of());
    }

    private static Permission namespaced(String namespace, String group, String resource, String verb) {
        return new Permission(namespace, group, resource, verb, Set.of());
    }

    /** Only on the objects of these names (RBAC resourceNames). */
    private static Permission named(String namespace, String group, String resource, String verb, String... names) {
        return new Permission(namespace, group, resource, verb, Set.of(names));
    }

    /**
     * The Secrets of the sharder's own certificates, as the code names them for the Service of the
     * default settings (WebhookCertificates.Settings: {@code <service>-webhook-ca}, {@code <service>-webhook-tls}).
     */
    private static String[] webhookSecrets() {
        WebhookCertificates.Settings settings = new WebhookCertificates.Settings(NS, WebhookClientSettings.DEFAULT_SERVICE.name(),
                WebhookCertificates.Settings.DEFAULT_CA_VALIDITY, WebhookCertificates.Settings.DEFAULT_CERTIFICATE_VALIDITY,
                Optional.empty());
        return new String[] {settings.caSecret(), settings.tlsSecret()};
    }

    /** What the bindings among these objects grant the sharder's service account, through roles among them. */
    private static List<Permission> granted(Collection<Object> among) {
        return granted(among, objects.values());
    }

    /** What the bindings among these objects grant the sharder's service account, through roles among {@code roles}. */
    private static List<Permission> granted(Collection<?> among, Collection<?> roles) {
        List<Permission> granted = new ArrayList<>();
        for (Object object : among) {
            if (object instanceof ClusterRoleBinding binding && binding.getSubjects().stream().anyMatch(ManifestsTest::isSharder)) {
                rulesOf(roles, binding.getRoleRef().getKind(), binding.getRoleRef().getName(), null)
                        .forEach(rule -> expand(rule, null, granted));
            } else if (object instanceof RoleBinding binding
                    && binding.getSubjects().stream().anyMatch(ManifestsTest::isSharder)) {
                String namespace = binding.getMetadata().getNamespace();
                rulesOf(roles, binding.getRoleRef().getKind(), binding.getRoleRef().getName(), namespace)
                        .forEach(rule -> expand(rule, namespace, granted));
            }
        }
        return granted;
    }

    private static List<PolicyRule> rulesOf(Collection<?> roles, String kind, String name, String namespace) {
        return roles.stream()
                .filter(object -> kind.equals("ClusterRole") ? object instanceof ClusterRole
                        : object instanceof Role role && Objects.equals(role.getMetadata().getNamespace(), namespace))
                .map(HasMetadata.class::cast)
                .filter(role -> role.getMetadata().getName().equals(name))
                .findFirst()
                .map(role -> role instanceof ClusterRole clusterRole ? clusterRole.getRules() : ((Role) role).getRules())
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in manifests/"));
    }

    private static void expand(PolicyRule rule, String namespace, List<Permission> into) {
        Set<String> names = rule.getResourceNames() == null ? Set.of() : Set.copyOf(rule.getResourceNames());
        for (String group : rule.getApiGroups()) {
            for (String resource : rule.getResources()) {
                for (String verb : rule.getVerbs()) {
                    into.add(new Permission(namespace, group, resource, verb, names));
                }
            }
        }
    }

    private static boolean isSharder(Subject subject) {
        return "ServiceAccount".equals(subject.getKind()) && SERVICE_ACCOUNT.equals(subject.getName())
                && NS.equals(subject.getNamespace());
    }

    // ---- the objects

    private static <T> T single(Class<T> type) {
        List<T> found = objects.values().stream().filter(type::isInstance).map(type::cast).toList();
        assertThat(found).as("one %s in manifests/", type.getSimpleName()).hasSize(1);
        return found.get(0);
    }

    private static GenericKubernetesResource generic(String kind) {
        List<GenericKubernetesResource> found = Stream.concat(objects.values().stream(), component.values().stream())
                .filter(GenericKubernetesResource.class::isInstance).map(GenericKubernetesResource.class::cast)
                .filter(resource -> resource.getKind().equals(kind)).toList();
        assertThat(found).as("one %s in manifests/", kind).hasSize(1);
        return found.get(0);
    }

    /** The component's serving certificate (not the CA's). */
    private static GenericKubernetesResource certificate() {
        return certificates(false);
    }

    private static GenericKubernetesResource caCertificate() {
        return certificates(true);
    }

    private static GenericKubernetesResource certificates(boolean ca) {
        List<GenericKubernetesResource> found = component.values().stream().map(GenericKubernetesResource.class::cast)
                .filter(resource -> resource.getKind().equals("Certificate"))
                .filter(resource -> Boolean.TRUE.equals(spec(resource).get("isCA")) == ca).toList();
        assertThat(found).as("one %s Certificate in the cert-manager component", ca ? "CA" : "serving").hasSize(1);
        return found.get(0);
    }

    /** The Issuer of the component that a Certificate names. */
    private static GenericKubernetesResource issuerOf(GenericKubernetesResource certificate) {
        Map<?, ?> issuerRef = (Map<?, ?>) spec(certificate).get("issuerRef");
        assertThat(issuerRef.get("kind")).isEqualTo("Issuer");
        return component.values().stream().map(GenericKubernetesResource.class::cast)
                .filter(resource -> resource.getKind().equals("Issuer"))
                .filter(resource -> resource.getMetadata().getName().equals(issuerRef.get("name"))).findFirst()
                .orElseThrow(() -> new AssertionError("no Issuer " + issuerRef.get("name") + " in the cert-manager component"));
    }

    private static Map<?, ?> spec(GenericKubernetesResource resource) {
        return (Map<?, ?>) resource.getAdditionalProperties().get("spec");
    }

    private static Container sharderContainer() {
        List<Container> containers = single(Deployment.class).getSpec().getTemplate().getSpec().getContainers();
        assertThat(containers).hasSize(1);
        return containers.get(0);
    }

    /** The value after a flag in the container's args. */
    private static String flag(Container container, String flag) {
        List<String> args = container.getArgs();
        int at = args.indexOf(flag);
        assertThat(at).as("%s in the args %s", flag, args).isNotNegative().isLessThan(args.size() - 1);
        return args.get(at + 1);
    }

    private static VolumeMount mount(Container container, String path) {
        return container.getVolumeMounts().stream().filter(mount -> mount.getMountPath().equals(path)).findFirst()
                .orElse(null);
    }

    private static Volume volume(PodSpec pod, String name) {
        return pod.getVolumes().stream().filter(volume -> volume.getName().equals(name)).findFirst().orElseThrow();
    }

    /** "port/path" of a probe, the port resolved through the container's named ports. */
    private static String probe(Probe probe) {
        assertThat(probe).as("probe").isNotNull();
        assertThat(probe.getHttpGet()).as("HTTP probe").isNotNull();
        return containerPort(probe.getHttpGet().getPort()) + probe.getHttpGet().getPath();
    }

    private static int containerPort(IntOrString port) {
        if (port.getIntVal() != null) {
            return port.getIntVal();
        }
        return sharderContainer().getPorts().stream().filter(candidate -> port.getStrVal().equals(candidate.getName()))
                .findFirst().orElseThrow(() -> new AssertionError("no container port named " + port.getStrVal()))
                .getContainerPort();
    }

    private static ServicePort servicePort(Service service, int port) {
        return service.getSpec().getPorts().stream().filter(candidate -> candidate.getPort() == port).findFirst()
                .orElseThrow(() -> new AssertionError("Service " + service.getMetadata().getName() + " has no port " + port));
    }

    /** The default of a sharder setting (SharderSettings), as a configuration without the key gets it. */
    private static Object defaultOf(String attribute) throws NoSuchMethodException {
        return SharderSettings.class.getMethod(attribute).getDefaultValue();
    }

    // ---- files

    /** Every YAML file under manifests/ but kustomizations, the label guard's and the admission policies'. */
    private static List<Path> manifestFiles() throws IOException {
        try (Stream<Path> paths = Files.walk(MANIFESTS)) {
            return paths.filter(Files::isRegularFile)
                    .filter(path -> !path.startsWith(LABEL_GUARD) && !path.startsWith(ADMISSION_POLICIES))
                    .filter(path -> path.toString().endsWith(".yaml") || path.toString().endsWith(".yml"))
                    .filter(path -> !path.getFileName().toString().equals("kustomization.yaml"))
                    .sorted()
                    .toList();
        }
    }

    /**
     * The files of a kustomization's directory tree that belong to it (not to a nested kustomization),
     * and the nested kustomizations' directories directly below it.
     */
    private static List<Path> ownedBy(Path root, List<Path> roots) throws IOException {
        List<Path> owned = new ArrayList<>();
        try (Stream<Path> children = Files.list(root)) {
            for (Path child : children.sorted().toList()) {
                if (child.getFileName().toString().equals("kustomization.yaml")) {
                    continue;
                }
                if (Files.isDirectory(child)) {
                    if (roots.contains(child) || child.equals(LABEL_GUARD)) {
                        owned.add(child);
                    } else {
                        owned.addAll(ownedBy(child, roots));
                    }
                } else {
                    owned.add(child);
                }
            }
        }
        return owned;
    }

    private static Map<String, Object> yamlMap(Path file) throws IOException {
        Map<String, Object> map = new LinkedHashMap<>();
        castMap(SERIALIZATION.unmarshal(Files.readString(file, StandardCharsets.UTF_8), Map.class))
                .forEach((key, value) -> map.put(String.valueOf(key), value));
        return map;
    }

    private static Properties distributionCfg(String name) throws IOException {
        return cfg(REPO.resolve("distribution/src/main/dist/etc").resolve(name));
    }

    private static Properties distributionCfgIfPresent(String name) throws IOException {
        Path file = REPO.resolve("distribution/src/main/dist/etc").resolve(name);
        return Files.exists(file) ? cfg(file) : new Properties();
    }

    private static Properties cfg(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        return properties;
    }

    private static List<?> list(Object value) {
        return value == null ? List.of() : (List<?>) value;
    }

    private static List<String> strings(Object value) {
        return list(value).stream().map(String::valueOf).toList();
    }

    @SuppressWarnings("unchecked")
    private static Map<Object, Object> castMap(Object value) {
        return (Map<Object, Object>) value;
    }
}
