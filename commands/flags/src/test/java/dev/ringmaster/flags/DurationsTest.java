package dev.ringmaster.flags;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void aNumberAndAUnitOrSeveral() {
        assertThat(Durations.parse("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(Durations.parse("2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse(".5s")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Durations.parse("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(Durations.parse("485us")).isEqualTo(Duration.ofNanos(485_000));
        assertThat(Durations.parse("485µs")).isEqualTo(Duration.ofNanos(485_000));
        assertThat(Durations.parse("7ns")).isEqualTo(Duration.ofNanos(7));
        assertThat(Durations.parse("1.0000000001s")).as("below a nanosecond dropped").isEqualTo(Duration.ofSeconds(1));
        assertThat(Durations.parse("0")).isZero();
        assertThat(Durations.parse("0ms")).isZero();
    }

    @Test
    void anythingElseIsRefusedQuotingTheValue() {
        for (String bad : List.of("", "5", "-1s", "+1s", "1 s", "s", "1.s", "1..5s", "1.5.5s", "1sec", "2d", "1s ",
                "ms", "1m30", "abc")) {
            assertThatThrownBy(() -> Durations.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'" + bad + "' is not a duration such as 250ms, 2s or 1m30s");
        }
        assertThatThrownBy(() -> Durations.parse("3000000h")).hasMessage("'3000000h' is too long a duration");
    }

    @Test
    void formattedInTheLargestWholeUnitAndReadBack() {
        assertThat(Durations.format(Duration.ofSeconds(2))).isEqualTo("2s");
        assertThat(Durations.format(Duration.ofMinutes(10))).isEqualTo("600s");
        assertThat(Durations.format(Duration.ofMillis(250))).isEqualTo("250ms");
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(Durations.format(Duration.ofNanos(485_000))).isEqualTo("485us");
        assertThat(Durations.format(Duration.ofNanos(1_000_001))).isEqualTo("1000001ns");
        assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
        for (long nanos : new long[] {1, 999, 1_000, 123_456_789, 86_400_000_000_000L}) {
            assertThat(Durations.parse(Durations.format(Duration.ofNanos(nanos)))).isEqualTo(Duration.ofNanos(nanos));
        }
        assertThatThrownBy(() -> Durations.format(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aDurationFlagNamesTheFlagWhenItsValueIsNone() throws UsageException {
        Flags flags = Flags.of().valued("--resync");
        assertThat(flags.parse(List.of("--resync", "30s")).duration("--resync")).contains(Duration.ofSeconds(30));
        assertThat(flags.parse(List.of()).duration("--resync")).isEmpty();
        assertThatThrownBy(() -> flags.parse(List.of("--resync=soon")).duration("--resync"))
                .isInstanceOf(UsageException.class)
                .hasMessage("--resync: 'soon' is not a duration such as 250ms, 2s or 1m30s");
    }
}
