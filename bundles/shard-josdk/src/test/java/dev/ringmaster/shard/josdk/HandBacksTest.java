package dev.ringmaster.shard.josdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.shard.client.Sharding;
import dev.ringmaster.testing.apiserver.SilentApiServer;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The JOSDK shard's hand-backs against the CRUD mock server (the Lease) and a server that never answers (the sweep). */
@EnableCrudApiServer
class HandBacksTest {

    KubernetesClient client;

    /**
     * A shard stopping cuts its sweep's list off; that is no failure to warn about (it was, whenever a
     * list was in flight).
     */
    @Test
    void aSweepCutOffByCloseIsNoWarning() throws Exception {
        Sharding sharding = Sharding.forRing("example").shard("shard-0").namespace("hand-backs").client(client).build();
        sharding.lease().start();
        await().atMost(Duration.ofSeconds(10)).until(sharding.lease()::isHeld);
        String logged;
        try (SilentApiServer silent = new SilentApiServer(client)) {
            HandBacks<ConfigMap> handBacks = new HandBacks<>(sharding, new ExecutionGate(), 1, "recorder");
            handBacks.sweep(() -> silent.client().configMaps().inNamespace("hand-backs").list().getItems(),
                    Duration.ofMillis(50));
            logged = silent.loggedWhileCuttingOff(() -> {
                handBacks.close(Duration.ofSeconds(5));
                SilentApiServer.awaitEnd("drain-sweep-recorder");
            });
        } finally {
            sharding.close();
        }
        assertThat(logged).doesNotContain("could not list its drained objects");
    }
}
