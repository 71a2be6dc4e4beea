package dev.ringmaster.flags;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlagsTest {

    private static final Flags FLAGS = Flags.of().valued("--ring", "--shards").repeatable("--watch-namespace")
            .switches("--json").optionalValue("--ranges");

    private static Given parse(String... args) throws UsageException {
        return FLAGS.parse(List.of(args));
    }

    @Test
    void aValueFollowsTheFlagOrItsEqualsSign() throws UsageException {
        Given given = parse("--ring", "checksums", "--shards=3");
        assertThat(given.value("--ring")).contains("checksums");
        assertThat(given.value("--shards")).contains("3");
        assertThat(given.flags()).containsExactly("--ring", "--shards");
        assertThat(given.has("--json")).isFalse();
        assertThat(given.value("--json")).isEmpty();
    }

    @Test
    void aValueAfterTheEqualsSignIsTakenWhole() throws UsageException {
        assertThat(parse("--ring=a=b").value("--ring")).contains("a=b");
        assertThat(parse("--ring=--json").value("--ring")).contains("--json");
        assertThat(parse("--shards", "-5").value("--shards")).as("one dash is no flag").contains("-5");
    }

    @Test
    void switchesAndOptionalValues() throws UsageException {
        Given given = parse("--json", "--ranges");
        assertThat(given.has("--json")).isTrue();
        assertThat(given.has("--ranges")).isTrue();
        assertThat(given.value("--ranges")).isEmpty();
        assertThat(parse("--ranges=16").value("--ranges")).contains("16");
        assertThat(parse("--ranges", "--json").value("--ranges")).as("only = gives an optional value").isEmpty();
    }

    @Test
    void repeatableFlagsKeepEveryValueInOrder() throws UsageException {
        Given given = parse("--watch-namespace", "a", "--watch-namespace=b,c", "--watch-namespace", "d");
        assertThat(given.values("--watch-namespace")).containsExactly("a", "b,c", "d");
        assertThat(given.values("--ring")).isEmpty();
    }

    @Test
    void usageErrorsNameTheFlagInOneLine() {
        assertUsageError("unknown flag --frobnicate", "--frobnicate");
        assertUsageError("unknown flag --frobnicate", "--frobnicate=1");
        assertUsageError("unexpected argument 'run'", "run");
        assertUsageError("unexpected argument '-x'", "-x");
        assertUsageError("--ring needs a value", "--ring");
        assertUsageError("--ring needs a value", "--ring", "--json");
        assertUsageError("--ring needs a value", "--ring=");
        assertUsageError("--ring needs a value", "--ring", " ");
        assertUsageError("--ranges needs a value", "--ranges=");
        assertUsageError("--json takes no value", "--json=true");
        assertUsageError("--ring is given twice", "--ring", "a", "--ring=b");
        assertUsageError("--json is given twice", "--json", "--json");
        assertUsageError("--ranges is given twice", "--ranges", "--ranges=8");
    }

    @Test
    void aCommandMayLetTheLastFlagGivenWin() throws UsageException {
        Given given = FLAGS.lastGivenWins().parse(List.of("--ring", "a", "--json", "--ring=b", "--json", "--ranges=8",
                "--ranges", "--watch-namespace", "x", "--watch-namespace", "y"));
        assertThat(given.value("--ring")).contains("b");
        assertThat(given.has("--json")).isTrue();
        assertThat(given.value("--ranges")).as("the last --ranges has no value").isEmpty();
        assertThat(given.values("--watch-namespace")).containsExactly("x", "y");
        assertThat(given.flags()).containsExactly("--ring", "--json", "--ranges", "--watch-namespace");
    }

    @Test
    void helpIsAskedForAnywhere() {
        assertThat(Flags.wantsHelp(List.of("--ring", "x", "--help"))).isTrue();
        assertThat(Flags.wantsHelp(List.of("-h"))).isTrue();
        assertThat(Flags.wantsHelp(List.of("--ring", "x"))).isFalse();
    }

    @Test
    void wholeNumbersWithinBounds() throws UsageException {
        assertThat(parse("--shards=7").number("--shards", 1, 20)).hasValue(7);
        assertThat(parse().number("--shards", 1, 20)).isEmpty();
        assertThatThrownBy(() -> parse("--shards", "21").number("--shards", 1, 20))
                .hasMessage("--shards must be a whole number from 1 to 20, not '21'");
        assertThatThrownBy(() -> Flags.wholeNumber("--weights shard-0", "x", 1, 5))
                .hasMessage("--weights shard-0 must be a whole number from 1 to 5, not 'x'");
    }

    @Test
    void aReportIsOneLineWithTheHintAndExitCodeTwo() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = new UsageException("unknown flag --x").report("ringmaster run", new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("ringmaster run: unknown flag --x (see ringmaster run --help)" + System.lineSeparator());
    }

    @Test
    void aFlagIsDeclaredOnceWithItsDashes() {
        assertThatThrownBy(() -> FLAGS.switches("--ring")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Flags.of().valued("ring")).isInstanceOf(IllegalArgumentException.class);
    }

    private static void assertUsageError(String message, String... args) {
        assertThatThrownBy(() -> parse(args)).isInstanceOf(UsageException.class).hasMessage(message);
    }
}
