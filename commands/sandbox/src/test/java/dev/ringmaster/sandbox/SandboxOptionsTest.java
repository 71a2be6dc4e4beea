package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.flags.Flags;
import dev.ringmaster.flags.UsageException;
import dev.ringmaster.ring.RingKind;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SandboxOptionsTest {

    @Test
    void defaultsRunThreeShardsWithAHundredObjectsUntilStopped() throws Exception {
        SandboxOptions options = SandboxOptions.parse(List.of());

        assertThat(options).isEqualTo(new SandboxOptions(3, 100, Optional.empty(), false, false, false,
                Duration.ofSeconds(120), RingKind.CLUSTER_RING, ShardImpl.CHECKSUM));
        assertThat(options.liveView()).isTrue();
    }

    @Test
    void readsEveryFlag() throws Exception {
        SandboxOptions options = SandboxOptions.parse(List.of("--shards", "4", "--objects", "300", "--scenario",
                "kill-shard", "--exit", "--json", "--timeout", "90", "--ring-kind", "controllerring", "--shard-impl", "josdk"));

        assertThat(options).isEqualTo(new SandboxOptions(4, 300, Optional.of(Scenario.KILL_SHARD), true, true, false,
                Duration.ofSeconds(90), RingKind.CONTROLLER_RING, ShardImpl.JOSDK));
        assertThat(options.liveView()).isFalse();
    }

    @Test
    void anUnknownRingKindIsAUsageError() {
        assertThatThrownBy(() -> SandboxOptions.parse(List.of("--ring-kind", "ring")))
                .isInstanceOf(UsageException.class)
                .hasMessage("--ring-kind must be clusterring or controllerring, not 'ring'");
    }

    @Test
    void acceptsValuesAfterAnEqualsSign() throws Exception {
        SandboxOptions options = SandboxOptions.parse(List.of("--shards=2", "--scenario=swap-strategy", "--quiet"));

        assertThat(options.shards()).isEqualTo(2);
        assertThat(options.scenario()).contains(Scenario.SWAP_STRATEGY);
        assertThat(options.liveView()).isFalse();
    }

    @Test
    void everyScenarioHasItsCommandLineName() throws Exception {
        for (Scenario scenario : Scenario.values()) {
            List<String> args = scenario.inLabelMode() ? List.of("--scenario", scenario.text())
                    : List.of("--ranges", "--scenario", scenario.text());
            assertThat(SandboxOptions.parse(args).scenario()).contains(scenario);
        }
        assertThat(Scenario.names()).isEqualTo("scale-out|scale-in|kill-shard|swap-strategy|balance");
    }

    @Test
    void badArgumentsAreOneLineUsageErrors() {
        assertUsageError(List.of("--frobnicate"), "unknown flag --frobnicate");
        assertUsageError(List.of("run"), "unexpected argument 'run'");
        assertUsageError(List.of("--shards", "2", "--shards=3"), "--shards is given twice");
        assertUsageError(List.of("--shards"), "--shards needs a value");
        assertUsageError(List.of("--shards", "--exit"), "--shards needs a value");
        assertUsageError(List.of("--shards", "abc"), "--shards must be a whole number from 1 to 20, not 'abc'");
        assertUsageError(List.of("--shards", "0"), "--shards must be a whole number from 1 to 20, not '0'");
        assertUsageError(List.of("--objects", "10001"), "--objects must be a whole number from 1 to 10000");
        assertUsageError(List.of("--timeout", "-5"), "--timeout must be a whole number");
        assertUsageError(List.of("--shard-impl", "go"), "unknown shard implementation 'go'; use checksum|josdk");
        assertUsageError(List.of("--scenario", "explode"),
                "unknown scenario 'explode'; scenarios: scale-out|scale-in|kill-shard|swap-strategy|balance");
        assertUsageError(List.of("--json"), "--json needs --exit");
        assertUsageError(List.of("--exit=yes"), "--exit takes no value");
    }

    @Test
    void scenariosThatTakeAShardAwayNeedTwo() throws Exception {
        assertUsageError(List.of("--shards", "1", "--scenario", "kill-shard"), "--scenario kill-shard needs --shards 2 or more");
        assertUsageError(List.of("--shards", "1", "--scenario", "scale-in"), "--scenario scale-in needs --shards 2 or more");
        assertThat(SandboxOptions.parse(List.of("--shards", "1", "--scenario", "scale-out")).shards()).isEqualTo(1);
    }

    @Test
    void rangesIsRangeModeWithSixtyFourBucketsOrTheGivenPowerOfTwo() throws Exception {
        assertThat(SandboxOptions.parse(List.of()).rangeMode()).as("label mode stays the default").isFalse();
        SandboxOptions ranges = SandboxOptions.parse(List.of("--ranges", "--shards", "3", "--objects", "100",
                "--scenario", "scale-out", "--exit", "--json", "--shard-impl", "josdk"));
        assertThat(ranges).isEqualTo(new SandboxOptions(3, 100, Optional.of(Scenario.SCALE_OUT), true, true, false,
                Duration.ofSeconds(120), RingKind.CLUSTER_RING, ShardImpl.JOSDK, 64));
        assertThat(ranges.rangeMode()).isTrue();
        assertThat(SandboxOptions.parse(List.of("--ranges=16")).rangeBuckets()).isEqualTo(16);
        for (String scenario : List.of("scale-out", "scale-in", "kill-shard")) {
            assertThat(SandboxOptions.parse(List.of("--ranges", "--scenario", scenario)).rangeMode()).isTrue();
        }
        assertUsageError(List.of("--ranges", "--scenario", "swap-strategy"),
                "--scenario swap-strategy does not go with --ranges: a range-mode ring has no strategy");
        assertUsageError(List.of("--ranges=12"), "--ranges must be a power of two from 1 to 4096, not '12'");
        assertUsageError(List.of("--ranges=8192"), "--ranges must be a power of two from 1 to 4096, not '8192'");
        assertUsageError(List.of("--ranges=x"), "--ranges must be a power of two from 1 to 4096, not 'x'");
        assertUsageError(List.of("--ranges", "--ranges"), "--ranges is given twice");
        assertThat(SandboxOptions.USAGE).contains("[--ranges[=BUCKETS]]", "client-side");
    }

    @Test
    void balanceIsRangeModeOnlyAndNeedsTwoShards() throws Exception {
        SandboxOptions balance = SandboxOptions.parse(List.of("--ranges", "--scenario", "balance", "--exit"));
        assertThat(balance.balancing()).isTrue();
        assertThat(balance.rangeMode()).isTrue();
        assertThat(SandboxOptions.parse(List.of("--ranges", "--scenario", "scale-out")).balancing()).isFalse();
        assertUsageError(List.of("--scenario", "balance"),
                "--scenario balance needs --ranges: load-aware balancing moves hash ranges");
        assertUsageError(List.of("--ranges", "--shards", "1", "--scenario", "balance"),
                "--scenario balance needs --shards 2 or more");
        assertThat(SandboxOptions.USAGE).contains("balance        --ranges only", Balancing.COSTS, "mean 20 ms",
                "within 1.25 of the mean");
        Balancing.SETTINGS.forEach((key, value) -> assertThat(SandboxOptions.USAGE).contains(key + ": " + value));
    }

    @Test
    void helpIsAskedForAnywhere() {
        assertThat(Flags.wantsHelp(List.of("--shards", "3", "--help"))).isTrue();
        assertThat(Flags.wantsHelp(List.of("-h"))).isTrue();
        assertThat(Flags.wantsHelp(List.of("--exit"))).isFalse();
        assertThat(SandboxOptions.USAGE).startsWith("usage: ringmaster sandbox")
                .contains("--scenario scale-out|scale-in|kill-shard|swap-strategy|balance", "--json", "--timeout SECONDS");
    }

    private static void assertUsageError(List<String> args, String message) {
        assertThatThrownBy(() -> SandboxOptions.parse(args))
                .isInstanceOf(UsageException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
