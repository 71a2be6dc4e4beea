package dev.ringmaster.examples.josdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.examples.checksum.ChecksumController;
import dev.ringmaster.examples.checksum.CommandLine;
import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** {@code bin/josdk-checksum-operator}: the checksum controller's command line, with its in-pod defaults. */
@EnableKubernetesMockClient(crud = true)
class JosdkChecksumOperatorTest {

    KubernetesClient client;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final CountDownLatch stop = new CountDownLatch(1);

    private int run(Map<String, String> environment, Supplier<Config> autoConfiguration, String... args) {
        return ChecksumController.run(JosdkChecksumOperator.NAME, JosdkChecksumOperator.USAGE,
                JosdkChecksumShard::start, List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
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
    void aShardNameFoundNowhereIsOneLineAndExitCode2() {
        assertThat(run(Map.of("POD_NAMESPACE", "default"), Config::empty, "--ring", "checksums")).isEqualTo(2);

        assertThat(text(err).lines().toList()).singleElement().asString()
                .startsWith("josdk-checksum-operator: no shard name: give --shard-name NAME")
                .endsWith("(see josdk-checksum-operator --help)");
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
