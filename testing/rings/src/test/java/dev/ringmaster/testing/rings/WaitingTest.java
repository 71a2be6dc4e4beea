package dev.ringmaster.testing.rings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class WaitingTest {

    private final Waiting waiting = Waiting.every(Duration.ofMillis(10));

    @Test
    void aLapseFailsAtOnceNamingWhatLapsedEvenIfItHoldsAgainAfterwards() {
        AtomicInteger polls = new AtomicInteger();
        long started = System.nanoTime();
        assertThatThrownBy(() -> waiting.throughout(Duration.ofSeconds(2), () -> "settled",
                () -> polls.incrementAndGet() == 3 ? List.of("cm-1 in drain") : List.of()))
                .isInstanceOf(AssertionError.class).hasMessage("settled; first lapse: [cm-1 in drain]");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
        assertThat(polls).hasValue(3);
    }

    @Test
    void aConditionThatHoldsThroughoutPasses() {
        AtomicInteger polls = new AtomicInteger();
        waiting.throughout(Duration.ofMillis(200), () -> "settled", () -> {
            polls.incrementAndGet();
            return List.of();
        });
        assertThat(polls.get()).isGreaterThan(5);
    }

    @Test
    void aLapseStartsTheHoldAgain() {
        AtomicInteger polls = new AtomicInteger();
        long[] lastLapse = {0};
        waiting.steady(Duration.ofSeconds(10), Duration.ofSeconds(1), () -> "settled", () -> {
            // settled from the fourth poll, a lapse on the fifth: the hold that began on the fourth starts again
            int poll = polls.incrementAndGet();
            if (poll <= 3 || poll == 5) {
                lastLapse[0] = System.nanoTime();
                return List.of("cm-1 in drain");
            }
            return List.of();
        });
        assertThat(polls.get()).isGreaterThan(5);
        assertThat(Duration.ofNanos(System.nanoTime() - lastLapse[0])).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void neverSteadyFailsNamingTheLastLapse() {
        AtomicInteger lapses = new AtomicInteger();
        long[] lastLapse = {0};
        // a lapse whenever 50 ms have passed since the last: never settled for the 200 ms, however slow the polls
        assertThatThrownBy(() -> waiting.steady(Duration.ofMillis(300), Duration.ofMillis(200), () -> "settled", () -> {
            if (System.nanoTime() - lastLapse[0] >= Duration.ofMillis(50).toNanos()) {
                lastLapse[0] = System.nanoTime();
                return List.of("cm-" + lapses.incrementAndGet() + " in drain");
            }
            return List.of();
        })).isInstanceOf(AssertionError.class).hasMessageStartingWith("not within 0 s: steady for 0 s: settled;"
                + " last lapse: [cm-").hasMessageEndingWith(" in drain]");
        assertThat(lapses.get()).isGreaterThan(1);
    }

    @Test
    void aTimeoutSaysWhatWasAwaited() {
        assertThatThrownBy(() -> waiting.until(Duration.ofMillis(100), () -> "shard-0 ready", () -> false))
                .isInstanceOf(AssertionError.class).hasMessage("not within 0 s: shard-0 ready");
    }

    @Test
    void aSummaryNamesTwelveProblemsAndCountsTheRest() {
        List<String> problems = IntStream.range(0, 14).mapToObj(i -> "cm-" + i).toList();
        assertThat(Waiting.summary(problems)).isEqualTo(problems.subList(0, 12) + " and 2 more");
    }
}
