package dev.ringmaster.testing.mockapiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import org.junit.jupiter.api.RepeatedTest;

@EnableCrudApiServer
class EnableCrudApiServerTest extends WithClient {

    /** The server of the repetition before, which must be gone. */
    private static KubernetesMockServer before;

    KubernetesMockServer server;

    @RepeatedTest(2)
    void eachTestHasACrudServerOfItsOwnAndTheOneBeforeIsShutDown() {
        assertThat(client.getMasterUrl().getPort()).isEqualTo(server.getPort());
        assertThat(client.configMaps().inNamespace("test").list().getItems()).as("a new server's store").isEmpty();
        client.configMaps().inNamespace("test").resource(new ConfigMapBuilder().withNewMetadata().withName("a")
                .endMetadata().addToData("key", "value").build()).create();
        assertThat(client.configMaps().inNamespace("test").withName("a").get().getData()).containsEntry("key", "value");
        if (before != null) {
            assertThat(before).isNotSameAs(server);
            int port = before.getPort();
            assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close())
                    .isInstanceOf(ConnectException.class);
        }
        before = server;
    }
}

/** The client field in a superclass, as the shard client's test base declares it. */
abstract class WithClient {
    KubernetesClient client;
}
