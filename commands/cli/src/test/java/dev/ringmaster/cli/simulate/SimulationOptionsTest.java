package dev.ringmaster.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.cli.workload.CostDistribution;
import dev.ringmaster.flags.UsageException;
import dev.ringmaster.ring.Shard;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class SimulationOptionsTest {

    private static SimulationOptions parse(String line) throws UsageException {
        return SimulationOptions.of(SimulationOptions.FLAGS.parse(List.of(line.split(" "))));
    }

    @Test
    void addedShardsContinueTheNumberingAndWeightsApply() throws UsageException {
        SimulationOptions options = parse("--strategy rendezvous --shards 2 --objects 10 --add 2 --weights shard-3=4,shard-0=2");
        assertThat(options.shardsBefore()).containsExactly(new Shard("shard-0", 2), Shard.of("shard-1"));
        assertThat(options.shardsAfter()).containsExactly(new Shard("shard-0", 2), Shard.of("shard-1"),
                Shard.of("shard-2"), new Shard("shard-3", 4));
    }

    @Test
    void removedShardsAreTheHighestNumbers() throws UsageException {
        SimulationOptions options = parse("--strategy x --shards 4 --objects 10 --remove 3 --json --tokens 50");
        assertThat(options.shardsAfter()).extracting(Shard::name).containsExactly("shard-0");
        assertThat(options.json()).isTrue();
        assertThat(options.tokensPerShard()).hasValue(50);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--shards 3 --objects 10 | --strategy (or --ranges), --shards and --objects are required",
        "--strategy x --shards three --objects 10 | --shards must be a whole number from 1 to 10000, not 'three'",
        "--strategy x --shards 0 --objects 10 | --shards must be a whole number from 1",
        "--strategy x --shards 3 --objects -5 | --objects must be a whole number",
        "--strategy x --shards 3 --objects 10 --add 1 --remove 1 | --add and --remove cannot be combined",
        "--strategy x --shards 3 --objects 10 --remove 3 | --remove 3 would leave no shard of 3",
        "--strategy x --shards 3 --objects 10 --weights shard-0 | --weights entries are NAME=WEIGHT, got 'shard-0'",
        "--strategy x --shards 3 --objects 10 --weights shard-0=2, | --weights entries are NAME=WEIGHT, got ''",
        "--strategy x --shards 3 --objects 10 --weights shard-0=0 | --weights shard-0 must be a whole number from 1 to 1000",
        "--strategy x --shards 3 --objects 10 --weights shard-7=2 | --weights names shard-7, which is not in the fleet",
        "--strategy x --shards 3 --objects 10 --weights shard-1=2,shard-1=3 | --weights names shard-1 twice",
        "--strategy x --shards 3 --objects 10 --tokens 0 | --tokens must be a whole number from 1 to 10000",
        "--strategy x --shards 3 --objects 10 --frobnicate | unknown flag --frobnicate",
        "--strategy x --shards 3 --objects | --objects needs a value",
        "--strategy x --shards 3 --objects 10 --kubeconfig kc | --kubeconfig needs --ring",
        "--strategy x --shards 3 --shards 4 --objects 10 | --shards is given twice",
        "--ranges 48 --shards 3 --objects 10 | --ranges must be a power of two, got 48",
        "--ranges 8192 --shards 3 --objects 10 | --ranges must be a whole number from 1 to 4096",
        "--ranges 64 --strategy x --shards 3 --objects 10 | --ranges replaces --strategy",
        "--ranges 64 --shards 3 --objects 10 --weights shard-0=2 | takes no --weights or --tokens",
        "--ranges 64 --range-key name --shards 3 --objects 10 | --range-key: range key \"name\" is neither uid nor namespace",
        "--strategy x --range-key uid --shards 3 --objects 10 | --range-key needs --ranges",
        "--strategy x --shards 3 --objects 10 --costs zipf | --costs 'zipf' is not a cost distribution: write zipf:S",
        "--strategy x --shards 3 --objects 10 --costs pareto:2 | --costs 'pareto:2' is not a cost distribution: use equal, zipf:S, hot:P:F or namespace-half[:M]",
        "--strategy x --shards 3 --objects 10 --costs hot:0:5 | --costs 'hot:0:5': the percentage P must be more than 0",
        "--strategy x --shards 3 --objects 10 --costs | --costs needs a value",
        "--strategy x --shards 3 --objects 1000001 --costs equal | --costs takes at most 1000000 --objects, not 1000001",
    })
    void badInputIsAOneLineError(String line, String message) {
        assertThatThrownBy(() -> parse(line)).isInstanceOf(UsageException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void costsAreACostDistribution() throws UsageException {
        assertThat(parse("--strategy x --shards 3 --objects 10").costs()).isEmpty();
        assertThat(parse("--strategy x --shards 3 --objects 10 --costs zipf:1.1").costs())
                .contains(CostDistribution.parse("zipf:1.1"));
        assertThat(parse("--ranges 64 --shards 3 --objects 10 --costs=hot:1:100").costs())
                .contains(CostDistribution.parse("hot:1:100"));
        assertThat(SimulationOptions.USAGE).contains("[--costs SPEC]").contains("--costs SPEC      what reconciling");
    }

    /** What the command prints for a bad --costs: one line on stderr naming the flag, exit code 2. */
    @Test
    void aBadCostSpecIsOneLineAndExitCode2() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = new SimulateCommand().run(List.of("--strategy", "rendezvous", "--shards", "3", "--objects", "10",
                "--costs", "zipf:x"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(2);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("ringmaster simulate: --costs 'zipf:x': the exponent S"
                + " must be a number, not 'x' (see ringmaster simulate --help)" + System.lineSeparator());
    }
}
