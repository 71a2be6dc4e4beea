package dev.ringmaster.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ringmaster.examples.checksum.ChecksumController;
import dev.ringmaster.examples.checksum.ChecksumShard;
import dev.ringmaster.examples.checksum.CommandLine;
import dev.ringmaster.flags.UsageException;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.shard.client.Sharding;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps examples/manifests/ (the example shards in a cluster, docs/example-shards.md) honest against
 * the code: every variant renders (its kustomizations only list resources, so reading the files is
 * what {@code kubectl kustomize} does), its ring selects the example's namespace, the shards' args are
 * flags the real {@link CommandLine} accepts and, with the pod's environment, name the shard after
 * its pod, the Role grants what the shard's code calls (recorded from a running shard), the sharder
 * gets the aggregated access to the ring's resources, and the pods run the image
 * distribution/examples.Dockerfile builds, hardened.
 */
@EnableCrudApiServer
class ExampleManifestsTest {

    static final Path EXAMPLES = Repository.resolve("examples/manifests");
    private static final Path BASE = EXAMPLES.resolve("base");
    private static final Set<String> VARIANTS = Set.of("checksum-statefulset", "checksum-deployment",
            "josdk-statefulset", "josdk-deployment", "checksum-ranges");
    /** The image of the example shards: what docs/example-shards.md tells to build, in the project's version. */
    static final String IMAGE = "ringmaster-examples";
    /** Where examples.Dockerfile puts the scripts. */
    private static final String HOME = "/opt/ringmaster";
    private static final String RING_GROUP_VERSION = "sharding.timebertt.dev/v1alpha1";
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    /**
     * Every permission a shard of the example needs in its namespace, written once, and the class
     * that needs it ({@link #theRoleCoversWhatARunningShardCalls} checks it against the requests of a
     * running shard; the JOSDK operator calls the same through shard-josdk's hand-backs and the
     * checksum controller's ChecksumReconciler, JosdkChecksumOperatorTest checks its own requests).
     */
    private static final Set<String> SHARD_NEEDS = Set.of(
            // ShardLease: reads, creates, renews, marks restarting or releases (optimistic update) the
            // shard's Lease; ChecksumController's start check reads it; a pool's live slots are listed; in
            // range mode the shard watches its own Lease (AssignmentWatch)
            "coordination.k8s.io/leases get", "coordination.k8s.io/leases create", "coordination.k8s.io/leases update",
            "coordination.k8s.io/leases list", "coordination.k8s.io/leases watch",
            // stopping: restart or leave, by the StatefulSet's or the pool Deployment's replicas
            "apps/statefulsets get", "apps/deployments get",
            // the shard-filtered informer and the drain sweep
            "/configmaps list", "/configmaps watch",
            // DrainAcknowledger: one JSON patch, a re-read after a conflict
            "/configmaps patch", "/configmaps get",
            // ChecksumReconciler: reads, creates and updates the Secret; the Secret informer
            "/secrets get", "/secrets create", "/secrets update", "/secrets list", "/secrets watch");

    /** What the sharder's leader does to every main and controlled resource of a ring (docs/install.md). */
    private static final Set<String> SHARDER_VERBS = Set.of("list", "watch", "patch");

    private static Map<String, List<HasMetadata>> variants;

    KubernetesMockServer server;
    KubernetesClient client;

    @TempDir
    Path dir;

    @BeforeAll
    static void render() throws IOException {
        variants = new TreeMap<>();
        try (Stream<Path> children = Files.list(EXAMPLES)) {
            for (Path child : children.filter(path -> Files.isRegularFile(path.resolve("kustomization.yaml")))
                    .filter(path -> !path.equals(BASE)).sorted().toList()) {
                variants.put(child.getFileName().toString(), kustomize(child));
            }
        }
    }

    @Test
    void theVariantsRenderFromTheirFilesAndTheBase() throws IOException {
        assertThat(variants.keySet()).containsExactlyInAnyOrderElementsOf(VARIANTS);
        List<Path> roots = new ArrayList<>(variants.keySet().stream().map(EXAMPLES::resolve).toList());
        roots.add(BASE);
        for (Path root : roots) {
            Map<String, Object> kustomization = yamlMap(root.resolve("kustomization.yaml"));
            if (kustomization.containsKey("patches")) {
                // an overlay: one other variant and patches of it, nothing else (checksum-ranges)
                assertThat(kustomization.keySet()).as("%s/kustomization.yaml", Repository.ROOT.relativize(root))
                        .containsExactlyInAnyOrder("apiVersion", "kind", "resources", "patches");
                assertThat(strings(kustomization.get("resources"))).singleElement().asString().startsWith("../")
                        .satisfies(parent -> assertThat(variants).containsKey(parent.substring(3)));
                try (Stream<Path> children = Files.list(root)) {
                    assertThat(children.map(path -> path.getFileName().toString())).containsExactly("kustomization.yaml");
                }
                continue;
            }
            assertThat(kustomization.keySet()).as("%s/kustomization.yaml: only resources, so the files are what"
                    + " kubectl kustomize renders", Repository.ROOT.relativize(root))
                    .containsExactlyInAnyOrder("apiVersion", "kind", "resources");
            Set<Path> listed = strings(kustomization.get("resources")).stream()
                    .map(entry -> root.resolve(entry).normalize()).collect(Collectors.toCollection(TreeSet::new));
            Set<Path> files;
            try (Stream<Path> children = Files.list(root)) {
                files = children.filter(path -> !path.getFileName().toString().equals("kustomization.yaml"))
                        .collect(Collectors.toCollection(TreeSet::new));
            }
            if (!root.equals(BASE)) {
                files.add(BASE);
            }
            assertThat(listed).as("%s/kustomization.yaml lists every file there, and the base",
                    Repository.ROOT.relativize(root)).isEqualTo(files);
        }
        variants.forEach((variant, objects) -> {
            assertThat(objects).as(variant).isNotEmpty();
            for (HasMetadata object : objects) {
                if (object instanceof GenericKubernetesResource generic) {
                    assertThat(generic.getApiVersion()).as("%s: %s", variant, generic.getKind()).isEqualTo(RING_GROUP_VERSION);
                    assertThat(generic.getKind()).isIn("ClusterRing", "ControllerRing");
                } else {
                    assertThat(ModelFields.unknown(object)).as("fields the %s model does not know in %s (typos?)",
                            object.getClass().getSimpleName(), variant).isEmpty();
                }
            }
            assertThat(objects.stream().map(ExampleManifestsTest::key).toList()).as("%s: no object twice", variant)
                    .doesNotHaveDuplicates();
        });
    }

    /** A ring with {@code spec.ranges} labels nothing: its shards must serve ranges, and only its shards may. */
    @Test
    void theShardsServeRangesExactlyWhereTheRingIsInRangeMode() {
        variants.forEach((variant, objects) -> assertThat(shardContainer(template(objects)).getArgs().contains("--range-mode"))
                .as("%s: --range-mode exactly when the ring has spec.ranges", variant).isEqualTo(inRangeMode(objects)));
        assertThat(variants.values()).as("a variant in range mode").anyMatch(ExampleManifestsTest::inRangeMode);
    }

    private static boolean inRangeMode(List<HasMetadata> objects) {
        return ((Map<?, ?>) ring(objects).getAdditionalProperties().get("spec")).containsKey("ranges");
    }

    @Test
    void eachVariantsRingSelectsTheExamplesNamespaceWhereEverythingLives() {
        variants.forEach((variant, objects) -> {
            Namespace namespace = single(objects, Namespace.class);
            GenericKubernetesResource ring = ring(objects);
            Map<?, ?> spec = (Map<?, ?>) ring.getAdditionalProperties().get("spec");
            LabelSelector selector = SERIALIZATION.convertValue(spec.get("namespaceSelector"), LabelSelector.class);
            assertThat(selector).as("%s: the ring's namespaceSelector", variant).isNotNull();
            assertThat(selector.getMatchExpressions()).as("matchLabels only").isNullOrEmpty();
            assertThat(selector.getMatchLabels()).isNotEmpty();
            assertThat(namespace.getMetadata().getLabels()).as("%s: the namespace's labels", variant)
                    .containsAllEntriesOf(selector.getMatchLabels());
            // the sharder never shards its own namespace nor kube-system: the example's is neither
            assertThat(namespace.getMetadata().getName()).isNotIn("sharding-system", "kube-system");
            assertThat(namespace.getMetadata().getLabels())
                    .containsEntry("pod-security.kubernetes.io/enforce", "restricted");

            // ConfigMaps, their Secrets following them
            assertThat(list(spec.get("resources"))).singleElement().satisfies(resource -> {
                Map<?, ?> main = (Map<?, ?>) resource;
                assertThat(main.get("group")).isEqualTo("");
                assertThat(main.get("resource")).isEqualTo("configmaps");
                assertThat(list(main.get("controlledResources"))).singleElement()
                        .isEqualTo(Map.of("group", "", "resource", "secrets"));
            });

            for (HasMetadata object : objects) {
                boolean clusterScoped = object instanceof Namespace || object instanceof ClusterRole
                        || object instanceof GenericKubernetesResource;
                assertThat(object.getMetadata().getNamespace()).as("%s: namespace of %s", variant, key(object))
                        .isEqualTo(clusterScoped ? null : namespace.getMetadata().getName());
            }
        });
    }

    @Test
    void theShardsArgsAreFlagsOfTheCommandLineAndNameTheShardAfterItsPodOrItsPool() throws Exception {
        variants.forEach((variant, objects) -> {
            String namespace = single(objects, Namespace.class).getMetadata().getName();
            GenericKubernetesResource ring = ring(objects);
            PodTemplateSpec template = template(objects);
            Container container = shardContainer(template);
            String podName = podName(objects);

            Map<String, String> environment = environment(container, podName, namespace);
            environment.put("HOSTNAME", podName.length() > 63 ? podName.substring(0, 63) : podName);
            environment.put("KUBERNETES_SERVICE_HOST", "10.0.0.1");
            List<String> args = container.getArgs().stream().map(arg -> expand(arg, environment)).toList();
            Path serviceAccountNamespace = write(dir.resolve(variant + "-namespace"), namespace);
            CommandLine parsed;
            try {
                parsed = CommandLine.parse(args, new CommandLine.Environment(environment::get, serviceAccountNamespace));
            } catch (UsageException e) {
                throw new AssertionError(variant + ": " + args + " is not a command line of " + container.getCommand()
                        + ": " + e.getMessage(), e);
            }
            assertThat(parsed.kubeconfig()).as("%s: the pod's ServiceAccount (auto-configuration)", variant).isEmpty();
            assertThat(parsed.shard().ring()).as(variant).isEqualTo(ring.getMetadata().getName());
            assertThat(parsed.shard().ringKind()).as(variant).isEqualTo(RingKind.ofKind(ring.getKind()));
            HasMetadata workload = objects.stream().filter(object -> object instanceof StatefulSet || object instanceof Deployment)
                    .findFirst().orElseThrow();
            if (workload instanceof StatefulSet) {
                assertThat(parsed.shard().identityPool()).as(variant).isEmpty();
                assertThat(parsed.shard().shard()).as("%s: the shard is the pod", variant).isEqualTo(podName);
                assertThat(parsed.shard().podName()).as("%s: the StatefulSet rule knows the pod", variant).contains(podName);
            } else {
                assertThat(parsed.shard().identityPool()).as("%s: a slot of the Deployment's pool", variant)
                        .contains(workload.getMetadata().getName());
            }
            assertThat(parsed.shard().onStop()).as("%s: restart or leave by the workload's replicas", variant)
                    .isEqualTo(ChecksumShard.OnStop.AUTO);
            assertThat(parsed.shard().instance()).as("%s: the fence between two pods of one shard", variant)
                    .contains("uid-of-" + podName);
            assertThat(parsed.shard().leaseNamespace()).as(variant).isEqualTo(namespace);
            assertThat(parsed.shard().watchNamespaces()).as("%s: only the namespace its Role covers", variant)
                    .containsExactly(namespace);
            // the pod name comes from the downward API, not from the hostname, which a pod may set
            assertThat(fieldRef(container, CommandLine.POD_NAME_ENV)).isEqualTo("metadata.name");
            assertThat(fieldRef(container, "POD_NAMESPACE")).isEqualTo("metadata.namespace");
            assertThat(fieldRef(container, Sharding.POD_UID_ENV)).isEqualTo("metadata.uid");
        });
    }

    @Test
    void thePodsRunTheExamplesImageHardened() throws Exception {
        String version = projectVersion();
        Dockerfile dockerfile = Dockerfile.read(Repository.resolve("distribution/examples.Dockerfile"));
        long shutdownSeconds = shutdownTimeout().toSeconds();
        variants.forEach((variant, objects) -> {
            PodTemplateSpec template = template(objects);
            PodSpec pod = template.getSpec();
            Container container = shardContainer(template);

            assertThat(container.getImage()).as(variant).isEqualTo(IMAGE + ":" + version);
            assertThat(container.getImagePullPolicy()).as(variant).isEqualTo("IfNotPresent");
            assertThat(container.getCommand()).as("%s: the pod's command picks the example", variant).hasSize(1);
            String command = container.getCommand().get(0);
            assertThat(command).startsWith(HOME + "/bin/");
            String script = command.substring((HOME + "/bin/").length());
            assertThat(dockerfile.copied()).as("%s: examples.Dockerfile copies %s and its class path", variant, command)
                    .containsAll(ImageContents.example(script));
            String javaOpts = ImageContents.javaOptsVariable(script);
            assertThat(container.getEnv()).as("%s: JVM options in the variable %s reads", variant, script)
                    .anySatisfy(env -> {
                        assertThat(env.getName()).isEqualTo(javaOpts);
                        assertThat(env.getValue()).contains("-XX:MaxRAMPercentage=");
                    });

            assertThat(pod.getSecurityContext().getRunAsNonRoot()).as(variant).isTrue();
            assertThat(String.valueOf(pod.getSecurityContext().getRunAsUser())).as("%s: the image's user", variant)
                    .isEqualTo(dockerfile.user().split(":")[0]);
            assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
            assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).as(variant).isTrue();
            assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
            assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
            VolumeMount tmp = container.getVolumeMounts().stream().filter(mount -> mount.getMountPath().equals("/tmp"))
                    .findFirst().orElseThrow(() -> new AssertionError(variant + ": nothing writable at /tmp"));
            assertThat(pod.getVolumes().stream().filter(volume -> volume.getName().equals(tmp.getName()))
                    .map(Volume::getEmptyDir).findFirst()).as("%s: /tmp is an emptyDir", variant).get().isNotNull();

            assertThat(container.getResources().getRequests()).as(variant)
                    .containsEntry("cpu", new Quantity("50m")).containsEntry("memory", new Quantity("192Mi"));
            assertThat(container.getResources().getLimits()).as(variant).containsOnlyKeys("memory")
                    .containsEntry("memory", new Quantity("256Mi"));
            assertThat(pod.getTerminationGracePeriodSeconds()).as("%s: longer than the command's shutdown (%s s)",
                    variant, shutdownSeconds).isGreaterThan(shutdownSeconds);
            // the one port a shard serves: its metrics, on the port its --metrics-port names
            assertThat(container.getPorts()).as("%s: the shard's ports", variant).singleElement().satisfies(port -> {
                assertThat(port.getName()).isEqualTo("metrics");
                assertThat(container.getArgs()).as("%s: the shard's flags", variant)
                        .containsSequence("--metrics-port", String.valueOf(port.getContainerPort()));
            });
        });
    }

    @Test
    void theWorkloadsRunThreeShardsAsTheBoundServiceAccount() {
        variants.forEach((variant, objects) -> {
            PodTemplateSpec template = template(objects);
            LabelSelector selector;
            int replicas;
            if (objects.stream().anyMatch(StatefulSet.class::isInstance)) {
                StatefulSet set = single(objects, StatefulSet.class);
                selector = set.getSpec().getSelector();
                replicas = set.getSpec().getReplicas();
                assertThat(set.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
                Service service = single(objects, Service.class);
                assertThat(set.getSpec().getServiceName()).as("%s: its governing Service", variant)
                        .isEqualTo(service.getMetadata().getName());
                assertThat(service.getSpec().getClusterIP()).isEqualTo("None");
                assertThat(template.getMetadata().getLabels()).containsAllEntriesOf(service.getSpec().getSelector());
            } else {
                Deployment deployment = single(objects, Deployment.class);
                selector = deployment.getSpec().getSelector();
                replicas = deployment.getSpec().getReplicas();
                assertThat(deployment.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal())
                        .as("%s: a rollout never shrinks the ring", variant).isZero();
            }
            assertThat(replicas).as(variant).isEqualTo(3);
            assertThat(template.getMetadata().getLabels()).as(variant).containsAllEntriesOf(selector.getMatchLabels());

            ServiceAccount account = single(objects, ServiceAccount.class);
            assertThat(template.getSpec().getServiceAccountName()).as(variant).isEqualTo(account.getMetadata().getName());
            assertThat(template.getSpec().getAutomountServiceAccountToken()).as("%s: the client needs the token", variant)
                    .isNotEqualTo(Boolean.FALSE);
        });
    }

    @Test
    void theRoleGrantsExactlyWhatTheShardsCodeNeeds() {
        variants.forEach((variant, objects) -> {
            String namespace = single(objects, Namespace.class).getMetadata().getName();
            String account = template(objects).getSpec().getServiceAccountName();
            assertThat(shardPermissions(objects, namespace, account)).as("%s: what the Role bound to %s grants",
                    variant, account).containsExactlyInAnyOrderElementsOf(SHARD_NEEDS);
            assertThat(objects).as("%s: no cluster-wide grant to the shards", variant)
                    .noneMatch(object -> object.getKind().equals("ClusterRoleBinding"));
        });
    }

    @Test
    void theRoleCoversWhatARunningShardCalls() throws Exception {
        String namespace = "checksum-example";
        String shard = "checksum-controller-0";
        String shardLabel = RingKind.CLUSTER_RING.shardLabel("checksums");
        String drainLabel = RingKind.CLUSTER_RING.drainLabel("checksums");
        for (String name : List.of("app", "drained")) {
            client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
                    .addToLabels(shardLabel, shard).endMetadata().addToData("k", "v").build()).create();
        }
        List<String> lines = new CopyOnWriteArrayList<>();
        // the shard's requests carry a user agent of their own, the test's do not
        try (KubernetesClient shardClient = new KubernetesClientBuilder().withConfig(new ConfigBuilder(client.getConfiguration())
                .withUserAgent("example-shard").build()).build()) {
            ChecksumShard running = ChecksumShard.start(shardClient, ChecksumShard.Options.of("checksums", shard, namespace)
                    .withWatchNamespaces(List.of(namespace))
                    .withLeaseTimings(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(200)), lines::add);
            try {
                await().atMost(Duration.ofSeconds(20)).until(() -> secret(namespace, "checksums-app") != null
                        && secret(namespace, "checksums-drained") != null);
                // the sharder labels the Secret like its ConfigMap; a changed ConfigMap updates its Secret
                client.secrets().inNamespace(namespace).withName("checksums-app")
                        .edit(secret -> { secret.getMetadata().getLabels().put(shardLabel, shard); return secret; });
                client.configMaps().inNamespace(namespace).withName("app")
                        .edit(configMap -> { configMap.getData().put("k", "changed"); return configMap; });
                // the sharder drains the other one: the shard hands it back
                client.configMaps().inNamespace(namespace).withName("drained")
                        .edit(configMap -> { configMap.getMetadata().getLabels().put(drainLabel, "true"); return configMap; });
                await().atMost(Duration.ofSeconds(20)).until(() -> {
                    ConfigMap drained = client.configMaps().inNamespace(namespace).withName("drained").get();
                    return !drained.getMetadata().getLabels().containsKey(shardLabel)
                            && lines.stream().filter(line -> line.contains("object=" + namespace + "/app ")).count() >= 2;
                });
            } finally {
                running.close();
            }
        }

        Set<String> called = new TreeSet<>();
        for (RecordedRequest request; (request = server.takeRequest(1, TimeUnit.SECONDS)) != null; ) {
            if ("example-shard".equals(request.getHeader("User-Agent"))) {
                called.add(permission(request, namespace));
            }
        }
        assertThat(called).as("the shard's requests").contains("coordination.k8s.io/leases update",
                "/configmaps patch", "/secrets create", "/secrets update", "/configmaps watch");
        assertThat(SHARD_NEEDS).as("what the Role grants covers what the shard called").containsAll(called);
    }

    @Test
    void theSharderGetsTheRingsResourcesThroughTheAggregatedClusterRole() throws IOException {
        Map<String, Object> sharded = yamlMap(Repository.resolve("manifests/clusterrole-sharded-resources.yaml"));
        Map<?, ?> aggregation = (Map<?, ?>) sharded.get("aggregationRule");
        Map<?, ?> selector = (Map<?, ?>) list(aggregation.get("clusterRoleSelectors")).get(0);
        Map<?, ?> aggregated = (Map<?, ?>) selector.get("matchLabels");
        variants.forEach((variant, objects) -> {
            ClusterRole role = single(objects, ClusterRole.class);
            assertThat(role.getMetadata().getLabels()).as("%s: aggregated into the sharder's ClusterRole", variant)
                    .containsAllEntriesOf(castStrings(aggregated));
            Set<String> granted = new TreeSet<>();
            role.getRules().forEach(rule -> expand(rule, granted));
            Map<?, ?> spec = (Map<?, ?>) ring(objects).getAdditionalProperties().get("spec");
            for (Object resource : list(spec.get("resources"))) {
                Map<?, ?> main = (Map<?, ?>) resource;
                List<Map<?, ?>> all = new ArrayList<>(List.of(main));
                list(main.get("controlledResources")).forEach(controlled -> all.add((Map<?, ?>) controlled));
                for (Map<?, ?> each : all) {
                    for (String verb : SHARDER_VERBS) {
                        assertThat(granted).as("%s: the sharder may %s %s", variant, verb, each.get("resource"))
                                .contains(each.get("group") + "/" + each.get("resource") + " " + verb);
                    }
                }
            }
        });
    }

    // ---- images

    /**
     * A Dockerfile's instructions (continuation lines joined, comments dropped) and what its COPY
     * lines take from the build context; also how the context's .dockerignore treats a path.
     */
    record Dockerfile(List<String> instructions) {

        static Dockerfile read(Path file) throws IOException {
            List<String> instructions = new ArrayList<>();
            StringBuilder current = new StringBuilder();
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String stripped = line.strip();
                if (stripped.startsWith("#") || (stripped.isEmpty() && current.length() == 0)) {
                    continue;
                }
                if (stripped.endsWith("\\")) {
                    current.append(stripped, 0, stripped.length() - 1).append(' ');
                    continue;
                }
                current.append(stripped);
                if (current.length() > 0) {
                    instructions.add(current.toString().replaceAll("\\s+", " ").strip());
                }
                current.setLength(0);
            }
            return new Dockerfile(instructions);
        }

        /** The arguments of every instruction of this keyword, in order. */
        List<String> all(String keyword) {
            return instructions.stream().filter(instruction -> instruction.toUpperCase().startsWith(keyword + " ")
                            || instruction.equalsIgnoreCase(keyword))
                    .map(instruction -> instruction.substring(Math.min(keyword.length() + 1, instruction.length())).strip())
                    .toList();
        }

        String user() {
            List<String> users = all("USER");
            assertThat(users).as("USER").isNotEmpty();
            return users.get(users.size() - 1);
        }

        /** Each COPY source (as written, relative to the context) and where it lands in the image. */
        Map<String, String> copies() {
            Map<String, String> copies = new LinkedHashMap<>();
            for (String copy : all("COPY")) {
                List<String> words = new ArrayList<>(List.of(copy.split(" ")));
                words.removeIf(word -> word.startsWith("--"));
                assertThat(words).as("COPY %s: sources and a destination", copy).hasSizeGreaterThan(1);
                String destination = words.remove(words.size() - 1);
                for (String source : words) {
                    String name = source.endsWith("/") ? "" : source.substring(source.lastIndexOf('/') + 1);
                    assertThat(words.size() == 1 || destination.endsWith("/"))
                            .as("COPY of several sources into a directory: %s", copy).isTrue();
                    copies.put(source, destination.endsWith("/") ? destination + name : destination);
                }
            }
            return copies;
        }

        /** The context paths it copies, without a trailing slash. */
        Set<String> copied() {
            return copies().keySet().stream().map(Dockerfile::trim).collect(Collectors.toCollection(TreeSet::new));
        }

        static String trim(String path) {
            return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        }

        /**
         * Whether the context's .dockerignore leaves {@code path} out, as Docker and Buildah read it:
         * the last pattern matching the path or one of its parent directories decides, {@code !}
         * patterns put it back in.
         */
        static boolean ignored(Path context, String path) throws IOException {
            Path ignore = context.resolve(".dockerignore");
            boolean ignored = false;
            for (String line : Files.readAllLines(ignore, StandardCharsets.UTF_8)) {
                String pattern = line.strip();
                if (pattern.isEmpty() || pattern.startsWith("#")) {
                    continue;
                }
                boolean negated = pattern.startsWith("!");
                pattern = trim(negated ? pattern.substring(1).strip() : pattern);
                java.nio.file.PathMatcher matcher = java.nio.file.FileSystems.getDefault().getPathMatcher("glob:" + pattern);
                for (Path candidate = Path.of(trim(path)); candidate != null; candidate = candidate.getParent()) {
                    if (matcher.matches(candidate)) {
                        ignored = !negated;
                        break;
                    }
                }
            }
            return ignored;
        }
    }

    /** What the distribution's scripts of the examples need in an image (distribution/src/main/dist/bin/). */
    static final class ImageContents {

        private static final Path BIN = Repository.resolve("distribution/src/main/dist/bin");

        private ImageContents() {
        }

        /**
         * The context paths (under target/ringmaster/) that {@code bin/<script>} needs: the script,
         * the script it runs, and the class path folder in lib/ it names.
         */
        static Set<String> example(String script) {
            String text = script(script);
            Set<String> paths = new TreeSet<>();
            paths.add("target/ringmaster/bin/" + script);
            Matcher runs = Pattern.compile("exec \"\\$\\(dirname \"\\$0\"\\)/([\\w-]+)\"").matcher(text);
            if (runs.find()) {
                paths.addAll(example(runs.group(1)));
                paths.removeIf(path -> path.startsWith("target/ringmaster/lib/"));
            }
            Matcher named = Pattern.compile("RINGMASTER_EXAMPLE_LIB=([\\w-]+)").matcher(text);
            Matcher defaulted = Pattern.compile("\\$\\{RINGMASTER_EXAMPLE_LIB:-([\\w-]+)\\}").matcher(text);
            String lib = named.find() ? named.group(1) : defaulted.find() ? defaulted.group(1) : null;
            assertThat(lib).as("bin/%s names its class path in lib/", script).isNotNull();
            paths.add("target/ringmaster/lib/" + lib);
            return paths;
        }

        /** The variable of JVM options {@code bin/<script>} reads. */
        static String javaOptsVariable(String script) {
            Matcher matcher = Pattern.compile("\\$\\{([A-Z_]+_JAVA_OPTS):-\\}").matcher(script(script));
            assertThat(matcher.find()).as("bin/%s reads *_JAVA_OPTS", script).isTrue();
            return matcher.group(1);
        }

        private static String script(String script) {
            try {
                return Files.readString(BIN.resolve(script), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new AssertionError("no script bin/" + script + " in the distribution", e);
            }
        }
    }

    // ---- rendering

    /** What {@code kubectl kustomize} renders of these kustomizations: their resources, then their JSON patches. */
    private static List<HasMetadata> kustomize(Path root) throws IOException {
        Map<String, Object> kustomization = yamlMap(root.resolve("kustomization.yaml"));
        List<HasMetadata> objects = new ArrayList<>();
        for (String entry : strings(kustomization.get("resources"))) {
            Path resource = root.resolve(entry).normalize();
            if (Files.isDirectory(resource)) {
                objects.addAll(kustomize(resource));
            } else {
                Object object = SERIALIZATION.unmarshal(Files.readString(resource, StandardCharsets.UTF_8));
                assertThat(object).as("%s holds one Kubernetes object", Repository.ROOT.relativize(resource))
                        .isInstanceOf(HasMetadata.class);
                objects.add((HasMetadata) object);
            }
        }
        for (Object entry : list(kustomization.get("patches"))) {
            Map<?, ?> patch = (Map<?, ?>) entry;
            Map<?, ?> target = (Map<?, ?>) patch.get("target");
            JsonNode operations = SERIALIZATION.convertValue(SERIALIZATION.unmarshal((String) patch.get("patch"), List.class),
                    JsonNode.class);
            List<HasMetadata> matching = objects.stream().filter(object -> object.getKind().equals(target.get("kind"))
                    && object.getMetadata().getName().equals(target.get("name"))).toList();
            assertThat(matching).as("%s: the target of a patch", Repository.ROOT.relativize(root)).hasSize(1);
            HasMetadata patched = SERIALIZATION.convertValue(
                    JsonPatch.apply(operations, SERIALIZATION.convertValue(matching.get(0), JsonNode.class)), HasMetadata.class);
            objects.set(objects.indexOf(matching.get(0)), patched);
        }
        return objects;
    }

    private static String key(HasMetadata object) {
        return object.getKind() + " " + (object.getMetadata().getNamespace() == null ? ""
                : object.getMetadata().getNamespace() + "/") + object.getMetadata().getName();
    }

    private static <T> T single(List<HasMetadata> objects, Class<T> type) {
        List<T> found = objects.stream().filter(type::isInstance).map(type::cast).toList();
        assertThat(found).as("one %s", type.getSimpleName()).hasSize(1);
        return found.get(0);
    }

    private static GenericKubernetesResource ring(List<HasMetadata> objects) {
        return single(objects, GenericKubernetesResource.class);
    }

    private static PodTemplateSpec template(List<HasMetadata> objects) {
        List<PodTemplateSpec> templates = new ArrayList<>();
        objects.stream().filter(StatefulSet.class::isInstance).map(StatefulSet.class::cast)
                .forEach(set -> templates.add(set.getSpec().getTemplate()));
        objects.stream().filter(Deployment.class::isInstance).map(Deployment.class::cast)
                .forEach(deployment -> templates.add(deployment.getSpec().getTemplate()));
        assertThat(templates).as("one workload").hasSize(1);
        return templates.get(0);
    }

    /** A name the workload's pods get: ordinal 0 of a StatefulSet, a Deployment's generated name. */
    private static String podName(List<HasMetadata> objects) {
        return objects.stream().filter(StatefulSet.class::isInstance).findFirst()
                .map(set -> set.getMetadata().getName() + "-0")
                .orElseGet(() -> single(objects, Deployment.class).getMetadata().getName() + "-7d9f6b5c4-x2x7k");
    }

    private static Container shardContainer(PodTemplateSpec template) {
        assertThat(template.getSpec().getContainers()).hasSize(1);
        assertThat(template.getSpec().getInitContainers()).isNullOrEmpty();
        return template.getSpec().getContainers().get(0);
    }

    /** The container's environment as the kubelet sets it, the downward API resolved for this pod. */
    private static Map<String, String> environment(Container container, String podName, String namespace) {
        Map<String, String> environment = new LinkedHashMap<>();
        for (EnvVar env : container.getEnv()) {
            if (env.getValueFrom() == null) {
                environment.put(env.getName(), expand(env.getValue(), environment));
                continue;
            }
            assertThat(env.getValueFrom().getFieldRef()).as("env %s: a downward API field", env.getName()).isNotNull();
            String field = env.getValueFrom().getFieldRef().getFieldPath();
            environment.put(env.getName(), switch (field) {
                case "metadata.name" -> podName;
                case "metadata.namespace" -> namespace;
                case "metadata.uid" -> "uid-of-" + podName;
                default -> throw new AssertionError("unexpected field " + field);
            });
        }
        return environment;
    }

    private static String fieldRef(Container container, String variable) {
        return container.getEnv().stream().filter(env -> env.getName().equals(variable)).findFirst()
                .map(env -> env.getValueFrom().getFieldRef().getFieldPath())
                .orElseThrow(() -> new AssertionError("no env " + variable));
    }

    /** Kubernetes' {@code $(VAR)} expansion in args and env values; an unknown variable stays as written. */
    private static String expand(String value, Map<String, String> environment) {
        Matcher matcher = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)").matcher(value);
        StringBuilder expanded = new StringBuilder();
        while (matcher.find()) {
            String replacement = environment.getOrDefault(matcher.group(1), matcher.group());
            matcher.appendReplacement(expanded, Matcher.quoteReplacement(replacement));
        }
        matcher.appendTail(expanded);
        return expanded.toString();
    }

    // ---- RBAC

    /** "group/resource verb" that the Roles bound to the service account grant in the namespace. */
    private static Set<String> shardPermissions(List<HasMetadata> objects, String namespace, String account) {
        Set<String> granted = new TreeSet<>();
        objects.stream().filter(RoleBinding.class::isInstance).map(RoleBinding.class::cast)
                .filter(binding -> namespace.equals(binding.getMetadata().getNamespace()))
                .filter(binding -> binding.getSubjects().stream().anyMatch(subject -> "ServiceAccount".equals(subject.getKind())
                        && account.equals(subject.getName()) && namespace.equals(subject.getNamespace())))
                .forEach(binding -> {
                    assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
                    Role role = objects.stream().filter(Role.class::isInstance).map(Role.class::cast)
                            .filter(candidate -> candidate.getMetadata().getName().equals(binding.getRoleRef().getName()))
                            .findFirst().orElseThrow(() -> new AssertionError("no Role " + binding.getRoleRef().getName()));
                    role.getRules().forEach(rule -> expand(rule, granted));
                });
        return granted;
    }

    private static void expand(PolicyRule rule, Set<String> into) {
        assertThat(rule.getResourceNames()).as("no resourceNames").isNullOrEmpty();
        for (String group : rule.getApiGroups()) {
            for (String resource : rule.getResources()) {
                for (String verb : rule.getVerbs()) {
                    assertThat(group + resource + verb).as("no wildcards").doesNotContain("*");
                    into.add(group + "/" + resource + " " + verb);
                }
            }
        }
    }

    /** The RBAC permission ("group/resource verb") a request to the API server needs. */
    private static String permission(RecordedRequest request, String namespace) {
        URI uri = URI.create(request.getPath());
        String query = uri.getQuery() == null ? "" : uri.getQuery();
        // /api/v1/namespaces/NS/RESOURCE[/NAME] or /apis/GROUP/VERSION/namespaces/NS/RESOURCE[/NAME]
        Matcher matcher = Pattern.compile("/(?:api/v1|apis/([^/]+)/[^/]+)/namespaces/([^/]+)/([^/]+)(/[^/]+)?")
                .matcher(uri.getPath());
        assertThat(matcher.matches()).as("a namespaced request: %s %s", request.getMethod(), request.getPath()).isTrue();
        assertThat(matcher.group(2)).as("only in its namespace: %s", request.getPath()).isEqualTo(namespace);
        String group = matcher.group(1) == null ? "" : matcher.group(1);
        boolean named = matcher.group(4) != null;
        String verb = switch (request.getMethod()) {
            case "GET" -> query.contains("watch=true") ? "watch" : named ? "get" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> named ? "delete" : "deletecollection";
            default -> throw new AssertionError("unexpected " + request.getMethod() + " " + request.getPath());
        };
        return group + "/" + matcher.group(3) + " " + verb;
    }

    private io.fabric8.kubernetes.api.model.Secret secret(String namespace, String name) {
        return client.secrets().inNamespace(namespace).withName(name).get();
    }

    // ---- the code and the files

    /** How long bin/checksum-controller's shutdown hook lets the shard stop (ChecksumController.SHUTDOWN_TIMEOUT). */
    private static Duration shutdownTimeout() throws ReflectiveOperationException {
        Field field = ChecksumController.class.getDeclaredField("SHUTDOWN_TIMEOUT");
        field.setAccessible(true);
        return (Duration) field.get(null);
    }

    /** The project's version, from the root pom. */
    static String projectVersion() throws IOException {
        String pom = Files.readString(Repository.resolve("pom.xml"), StandardCharsets.UTF_8);
        Matcher matcher = Pattern.compile("<artifactId>ringmaster-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(pom);
        assertThat(matcher.find()).as("the parent's version in pom.xml").isTrue();
        return matcher.group(1);
    }

    private static Path write(Path file, String content) {
        try {
            return Files.writeString(file, content);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static Map<String, Object> yamlMap(Path file) throws IOException {
        Map<String, Object> map = new LinkedHashMap<>();
        ((Map<?, ?>) SERIALIZATION.unmarshal(Files.readString(file, StandardCharsets.UTF_8), Map.class))
                .forEach((key, value) -> map.put(String.valueOf(key), value));
        return map;
    }

    private static List<?> list(Object value) {
        return value == null ? List.of() : (List<?>) value;
    }

    private static List<String> strings(Object value) {
        return list(value).stream().map(String::valueOf).toList();
    }

    private static Map<String, String> castStrings(Map<?, ?> map) {
        Map<String, String> strings = new LinkedHashMap<>();
        map.forEach((key, value) -> strings.put(String.valueOf(key), String.valueOf(value)));
        return strings;
    }
}
