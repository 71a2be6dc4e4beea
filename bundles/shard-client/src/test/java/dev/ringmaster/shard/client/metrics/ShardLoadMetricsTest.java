package dev.ringmaster.shard.client.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.shard.client.ShardLabels;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ShardLoadMetricsTest {

    private static final String[] NAMES = {"ringmaster.shard.load", "ringmaster.shard.queue.wait",
            "ringmaster.shard.objects", "ringmaster.shard.load.report.window"};

    private final AtomicReference<LoadReport> last = new AtomicReference<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void theGaugesAreNotANumberUntilTheFirstReport() {
        bind(ShardLabels.of("shop", "shop-0"));

        for (String name : NAMES) {
            assertThat(gauge(name).value()).as(name).isNaN();
        }
    }

    @Test
    void theGaugesShowTheLastReportWrittenOnTheLease() {
        bind(ShardLabels.of("shop", "shop-0"));

        last.set(new LoadReport(Duration.ofSeconds(15), 0.412, 0.013, 1532, List.of()));
        assertThat(gauge("ringmaster.shard.load").value()).isEqualTo(0.412);
        assertThat(gauge("ringmaster.shard.queue.wait").value()).isEqualTo(0.013);
        assertThat(gauge("ringmaster.shard.objects").value()).isEqualTo(1532);
        assertThat(gauge("ringmaster.shard.load.report.window").value()).isEqualTo(15);

        last.set(new LoadReport(Duration.ofMillis(14_500), 1.75, 0, 0, List.of()));
        assertThat(gauge("ringmaster.shard.load").value()).isEqualTo(1.75);
        assertThat(gauge("ringmaster.shard.queue.wait").value()).isZero();
        assertThat(gauge("ringmaster.shard.objects").value()).isZero();
        assertThat(gauge("ringmaster.shard.load.report.window").value()).isEqualTo(14.5);
    }

    /** The sharder's ring tags (both kinds, the other one empty), so queries join the two sides; and the shard. */
    @Test
    void theTagsNameTheRingByItsKindAndTheShard() {
        bind(ShardLabels.of(RingKind.CONTROLLER_RING, "shop", "shop-2"));

        for (String name : NAMES) {
            assertThat(gauge(name).getId().getTags()).as(name)
                    .isEqualTo(Tags.of("clusterring", "", "controllerring", "shop", "shard", "shop-2").stream().toList());
        }
        assertThat(gauge("ringmaster.shard.load").getId().getBaseUnit()).isEqualTo("seconds.per.second");
        assertThat(gauge("ringmaster.shard.queue.wait").getId().getBaseUnit()).isEqualTo("seconds");
    }

    private void bind(ShardLabels labels) {
        new ShardLoadMetrics(labels, () -> Optional.ofNullable(last.get())).bindTo(registry);
    }

    private Gauge gauge(String name) {
        return registry.get(name).gauge();
    }
}
