package dev.ringmaster.examples.checksum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The cost annotation: what it says, what a bad value does, and how each mode spends it. */
class CostTest {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final Cost waiting = new Cost(Cost.Mode.WAIT, warnings::add);

    @Test
    void theAnnotationIsADuration() {
        assertThat(waiting.of(configMap("a", "250ms"))).isEqualTo(Duration.ofMillis(250));
        assertThat(waiting.of(configMap("a", "2s"))).isEqualTo(Duration.ofSeconds(2));
        assertThat(waiting.of(configMap("a", " 1.5s "))).as("surrounding blanks ignored").isEqualTo(Duration.ofMillis(1500));
        assertThat(waiting.of(configMap("a", "485us"))).isEqualTo(Duration.ofNanos(485_000));
        assertThat(waiting.of(configMap("a", "0"))).isZero();
        assertThat(waiting.of(configMap("a", null))).as("no annotation: no cost").isZero();
        assertThat(warnings).isEmpty();
    }

    @Test
    void anInvalidValueCostsNothingAndIsReportedOncePerObjectAndValue() {
        assertThat(waiting.of(configMap("a", "soon"))).isZero();
        assertThat(waiting.of(configMap("a", "soon"))).isZero();
        assertThat(waiting.of(configMap("b", "soon"))).isZero();
        assertThat(waiting.of(configMap("a", "-1s"))).isZero();
        assertThat(waiting.spend(configMap("a", "-1s"))).isZero();
        assertThat(warnings).containsExactly(
                "ConfigMap ns/a: annotation checksums.ringmaster.dev/cost: 'soon' is not a duration such as 250ms,"
                        + " 2s or 1m30s; its reconciles cost nothing",
                "ConfigMap ns/b: annotation checksums.ringmaster.dev/cost: 'soon' is not a duration such as 250ms,"
                        + " 2s or 1m30s; its reconciles cost nothing",
                "ConfigMap ns/a: annotation checksums.ringmaster.dev/cost: '-1s' is not a duration such as 250ms,"
                        + " 2s or 1m30s; its reconciles cost nothing");

        // fixed, then broken again with the same value: reported again
        assertThat(waiting.of(configMap("a", "1ms"))).isEqualTo(Duration.ofMillis(1));
        waiting.of(configMap("a", "-1s"));
        assertThat(warnings).hasSize(4);
    }

    @Test
    void theModesAreNamedAsTheFlagSpellsThem() {
        assertThat(Cost.Mode.ofFlagValue("wait")).isEqualTo(Cost.Mode.WAIT);
        assertThat(Cost.Mode.ofFlagValue("cpu")).isEqualTo(Cost.Mode.CPU);
        assertThat(Cost.Mode.CPU.flagValue()).isEqualTo("cpu");
        assertThatThrownBy(() -> Cost.Mode.ofFlagValue("CPU")).hasMessage("'CPU' is not a cost mode: use wait or cpu");
    }

    @Test
    void waitingTakesTheCostInWallTimeAndLittleCpu() {
        long cpu = THREADS.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        assertThat(waiting.spend(configMap("a", "300ms"))).isEqualTo(Duration.ofMillis(300));
        long wallSpent = System.nanoTime() - wall;
        assertThat(wallSpent).isBetween(Duration.ofMillis(300).toNanos(), Duration.ofSeconds(10).toNanos());
        assertThat(THREADS.getCurrentThreadCpuTime() - cpu).isLessThan(Duration.ofMillis(150).toNanos());
    }

    @Test
    void computingUsesTheCostInThreadCpuTime() {
        Cost computing = new Cost(Cost.Mode.CPU, warnings::add);
        long cpu = THREADS.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        assertThat(computing.spend(configMap("a", "300ms"))).isEqualTo(Duration.ofMillis(300));
        assertThat(THREADS.getCurrentThreadCpuTime() - cpu).as("CPU time of this thread")
                .isGreaterThanOrEqualTo(Duration.ofMillis(240).toNanos());
        assertThat(System.nanoTime() - wall).as("sanity bound").isLessThan(Duration.ofSeconds(30).toNanos());
    }

    @Test
    void anInterruptedThreadStopsSpendingAndKeepsItsFlag() {
        for (Cost.Mode mode : Cost.Mode.values()) {
            long wall = System.nanoTime();
            Thread.currentThread().interrupt();
            new Cost(mode).spend(Duration.ofSeconds(30));
            assertThat(Thread.interrupted()).as(mode.flagValue()).isTrue();
            assertThat(System.nanoTime() - wall).as(mode.flagValue()).isLessThan(Duration.ofSeconds(5).toNanos());
        }
    }

    private static ConfigMap configMap(String name, String cost) {
        ConfigMapBuilder builder = new ConfigMapBuilder().withNewMetadata().withNamespace("ns").withName(name)
                .endMetadata();
        if (cost != null) {
            builder.editMetadata().addToAnnotations(Cost.ANNOTATION, cost).endMetadata();
        }
        return builder.build();
    }
}
