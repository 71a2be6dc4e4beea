package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.launcher.run.RunFlag;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SandboxEtcTest {

    @TempDir
    Path temp;

    @Test
    void copiesTheShippedFilesAndPointsTheSharderAtTheEmbeddedServerOnly() throws IOException {
        Path home = distributionWithEtc(Map.of(
                "dev.ringmaster.kubernetes.cfg", "# shipped\nkubeconfig = /home/operator/.kube/production\nmasterUrl =\n"
                        + "trustCerts = false\n",
                "dev.ringmaster.sharder.cfg", "defaultStrategy = ${ringmaster.run.defaultStrategy}\nleaseDetector = "
                        + "pod-readiness\nmoveBudget = 7\nwebhookMode = ${ringmaster.run.webhookMode}\n",
                "dev.ringmaster.ops.http.cfg", "host = 0.0.0.0\nport = 8080\n",
                "dev.ringmaster.webhook.cfg", "port = 9443\n",
                "dev.ringmaster.ring.consistent.cfg", "tokensPerShard = 50\ntokenSeparator = -\n",
                "README.txt", "not a configuration"));

        SandboxEtc etc = SandboxEtc.write(home, temp.resolve("sandbox"), "https://127.0.0.1:4321/", 5678);

        try (Stream<Path> files = Files.list(etc.dir())) {
            assertThat(files.map(file -> file.getFileName().toString())).containsExactlyInAnyOrder(
                    "dev.ringmaster.kubernetes.cfg", "dev.ringmaster.sharder.cfg", "dev.ringmaster.ops.http.cfg",
                    "dev.ringmaster.ring.consistent.cfg");
        }
        Properties kubernetes = etc.properties(RunFlag.KUBERNETES_PID);
        assertThat(kubernetes.getProperty("kubeconfig")).isEqualTo(etc.kubeconfig().toString());
        assertThat(kubernetes.getProperty("masterUrl")).isEqualTo("https://127.0.0.1:4321/");
        assertThat(kubernetes.getProperty("trustCerts")).isEqualTo("true");
        assertThat(etc.read(RunFlag.KUBERNETES_PID)).startsWith("# shipped\n");
        assertThat(Files.readString(etc.kubeconfig())).contains("server: \"https://127.0.0.1:4321/\"",
                "insecure-skip-tls-verify: true");

        Properties sharder = etc.properties(RunFlag.SHARDER_PID);
        assertThat(sharder.getProperty("defaultStrategy")).isEqualTo("consistent-hash");
        assertThat(sharder.getProperty("leaseDetector")).isEqualTo("default");
        assertThat(sharder.getProperty("resourceInterpreter")).isEqualTo("default");
        assertThat(sharder.getProperty("webhookMode")).isEqualTo("off");
        assertThat(sharder.getProperty("identity")).isEqualTo("sandbox-sharder");
        assertThat(sharder.getProperty("moveBudget")).as("the operator's tuning stays").isEqualTo("7");

        Properties ops = etc.properties(SandboxEtc.OPS_PID);
        assertThat(ops.getProperty("host")).isEqualTo("127.0.0.1");
        assertThat(ops.getProperty("port")).isEqualTo("5678");
        assertThat(etc.properties(Placement.CONSISTENT_PID).getProperty("tokensPerShard")).isEqualTo("50");
    }

    @Test
    void writesTheFilesItNeedsEvenWithoutShippedOnes() throws IOException {
        Path home = Files.createDirectories(temp.resolve("empty-home"));

        SandboxEtc etc = SandboxEtc.write(home, temp.resolve("sandbox"), "https://127.0.0.1:4321/", 5678);

        assertThat(etc.properties(RunFlag.SHARDER_PID).getProperty("webhookMode")).isEqualTo("off");
        assertThat(etc.properties(RunFlag.KUBERNETES_PID).getProperty("masterUrl")).isEqualTo("https://127.0.0.1:4321/");
        assertThat(etc.properties(Placement.CONSISTENT_PID)).isEmpty();
    }

    @Test
    void changesTheDefaultStrategyByRewritingTheFileInOneStep() throws IOException {
        Path home = distributionWithEtc(Map.of("dev.ringmaster.sharder.cfg", "# comment\ndefaultStrategy = x\npageSize = 500\n"));
        SandboxEtc etc = SandboxEtc.write(home, temp.resolve("sandbox"), "https://127.0.0.1:4321/", 5678);

        etc.defaultStrategy("rendezvous");

        assertThat(etc.read(RunFlag.SHARDER_PID)).startsWith("# comment\ndefaultStrategy = rendezvous\npageSize = 500\n");
        try (Stream<Path> files = Files.list(temp.resolve("sandbox"))) {
            assertThat(files.map(file -> file.getFileName().toString())).as("nothing staged is left behind")
                    .containsExactlyInAnyOrder("etc", "kubeconfig.yaml");
        }
    }

    private Path distributionWithEtc(Map<String, String> files) throws IOException {
        Path home = temp.resolve("home");
        Path etc = Files.createDirectories(home.resolve("etc"));
        for (Map.Entry<String, String> file : files.entrySet()) {
            Files.writeString(etc.resolve(file.getKey()), file.getValue());
        }
        return home;
    }
}
