package dev.ringmaster.examples.josdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.examples.checksum.ChecksumController;
import dev.ringmaster.examples.checksum.ChecksumShard;
import dev.ringmaster.examples.checksum.CommandLine;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code bin/josdk-checksum-operator}: the checksum controller's command line, with its in-pod defaults. */
@EnableCrudApiServer
class JosdkChecksumOperatorTest {

    KubernetesClient client;
    KubernetesMockServer server;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final CountDownLatch stop = new CountDownLatch(1);

    private int run(Map<String, String> environment, Supplier<Config> autoConfiguration, String... args) {
        return ChecksumController.run(JosdkChecksumOperator.NAME, JosdkChecksumOperator.USAGE,
                JosdkChecksumOperator.SHARDS, List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), stop, CommandLine.Environment.of(environment),
                autoConfiguration);
    }

    private static String text(ByteArrayOutputStream bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theUsageIsTheChecksumControllersUnderItsOwnName() {
        assertThat(run(Map.of(), Config::empty, "--help")).isZero();

        assertThat(text(out)).startsWith("Usage: josdk-checksum-operator --ring NAME [--ring-kind clusterring|controllerring]")
                .contains("java-operator-sdk")
                .contains(CommandLine.USAGE.substring(CommandLine.USAGE.indexOf("  --ring NAME")));
    }

    @Test
    void rangeModeIsAcceptedAndInTheUsage() {
        assertThat(JosdkChecksumOperator.SHARDS.rangeMode()).isTrue();
        assertThat(JosdkChecksumOperator.USAGE).contains("[--range-mode]")
                .contains("--range-mode                 for a ring with spec.ranges");
        // parsed and accepted: what stops it now is the missing shard name, not an unknown flag
        assertThat(run(Map.of("POD_NAMESPACE", "default"), Config::empty, "--ring", "checksums", "--range-mode"))
                .isEqualTo(2);
        assertThat(text(err)).doesNotContain("unknown flag").contains("no shard name");
    }

    /**
     * {@code --range-mode} against the CRUD mock server (which ignores the shardSelector: the shard
     * filters client-side): the shard reconciles the ConfigMaps of the ranges on its Lease, and only those.
     */
    @Test
    void inRangeModeTheShardReconcilesTheConfigMapsOfItsRanges() throws Exception {
        String namespace = "josdk-ranges";
        String shard = "josdk-checksum-operator-0";
        client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName("app")
                .endMetadata().addToData("k", "v").build()).create();
        // the sharder's part, played here: the whole space assigned to the shard once its Lease exists
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> run(Map.of(), client::getConfiguration,
                "--ring", "checksums", "--ring-kind", "controllerring", "--shard-name", shard,
                "--namespace", namespace, "--watch-namespace", namespace, "--range-mode"));
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            assertThat(exit).as("still running: %s", text(err)).isNotDone();
            return client.leases().inNamespace(namespace).withName(shard).get() != null;
        });
        assertThat(text(out)).doesNotContain("object=" + namespace + "/app ");
        // a merge patch without a resourceVersion, as the sharder writes it: the shard's renewals cannot make it conflict
        client.leases().inNamespace(namespace).withName(shard).patch(PatchContext.of(PatchType.JSON_MERGE),
                client.getKubernetesSerialization().asJson(Map.of("metadata", Map.of("annotations", Map.of(
                        RingContract.ASSIGNED_RANGES_ANNOTATION, RangeSet.ALL.toString(),
                        RingContract.RANGE_KEY_ANNOTATION, RangeKey.UID.specName())))));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> text(out).contains("reconcile shard=" + shard + " object=" + namespace + "/app "));
        assertThat(client.configMaps().inNamespace(namespace).withName("app").get().getMetadata().getLabels())
                .as("range mode labels nothing").isNullOrEmpty();
        stop.countDown();
        assertThat(exit.get(30, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void aShardNameFoundNowhereIsOneLineAndExitCode2() {
        assertThat(run(Map.of("POD_NAMESPACE", "default"), Config::empty, "--ring", "checksums")).isEqualTo(2);

        assertThat(text(err).lines().toList()).singleElement().asString()
                .startsWith("josdk-checksum-operator: no shard name: give --shard-name NAME")
                .endsWith("(see josdk-checksum-operator --help)");
    }

    /**
     * The Role of the example's shards (examples/manifests/base/role.yaml) grants what a running JOSDK
     * shard calls: its Lease, its informers, a Secret created and updated, a drained ConfigMap handed back.
     */
    @Test
    void theExampleManifestsRoleCoversWhatARunningShardCalls() throws Exception {
        String namespace = "checksum-example";
        String shard = "josdk-checksum-operator-0";
        String shardLabel = RingKind.CONTROLLER_RING.shardLabel("josdk-checksums");
        for (String name : List.of("app", "drained")) {
            client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
                    .addToLabels(shardLabel, shard).endMetadata().addToData("k", "v").build()).create();
        }
        List<String> lines = new CopyOnWriteArrayList<>();
        // the shard's requests carry a user agent of their own; the operator closes its client when stopped
        KubernetesClient shardClient = new KubernetesClientBuilder().withConfig(new ConfigBuilder(client.getConfiguration())
                .withUserAgent("example-shard").build()).build();
        try (JosdkChecksumShard running = JosdkChecksumShard.start(shardClient, ChecksumShard.Options.of("josdk-checksums",
                        shard, namespace).withRingKind(RingKind.CONTROLLER_RING).withWatchNamespaces(List.of(namespace))
                .withLeaseTimings(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(200)), lines::add)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> secret(namespace, "checksums-app") != null
                    && secret(namespace, "checksums-drained") != null);
            client.secrets().inNamespace(namespace).withName("checksums-app")
                    .edit(secret -> { secret.getMetadata().getLabels().put(shardLabel, shard); return secret; });
            client.configMaps().inNamespace(namespace).withName("app")
                    .edit(configMap -> { configMap.getData().put("k", "changed"); return configMap; });
            client.configMaps().inNamespace(namespace).withName("drained").edit(configMap -> {
                configMap.getMetadata().getLabels().put(RingKind.CONTROLLER_RING.drainLabel("josdk-checksums"), "true");
                return configMap;
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> !client.configMaps().inNamespace(namespace)
                    .withName("drained").get().getMetadata().getLabels().containsKey(shardLabel)
                    && lines.stream().filter(line -> line.contains("object=" + namespace + "/app ")).count() >= 2);
        }

        Set<String> called = new TreeSet<>();
        for (RecordedRequest request; (request = server.takeRequest(1, TimeUnit.SECONDS)) != null; ) {
            if ("example-shard".equals(request.getHeader("User-Agent"))) {
                called.add(permission(request));
            }
        }
        assertThat(called).contains("coordination.k8s.io/leases update", "/configmaps patch", "/secrets create",
                "/secrets update", "/configmaps watch", "/secrets watch");
        assertThat(exampleRole()).as("examples/manifests/base/role.yaml grants what the shard called").containsAll(called);
    }

    private Secret secret(String namespace, String name) {
        return client.secrets().inNamespace(namespace).withName(name).get();
    }

    /** "group/resource verb" of every rule of the example shards' Role. */
    private static Set<String> exampleRole() throws IOException {
        Path file = Path.of(System.getProperty("basedir", ".")).resolve("../manifests/base/role.yaml");
        Role role = new KubernetesSerialization().unmarshal(Files.readString(file, StandardCharsets.UTF_8), Role.class);
        Set<String> granted = new TreeSet<>();
        for (PolicyRule rule : role.getRules()) {
            for (String group : rule.getApiGroups()) {
                for (String resource : rule.getResources()) {
                    rule.getVerbs().forEach(verb -> granted.add(group + "/" + resource + " " + verb));
                }
            }
        }
        return granted;
    }

    /** The RBAC permission ("group/resource verb") a namespaced request needs. */
    private static String permission(RecordedRequest request) {
        URI uri = URI.create(request.getPath());
        Matcher matcher = Pattern.compile("/(?:api/v1|apis/([^/]+)/[^/]+)/namespaces/[^/]+/([^/]+)(/[^/]+)?")
                .matcher(uri.getPath());
        assertThat(matcher.matches()).as("a namespaced request: %s %s", request.getMethod(), request.getPath()).isTrue();
        boolean watch = uri.getQuery() != null && uri.getQuery().contains("watch=true");
        String verb = switch (request.getMethod()) {
            case "GET" -> watch ? "watch" : matcher.group(3) != null ? "get" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> "delete";
            default -> request.getMethod();
        };
        return (matcher.group(1) == null ? "" : matcher.group(1)) + "/" + matcher.group(2) + " " + verb;
    }

    @Test
    void inAPodTheRingIsTheOnlyFlagNeeded() throws Exception {
        String namespace = "josdk-in-pod";
        client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName("app")
                .addToLabels(RingKind.CONTROLLER_RING.shardLabel("checksums"), "josdk-checksum-operator-0")
                .endMetadata().addToData("k", "v").build()).create();
        Map<String, String> pod = Map.of("POD_NAME", "josdk-checksum-operator-0", "POD_NAMESPACE", namespace,
                "KUBERNETES_SERVICE_HOST", "10.0.0.1");

        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> run(pod, client::getConfiguration,
                "--ring", "checksums", "--ring-kind", "controllerring", "--watch-namespace", namespace));

        await().atMost(Duration.ofSeconds(30))
                .until(() -> text(out).contains("reconcile shard=josdk-checksum-operator-0 object=josdk-in-pod/app "));
        assertThat(client.leases().inNamespace(namespace).withName("josdk-checksum-operator-0").get().getMetadata()
                .getLabels()).containsEntry(RingKind.CONTROLLER_RING.leaseLabel(), "checksums");
        stop.countDown();
        assertThat(exit.get(30, TimeUnit.SECONDS)).isZero();
    }
}
