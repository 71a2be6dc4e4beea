package dev.ringmaster.shard.client;

import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Tests against the CRUD mock server with a client of it that does not retry (one request per attempt,
 * so expectations count exactly), closed after each test, and a namespace of each test's own.
 */
@EnableCrudApiServer
abstract class MockServerTestBase {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    KubernetesMockServer server;

    KubernetesClient client;
    String namespace;

    @BeforeEach
    void connectWithoutRetries() {
        client = server.createClient(builder -> builder.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig());
        namespace = getClass().getSimpleName().toLowerCase(Locale.ROOT) + "-" + NAMESPACES.incrementAndGet();
    }

    @AfterEach
    void closeClient() {
        client.close();
    }
}
