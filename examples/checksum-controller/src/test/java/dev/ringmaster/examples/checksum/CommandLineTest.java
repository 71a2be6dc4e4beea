package dev.ringmaster.examples.checksum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.flags.Flags;
import dev.ringmaster.flags.UsageException;
import dev.ringmaster.ring.RingKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandLineTest {

    /** No variables, no ServiceAccount: every value must come from the flags. */
    private static final CommandLine.Environment NOTHING = CommandLine.Environment.of(Map.of());

    @TempDir
    Path dir;
    private Path kubeconfig;

    /** Parses without this process's environment (a developer's $HOSTNAME must not matter). */
    private static CommandLine parse(List<String> args) throws UsageException {
        return CommandLine.parse(args, NOTHING);
    }

    private static CommandLine parse(List<String> args, Map<String, String> variables) throws UsageException {
        return CommandLine.parse(args, CommandLine.Environment.of(variables));
    }

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
        CommandLine parsed = parse(complete());

        assertThat(parsed.kubeconfig()).contains(kubeconfig);
        assertThat(parsed.shard().ring()).isEqualTo("checksums");
        assertThat(parsed.shard().ringKind()).as("today's command lines keep their meaning").isEqualTo(RingKind.CLUSTER_RING);
        assertThat(parsed.shard().shard()).isEqualTo("shard-0");
        assertThat(parsed.shard().leaseNamespace()).isEqualTo("default");
        assertThat(parsed.shard().watchNamespaces()).as("all namespaces").isEmpty();
        assertThat(parsed.shard().leaseDuration()).isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void valuesMayFollowAnEqualsSignAndWatchNamespacesRepeat() throws Exception {
        CommandLine parsed = parse(List.of("--kubeconfig=" + kubeconfig, "--ring=checksums",
                "--shard-name=shard-1", "--namespace=leases", "--watch-namespace", "team-a,team-b",
                "--watch-namespace=team-c", "--watch-namespace", "team-a"));

        assertThat(parsed.shard().shard()).isEqualTo("shard-1");
        assertThat(parsed.shard().leaseNamespace()).isEqualTo("leases");
        assertThat(parsed.shard().watchNamespaces()).containsExactly("team-a", "team-b", "team-c");
    }

    @Test
    void theRingKindIsChosenByName() throws Exception {
        assertThat(parse(complete("--ring-kind", "controllerring")).shard().ringKind())
                .isEqualTo(RingKind.CONTROLLER_RING);
        assertThat(parse(complete("--ring-kind=clusterring")).shard().ringKind())
                .isEqualTo(RingKind.CLUSTER_RING);
        assertThat(parse(complete("--ring-kind", "ControllerRing")).shard().ringKind())
                .as("the Kind name as kubectl prints it").isEqualTo(RingKind.CONTROLLER_RING);
    }

    @Test
    void anUnknownRingKindIsRejected() {
        assertThatThrownBy(() -> parse(complete("--ring-kind", "ring")))
                .isInstanceOf(UsageException.class)
                .hasMessage("--ring-kind 'ring' is not a ring kind: use clusterring or controllerring");
        assertThatThrownBy(() -> parse(complete("--ring-kind", "controllerring", "--ring-kind=clusterring")))
                .hasMessage("--ring-kind is given twice");
    }

    @Test
    void onlyTheRingIsRequired() {
        assertThatThrownBy(() -> parse(List.of("--shard-name", "shard-0", "--namespace", "default")))
                .isInstanceOf(UsageException.class).hasMessage("missing required flag --ring")
                .isNotInstanceOf(CommandLine.EnvironmentException.class);
        assertThatThrownBy(() -> parse(List.of(), Map.of("POD_NAME", "shard-0", "POD_NAMESPACE", "default")))
                .hasMessage("missing required flag --ring");
    }

    @Test
    void withoutKubeconfigTheClientIsAutoConfigured() throws Exception {
        CommandLine parsed = parse(List.of("--ring", "checksums", "--shard-name", "shard-0", "--namespace", "default"));

        assertThat(parsed.kubeconfig()).as("fabric8's auto-configuration, as `ringmaster run`").isEmpty();
    }

    @Test
    void inAPodTheRingIsTheOnlyFlagNeeded() throws Exception {
        // a StatefulSet's pod: POD_NAME and POD_NAMESPACE from the downward API, HOSTNAME from the runtime
        CommandLine parsed = parse(List.of("--ring", "checksums"), Map.of("POD_NAME", "checksum-controller-2",
                "HOSTNAME", "checksum-controller-2", "POD_NAMESPACE", "checksum-example",
                "KUBERNETES_SERVICE_HOST", "10.0.0.1"));

        assertThat(parsed.kubeconfig()).isEmpty();
        assertThat(parsed.shard().shard()).isEqualTo("checksum-controller-2");
        assertThat(parsed.shard().leaseNamespace()).isEqualTo("checksum-example");
        assertThat(parsed.shard().ring()).isEqualTo("checksums");
        assertThat(parsed.shard().watchNamespaces()).isEmpty();
    }

    @Test
    void anIdentityPoolLeavesTheShardNameToTheClaim() throws Exception {
        CommandLine parsed = parse(List.of("--ring", "checksums", "--identity-pool", "workers", "--namespace", "default"));

        assertThat(parsed.shard().identityPool()).contains("workers");
        assertThat(parsed.shard().shard()).as("claimed at the start").isNull();
        assertThat(parsed.shard().onStop()).isEqualTo(ChecksumShard.OnStop.AUTO);
    }

    @Test
    void anIdentityPoolAndAShardNameExcludeEachOther() {
        assertThatThrownBy(() -> parse(complete("--identity-pool", "workers")))
                .isInstanceOf(UsageException.class)
                .hasMessage("--identity-pool and --shard-name exclude each other: the pool names the shard");
        assertThatThrownBy(() -> parse(List.of("--ring", "checksums", "--identity-pool", "Workers", "--namespace", "d")))
                .isInstanceOf(UsageException.class).hasMessageStartingWith("--identity-pool: pool name 'Workers' is invalid");
    }

    @Test
    void theStopModeIsChosenByName() throws Exception {
        assertThat(parse(complete()).shard().onStop()).isEqualTo(ChecksumShard.OnStop.AUTO);
        assertThat(parse(complete("--on-stop", "restart")).shard().onStop()).isEqualTo(ChecksumShard.OnStop.RESTART);
        assertThat(parse(complete("--on-stop=leave")).shard().onStop()).isEqualTo(ChecksumShard.OnStop.LEAVE);
        assertThat(parse(complete("--on-stop", "auto")).shard().onStop()).isEqualTo(ChecksumShard.OnStop.AUTO);
        assertThatThrownBy(() -> parse(complete("--on-stop", "stay")))
                .isInstanceOf(UsageException.class)
                .hasMessage("--on-stop 'stay' is not a mode: use auto, restart or leave");
    }

    @Test
    void theInstanceIsThePodUidAndThePodNameCountsOnlyInAPod() throws Exception {
        List<String> args = List.of("--ring", "checksums", "--namespace", "default");

        ChecksumShard.Options inPod = parse(args, Map.of("POD_NAME", "checksum-controller-1", "POD_UID", " 9c1e-uid \n",
                "KUBERNETES_SERVICE_HOST", "10.0.0.1")).shard();
        assertThat(inPod.instance()).contains("9c1e-uid");
        assertThat(inPod.podName()).contains("checksum-controller-1");

        ChecksumShard.Options hostnameOnly = parse(args, Map.of("HOSTNAME", "checksum-controller-0",
                "KUBERNETES_SERVICE_HOST", "10.0.0.1")).shard();
        assertThat(hostnameOnly.podName()).contains("checksum-controller-0");

        ChecksumShard.Options laptop = parse(args, Map.of("HOSTNAME", "laptop-1")).shard();
        assertThat(laptop.podName()).as("not in a pod").isEmpty();
        assertThat(laptop.instance()).as("the process's own").isEmpty();
    }

    @Test
    void theShardNameIsThePodNameElseTheHostname() throws Exception {
        List<String> args = List.of("--ring", "checksums", "--namespace", "default");

        assertThat(parse(args, Map.of("POD_NAME", "from-pod-name", "HOSTNAME", "from-hostname")).shard().shard())
                .isEqualTo("from-pod-name");
        assertThat(parse(args, Map.of("HOSTNAME", "from-hostname")).shard().shard()).isEqualTo("from-hostname");
        assertThat(parse(args, Map.of("POD_NAME", "  ", "HOSTNAME", " from-hostname\n")).shard().shard())
                .as("blank variables count as unset, values are trimmed").isEqualTo("from-hostname");
        assertThat(parse(complete(), Map.of("POD_NAME", "from-pod-name", "HOSTNAME", "from-hostname")).shard().shard())
                .as("the flag wins").isEqualTo("shard-0");
    }

    @Test
    void theLeaseNamespaceIsThePodNamespaceElseTheServiceAccounts() throws Exception {
        List<String> args = List.of("--ring", "checksums", "--shard-name", "shard-0");
        Path serviceAccountNamespace = Files.writeString(dir.resolve("namespace"), "from-service-account");
        CommandLine.Environment inAPod = new CommandLine.Environment(Map.of("POD_NAMESPACE", "from-pod-namespace")::get,
                serviceAccountNamespace);
        CommandLine.Environment withoutDownwardApi = new CommandLine.Environment(Map.<String, String>of()::get,
                serviceAccountNamespace);

        assertThat(CommandLine.parse(args, inAPod).shard().leaseNamespace()).isEqualTo("from-pod-namespace");
        assertThat(CommandLine.parse(args, withoutDownwardApi).shard().leaseNamespace()).isEqualTo("from-service-account");
        assertThat(CommandLine.parse(complete(), inAPod).shard().leaseNamespace()).as("the flag wins").isEqualTo("default");
    }

    @Test
    void aValueFoundNowhereIsOneLineWithoutTheUsage() {
        assertThatThrownBy(() -> parse(List.of("--ring", "checksums", "--namespace", "default")))
                .isInstanceOf(UsageException.class)
                .hasMessage("no shard name: give --shard-name NAME, or set $POD_NAME or $HOSTNAME"
                        + " (in a pod: POD_NAME from the downward API, fieldRef metadata.name)")
                .isInstanceOf(CommandLine.EnvironmentException.class);
        Path missing = dir.resolve("no-serviceaccount/namespace");
        assertThatThrownBy(() -> CommandLine.parse(List.of("--ring", "checksums", "--shard-name", "shard-0"),
                new CommandLine.Environment(Map.<String, String>of()::get, missing)))
                .hasMessage("no Lease namespace: give --namespace LEASE_NAMESPACE, or set $POD_NAMESPACE"
                        + " (in a pod: from the downward API, fieldRef metadata.namespace), or run in a pod with " + missing)
                .isInstanceOf(CommandLine.EnvironmentException.class);
    }

    @Test
    void anInvalidValueFromTheEnvironmentNamesWhereItCameFrom() throws IOException {
        assertThatThrownBy(() -> parse(List.of("--ring", "checksums", "--namespace", "default"),
                Map.of("HOSTNAME", "Dev_Laptop")))
                .hasMessageStartingWith("shard name 'Dev_Laptop' is invalid")
                .hasMessageEndingWith("(from $HOSTNAME)")
                .isInstanceOf(CommandLine.EnvironmentException.class);
        Path serviceAccountNamespace = Files.writeString(dir.resolve("namespace"), "Not_A_Namespace");
        assertThatThrownBy(() -> CommandLine.parse(List.of("--ring", "checksums", "--shard-name", "shard-0"),
                new CommandLine.Environment(Map.<String, String>of()::get, serviceAccountNamespace)))
                .hasMessageContaining("'Not_A_Namespace' is invalid")
                .hasMessageEndingWith("(from " + serviceAccountNamespace + ")");
        assertThatThrownBy(() -> parse(List.of("--ring", "checksums", "--shard-name", "Shard-0", "--namespace", "default")))
                .hasMessageStartingWith("shard name 'Shard-0' is invalid")
                .as("a flag's: with usage").isNotInstanceOf(CommandLine.EnvironmentException.class);
    }

    @Test
    void unknownRepeatedEmptyAndStrayArgumentsAreRejected() {
        assertThatThrownBy(() -> parse(complete("--shard", "x"))).hasMessage("unknown flag --shard");
        assertThatThrownBy(() -> parse(complete("--ring=other"))).hasMessage("--ring is given twice");
        assertThatThrownBy(() -> parse(complete("--watch-namespace")))
                .hasMessage("--watch-namespace needs a value");
        assertThatThrownBy(() -> parse(List.of("--ring", "--shard-name", "s")))
                .hasMessage("--ring needs a value");
        assertThatThrownBy(() -> parse(complete("--watch-namespace=")))
                .hasMessage("--watch-namespace needs a value");
        assertThatThrownBy(() -> parse(complete("run"))).hasMessage("unexpected argument 'run'");
    }

    @Test
    void namesAreValidated() {
        assertThatThrownBy(() -> parse(List.of("--kubeconfig", kubeconfig.toString(), "--ring", "Checksums",
                "--shard-name", "shard-0", "--namespace", "default")))
                .hasMessageContaining("ring name 'Checksums' is invalid");
        assertThatThrownBy(() -> parse(List.of("--kubeconfig", kubeconfig.toString(), "--ring", "checksums",
                "--shard-name", "shard_0", "--namespace", "default")))
                .hasMessageContaining("shard name 'shard_0' is invalid");
        assertThatThrownBy(() -> parse(complete("--watch-namespace", "team-a,Team-B")))
                .hasMessageStartingWith("--watch-namespace 'Team-B' is not a namespace name");
    }

    @Test
    void theKubeconfigMustBeAReadableFile() {
        assertThatThrownBy(() -> parse(List.of("--kubeconfig", dir.resolve("nope").toString(), "--ring",
                "checksums", "--shard-name", "shard-0", "--namespace", "default")))
                .hasMessage("kubeconfig " + dir.resolve("nope") + " is not a readable file");
        assertThatThrownBy(() -> parse(List.of("--kubeconfig", dir.toString(), "--ring",
                "checksums", "--shard-name", "shard-0", "--namespace", "default")))
                .hasMessageEndingWith("is not a readable file");
    }

    @Test
    void helpIsRecognizedAnywhere() {
        assertThat(Flags.wantsHelp(List.of("--ring", "x", "--help"))).isTrue();
        assertThat(Flags.wantsHelp(List.of("-h"))).isTrue();
        assertThat(Flags.wantsHelp(complete())).isFalse();
    }

    @Test
    void rangeModeIsAFlagWithoutValueAndOffByDefault() throws Exception {
        assertThat(parse(complete()).shard().rangeMode()).as("label mode stays the default").isFalse();
        assertThat(parse(complete("--range-mode")).shard().rangeMode()).isTrue();
        CommandLine before = parse(List.of("--range-mode", "--ring", "checksums", "--shard-name", "shard-0",
                "--namespace", "default", "--watch-namespace", "ns"));
        assertThat(before.shard().rangeMode()).isTrue();
        assertThat(before.shard().watchNamespaces()).containsExactly("ns");
        assertThatThrownBy(() -> parse(complete("--range-mode=true"))).hasMessage("--range-mode takes no value");
        assertThatThrownBy(() -> parse(complete("--range-mode", "--range-mode")))
                .hasMessage("--range-mode is given twice");
        assertThat(CommandLine.USAGE).contains("[--range-mode]").contains("--range-mode                 for a ring");
        assertThat(CommandLine.usage("other", "Does things.")).doesNotContain("--range-mode");
    }

    @Test
    void loadReportPeriodIsADurationFifteenSecondsByDefault() throws Exception {
        assertThat(parse(complete()).shard().loadReportPeriod()).isEqualTo(Duration.ofSeconds(15));
        assertThat(parse(complete("--load-report-period", "5s")).shard().loadReportPeriod())
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(parse(complete("--load-report-period=0")).shard().loadReportPeriod()).as("never").isZero();
        assertThatThrownBy(() -> parse(complete("--load-report-period", "often"))).isInstanceOf(UsageException.class)
                .hasMessage("--load-report-period: 'often' is not a duration such as 250ms, 2s or 1m30s");
    }

    @Test
    void theMetricsPortIsAPortNumberAndNoneByDefault() throws Exception {
        assertThat(parse(complete()).metricsPort()).isEmpty();
        assertThat(parse(complete("--metrics-port", "8080")).metricsPort()).hasValue(8080);
        assertThat(parse(complete("--metrics-port=65535")).metricsPort()).hasValue(65535);
        for (String wrong : List.of("0", "65536", "http")) {
            assertThatThrownBy(() -> parse(complete("--metrics-port", wrong))).isInstanceOf(UsageException.class)
                    .hasMessage("--metrics-port must be a whole number from 1 to 65535, not '" + wrong + "'");
        }
        assertThat(CommandLine.USAGE).contains("[--metrics-port PORT]").contains("--metrics-port PORT          serve");
    }

    @Test
    void resyncIsADurationTenMinutesByDefault() throws Exception {
        assertThat(parse(complete()).shard().resync()).as("what the shards did before the flag").isEqualTo(Duration.ofMinutes(10));
        assertThat(parse(complete("--resync", "30s")).shard().resync()).isEqualTo(Duration.ofSeconds(30));
        assertThat(parse(complete("--resync=1m30s")).shard().resync()).isEqualTo(Duration.ofSeconds(90));
        assertThat(parse(complete("--resync", "0")).shard().resync()).as("only on changes").isZero();
        assertThatThrownBy(() -> parse(complete("--resync", "10"))).isInstanceOf(UsageException.class)
                .hasMessage("--resync: '10' is not a duration such as 250ms, 2s or 1m30s");
        assertThatThrownBy(() -> parse(complete("--resync", "-1s"))).hasMessageStartingWith("--resync: '-1s' is not");
        assertThatThrownBy(() -> parse(complete("--resync", "250ms")))
                .hasMessage("--resync must be 0 (only on changes) or at least 1s, not '250ms'");
        assertThat(parse(complete("--resync", "1s")).shard().resync()).isEqualTo(Duration.ofSeconds(1));
        assertThat(CommandLine.USAGE).contains("[--resync DURATION] [--cost-as wait|cpu]")
                .contains("--resync DURATION            reconcile every ConfigMap again this often");
    }

    @Test
    void costsAreSpentWaitingUnlessToldToCompute() throws Exception {
        assertThat(parse(complete()).shard().costAs()).isEqualTo(Cost.Mode.WAIT);
        assertThat(parse(complete("--cost-as", "cpu")).shard().costAs()).isEqualTo(Cost.Mode.CPU);
        assertThat(parse(complete("--cost-as=wait")).shard().costAs()).isEqualTo(Cost.Mode.WAIT);
        assertThatThrownBy(() -> parse(complete("--cost-as", "sleep"))).isInstanceOf(UsageException.class)
                .hasMessage("--cost-as 'sleep' is not a cost mode: use wait or cpu");
        assertThatThrownBy(() -> parse(complete("--cost-as"))).hasMessage("--cost-as needs a value");
        assertThat(CommandLine.USAGE).contains("--cost-as MODE               how a reconcile spends the cost")
                .contains(Cost.ANNOTATION);
    }
}
