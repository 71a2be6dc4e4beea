package dev.ringmaster.sharder.interpreter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.sharder.kube.ObjectEvents;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

@EnableCrudApiServer
class InvalidKeyEventsTest {

    KubernetesClient client;

    @Test
    void objectsThatCannotBeKeyedGetOneWarningEventEach() {
        InvalidKeyEvents report = new InvalidKeyEvents(new ObjectEvents(client, Clock.systemUTC(), "ringmaster.dev/sharder"));
        ObjectReference bad = ObjectReference.of("example.com", "v1", "Widget", "team-a", "bad-1");
        report.skipped(bad, new PartitionKey.Invalid("the label team is required"));
        report.skipped(bad, new PartitionKey.Invalid("the label team is required"));

        List<Event> events = client.events().v1().events().inNamespace("team-a").list().getItems();
        assertThat(events).singleElement().satisfies(event -> {
            assertThat(event.getType()).isEqualTo("Warning");
            assertThat(event.getReason()).isEqualTo("ShardingSkipped");
            assertThat(event.getNote()).isEqualTo("not assigned to a shard: the label team is required");
            assertThat(event.getRegarding().getApiVersion()).isEqualTo("example.com/v1");
            assertThat(event.getRegarding().getKind()).isEqualTo("Widget");
            assertThat(event.getRegarding().getName()).isEqualTo("bad-1");
        });
    }

    @Test
    void eventsAboutClusterScopedObjectsGoToTheDefaultNamespace() {
        new InvalidKeyEvents(new ObjectEvents(client, Clock.systemUTC(), "ringmaster.dev/sharder"))
                .skipped(ObjectReference.of("", "v1", "PersistentVolume", "", "pv-1"), new PartitionKey.Invalid("no"));
        assertThat(client.events().v1().events().inNamespace("default").list().getItems()).hasSize(1);
    }
}
