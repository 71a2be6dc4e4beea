package dev.ringmaster.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.launcher.run.RunFlag;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The flags of {@code ringmaster run} and the framework properties the etc/ files refer to. */
class RunOptionsTest {

    @TempDir
    Path dir;

    @Test
    void withoutFlagsEverySettingHasItsDefault() throws Exception {
        assertThat(RunOptions.parse(List.of())).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                Map.entry("ringmaster.run.kubeconfig", ""),
                Map.entry("ringmaster.run.namespace", "sharding-system"),
                Map.entry("ringmaster.run.tlsDir", "/etc/ringmaster/tls"),
                Map.entry("ringmaster.run.webhookCertificates", "files"),
                Map.entry("ringmaster.run.webhookMode", "service"),
                Map.entry("ringmaster.run.webhookUrl", ""),
                Map.entry("ringmaster.run.webhookCaBundleFile", ""),
                Map.entry("ringmaster.run.metricsAuth", "none"),
                Map.entry("ringmaster.run.shardLeaseNamespaces", ""),
                Map.entry("ringmaster.run.defaultStrategy", "consistent-hash"),
                Map.entry("ringmaster.run.shell", "false"),
                Map.entry("ringmaster.run.given", "")));
        assertThat(RunOptions.defaults()).as("what Ringmaster.start fills in for an embedding process")
                .isEqualTo(RunOptions.parse(List.of()));
    }

    @Test
    void aWebhookUrlSwitchesTheWebhookConfigurationsToUrlMode() throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----");
        Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), "apiVersion: v1");

        assertThat(RunOptions.parse(List.of("--kubeconfig", kubeconfig.toString(), "--namespace", "ops",
                "--tls-dir", "/tls", "--webhook-url", "https://sharder.example:9443", "--webhook-ca", ca.toString(),
                "--default-strategy", "rendezvous", "--shell")))
                .containsEntry("ringmaster.run.shell", "true")
                .containsEntry("ringmaster.run.kubeconfig", kubeconfig.toString())
                .containsEntry("ringmaster.run.namespace", "ops")
                .containsEntry("ringmaster.run.tlsDir", "/tls")
                .containsEntry("ringmaster.run.webhookMode", "url")
                .containsEntry("ringmaster.run.webhookUrl", "https://sharder.example:9443")
                .containsEntry("ringmaster.run.webhookCaBundleFile", ca.toString())
                .containsEntry("ringmaster.run.defaultStrategy", "rendezvous")
                .containsEntry("ringmaster.run.given", "kubeconfig,namespace,tlsDir,webhookUrl,webhookCaBundleFile,"
                        + "defaultStrategy,shell,webhookMode");
    }

    @Test
    void theLastFlagGivenWinsSoThatComponentsCanAppendFlags() throws Exception {
        assertThat(RunOptions.parse(List.of("--webhook-certificates", "self-signed", "--metrics-auth", "kubernetes",
                "--webhook-certificates=cert-manager", "--shell", "--shell")))
                .containsEntry("ringmaster.run.webhookCertificates", "cert-manager")
                .containsEntry("ringmaster.run.shell", "true")
                .containsEntry("ringmaster.run.given", "webhookCertificates,metricsAuth,shell");
    }

    @Test
    void everyValueMayFollowAnEqualsSign() throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----");
        assertThat(RunOptions.parse(List.of("--namespace=ops", "--tls-dir=/tls", "--webhook-url=https://sharder.example:9443",
                "--webhook-ca=" + ca, "--webhook-certificates=self-signed", "--metrics-auth=kubernetes",
                "--default-strategy=rendezvous", "--shard-lease-namespaces=team-a")))
                .containsEntry("ringmaster.run.namespace", "ops")
                .containsEntry("ringmaster.run.tlsDir", "/tls")
                .containsEntry("ringmaster.run.webhookUrl", "https://sharder.example:9443")
                .containsEntry("ringmaster.run.webhookCaBundleFile", ca.toString())
                .containsEntry("ringmaster.run.webhookCertificates", "self-signed")
                .containsEntry("ringmaster.run.metricsAuth", "kubernetes")
                .containsEntry("ringmaster.run.defaultStrategy", "rendezvous")
                .containsEntry("ringmaster.run.shardLeaseNamespaces", "team-a");
    }

    @Test
    void shardLeaseNamespacesAreOneValueForTheSharder() throws Exception {
        assertThat(RunOptions.parse(List.of("--shard-lease-namespaces", "team-a,team-b")))
                .containsEntry("ringmaster.run.shardLeaseNamespaces", "team-a,team-b")
                .containsEntry("ringmaster.run.given", "shardLeaseNamespaces");
        assertThat(RunFlag.SHARD_LEASE_NAMESPACES.targets())
                .containsExactly(new RunFlag.Target(RunFlag.SHARDER_PID, "shardLeaseNamespaces"));
    }

    @Test
    void badFlagsSayWhatIsWrong() {
        assertThatThrownBy(() -> RunOptions.parse(List.of("--verbose")))
                .hasMessage("unknown flag --verbose");
        assertThatThrownBy(() -> RunOptions.parse(List.of("--shell=true")))
                .hasMessage("--shell takes no value");
        assertThatThrownBy(() -> RunOptions.parse(List.of("--webhook-mode", "url")))
                .as("a setting no flag gives").hasMessage("unknown flag --webhook-mode");
        assertThatThrownBy(() -> RunOptions.parse(List.of("--namespace")))
                .hasMessage("--namespace needs a value");
        assertThatThrownBy(() -> RunOptions.parse(List.of("--namespace", "--tls-dir", "x")))
                .hasMessage("--namespace needs a value");
        assertThatThrownBy(() -> RunOptions.parse(List.of("--kubeconfig", dir.resolve("none").toString())))
                .hasMessageEndingWith("none: no such readable file");
        assertThatThrownBy(() -> RunOptions.parse(List.of("--webhook-url", "http://insecure")))
                .hasMessageContaining("must be an https:// URL");
        assertThatThrownBy(() -> RunOptions.parse(List.of("--webhook-certificates", "letsencrypt")))
                .hasMessage("--webhook-certificates must be files, self-signed or cert-manager, not letsencrypt");
        assertThatThrownBy(() -> RunOptions.parse(List.of("--metrics-auth", "basic")))
                .hasMessage("--metrics-auth must be none or kubernetes, not basic");
    }

    @Test
    void metricsAuthMovesMetricsOffThePlainPortOntoTheHttpsOne() throws Exception {
        assertThat(RunOptions.defaults()).containsEntry("ringmaster.run.metricsAuth", "none");
        assertThat(RunOptions.parse(List.of("--metrics-auth", "kubernetes")))
                .containsEntry("ringmaster.run.metricsAuth", "kubernetes")
                .containsEntry("ringmaster.run.given", "metricsAuth");
        assertThat(RunFlag.METRICS_AUTH.targets()).as("one flag for both listeners: never metrics on both, or on neither")
                .containsExactly(new RunFlag.Target(RunFlag.OPS_HTTP_PID, "metricsAuth"),
                        new RunFlag.Target(RunFlag.METRICS_PID, "auth"));
    }

    @Test
    void webhookCertificatesSetsTheSharderMode() throws Exception {
        assertThat(RunOptions.parse(List.of("--webhook-certificates", "self-signed", "--tls-dir", "/run/tls")))
                .containsEntry("ringmaster.run.webhookCertificates", "self-signed")
                .containsEntry("ringmaster.run.tlsDir", "/run/tls")
                .containsEntry("ringmaster.run.given", "webhookCertificates,tlsDir");
        assertThat(RunFlag.WEBHOOK_CERTIFICATES.targets()).containsExactly(
                new RunFlag.Target(RunFlag.SHARDER_PID, "webhookCertificates"));
        assertThat(RunFlag.TLS_DIR.targets()).as("the webhook reads where the sharder writes in self-signed mode")
                .containsExactly(new RunFlag.Target(RunFlag.WEBHOOK_PID, "tlsDir"),
                        new RunFlag.Target(RunFlag.SHARDER_PID, "webhookCertificateDir"),
                        new RunFlag.Target(RunFlag.METRICS_PID, "tlsDir"));
    }
}
