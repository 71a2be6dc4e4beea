package dev.ringmaster.shard.josdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.shard.client.LoadMeterAccess;
import dev.ringmaster.shard.client.Sharding;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the JOSDK shard times into its load meter, with a ticker that moves only when the test says. */
@EnableCrudApiServer
class LoadTimerTest {

    private static final long MS = 1_000_000L;

    KubernetesClient client;

    @Test
    void timesTheUsersCodeAndTheWaitSinceJosdkSubmittedTheExecution() throws Exception {
        AtomicLong ticker = new AtomicLong();
        Sharding sharding = Sharding.forRing("example").shard("shard-0").namespace("load-timer").client(client)
                .ticker(ticker::get).build();
        LoadTimer timer = new LoadTimer(sharding.loadMeter());
        ConfigMap object = new ConfigMapBuilder().withNewMetadata().withName("cm").withNamespace("load-timer")
                .withUid("u-1").endMetadata().build();
        try {
            timer.reconciliationSubmitted(object, null, Map.of());
            ticker.addAndGet(400 * MS);
            String result = timer.time(object, () -> {
                ticker.addAndGet(250 * MS);
                return "reconciled";
            });
            timer.reconciliationFinished(object, null, Map.of());
            // an execution JOSDK did not tell us it submitted: its duration only
            timer.time(object, () -> ticker.addAndGet(100 * MS));
            ticker.addAndGet(250 * MS);

            LoadReport report = LoadMeterAccess.snapshot(sharding.loadMeter());

            assertThat(result).isEqualTo("reconciled");
            assertThat(report.window()).isEqualTo(Duration.ofMillis(1000));
            assertThat(report.busy()).isCloseTo(0.35, within(1e-9));
            assertThat(report.queueWait()).isCloseTo(0.4, within(1e-9));
        } finally {
            sharding.close();
        }
    }
}
