package dev.ringmaster.examples.checksum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.RingKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandLineTest {

    @TempDir
    Path dir;
    private Path kubeconfig;

    @BeforeEach
    void kubeconfig() throws IOException {
        kubeconfig = Files.writeString(dir.resolve("kubeconfig"), "apiVersion: v1\nkind: Config\n");
    }

    private List<String> complete(String... more) {
        List<String> args = new ArrayList<>(List.of("--kubeconfig", kubeconfig.toString(), "--ring", "checksums",
                "--shard-name", "shard-0", "--namespace", "default"));
        args.addAll(List.of(more));
        return args;
    }

    @Test
    void parsesTheFlags() throws Exception {
        CommandLine parsed = CommandLine.parse(complete());

        assertThat(parsed.kubeconfig()).isEqualTo(kubeconfig);
        assertThat(parsed.shard().ring()).isEqualTo("checksums");
        assertThat(parsed.shard().ringKind()).as("today's command lines keep their meaning").isEqualTo(RingKind.CLUSTER_RING);
        assertThat(parsed.shard().shard()).isEqualTo("shard-0");
        assertThat(parsed.shard().leaseNamespace()).isEqualTo("default");
        assertThat(parsed.shard().watchNamespaces()).as("all namespaces").isEmpty();
        assertThat(parsed.shard().leaseDuration()).isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void valuesMayFollowAnEqualsSignAndWatchNamespacesRepeat() throws Exception {
        CommandLine parsed = CommandLine.parse(List.of("--kubeconfig=" + kubeconfig, "--ring=checksums",
                "--shard-name=shard-1", "--namespace=leases", "--watch-namespace", "team-a,team-b",
                "--watch-namespace=team-c", "--watch-namespace", "team-a"));

        assertThat(parsed.shard().shard()).isEqualTo("shard-1");
        assertThat(parsed.shard().leaseNamespace()).isEqualTo("leases");
        assertThat(parsed.shard().watchNamespaces()).containsExactly("team-a", "team-b", "team-c");
    }

    @Test
    void theRingKindIsChosenByName() throws Exception {
        assertThat(CommandLine.parse(complete("--ring-kind", "controllerring")).shard().ringKind())
                .isEqualTo(RingKind.CONTROLLER_RING);
        assertThat(CommandLine.parse(complete("--ring-kind=clusterring")).shard().ringKind())
                .isEqualTo(RingKind.CLUSTER_RING);
        assertThat(CommandLine.parse(complete("--ring-kind", "ControllerRing")).shard().ringKind())
                .as("the Kind name as kubectl prints it").isEqualTo(RingKind.CONTROLLER_RING);
    }

    @Test
    void anUnknownRingKindIsRejected() {
        assertThatThrownBy(() -> CommandLine.parse(complete("--ring-kind", "ring")))
                .isInstanceOf(CommandLine.UsageException.class)
                .hasMessage("--ring-kind 'ring' is not a ring kind: use clusterring or controllerring");
        assertThatThrownBy(() -> CommandLine.parse(complete("--ring-kind", "controllerring", "--ring-kind=clusterring")))
                .hasMessage("flag --ring-kind is given twice");
    }

    @Test
    void missingFlagsAreNamed() {
        assertThatThrownBy(() -> CommandLine.parse(List.of("--ring", "checksums", "--shard-name", "shard-0",
                "--namespace", "default")))
                .isInstanceOf(CommandLine.UsageException.class).hasMessage("missing required flag --kubeconfig");
        assertThatThrownBy(() -> CommandLine.parse(List.of()))
                .hasMessage("missing required flags --kubeconfig, --ring, --shard-name, --namespace");
    }

    @Test
    void unknownRepeatedEmptyAndStrayArgumentsAreRejected() {
        assertThatThrownBy(() -> CommandLine.parse(complete("--shard", "x"))).hasMessage("unknown flag --shard");
        assertThatThrownBy(() -> CommandLine.parse(complete("--ring=other"))).hasMessage("flag --ring is given twice");
        assertThatThrownBy(() -> CommandLine.parse(complete("--watch-namespace")))
                .hasMessage("flag --watch-namespace needs a value");
        assertThatThrownBy(() -> CommandLine.parse(List.of("--ring", "--shard-name", "s")))
                .hasMessage("flag --ring needs a value");
        assertThatThrownBy(() -> CommandLine.parse(complete("--watch-namespace=")))
                .hasMessage("flag --watch-namespace needs a non-empty value");
        assertThatThrownBy(() -> CommandLine.parse(complete("run"))).hasMessage("unexpected argument 'run'");
    }

    @Test
    void namesAreValidated() {
        assertThatThrownBy(() -> CommandLine.parse(List.of("--kubeconfig", kubeconfig.toString(), "--ring", "Checksums",
                "--shard-name", "shard-0", "--namespace", "default")))
                .hasMessageContaining("ring name 'Checksums' is invalid");
        assertThatThrownBy(() -> CommandLine.parse(List.of("--kubeconfig", kubeconfig.toString(), "--ring", "checksums",
                "--shard-name", "shard_0", "--namespace", "default")))
                .hasMessageContaining("shard name 'shard_0' is invalid");
        assertThatThrownBy(() -> CommandLine.parse(complete("--watch-namespace", "team-a,Team-B")))
                .hasMessageStartingWith("--watch-namespace 'Team-B' is not a namespace name");
    }

    @Test
    void theKubeconfigMustBeAReadableFile() {
        assertThatThrownBy(() -> CommandLine.parse(List.of("--kubeconfig", dir.resolve("nope").toString(), "--ring",
                "checksums", "--shard-name", "shard-0", "--namespace", "default")))
                .hasMessage("kubeconfig " + dir.resolve("nope") + " is not a readable file");
        assertThatThrownBy(() -> CommandLine.parse(List.of("--kubeconfig", dir.toString(), "--ring",
                "checksums", "--shard-name", "shard-0", "--namespace", "default")))
                .hasMessageEndingWith("is not a readable file");
    }

    @Test
    void helpIsRecognizedAnywhere() {
        assertThat(CommandLine.wantsHelp(List.of("--ring", "x", "--help"))).isTrue();
        assertThat(CommandLine.wantsHelp(List.of("-h"))).isTrue();
        assertThat(CommandLine.wantsHelp(complete())).isFalse();
    }
}
