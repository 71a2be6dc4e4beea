package dev.ringmaster.testing.mockapiserver;

import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * fabric8's mock API server as {@code @EnableKubernetesMockClient(crud = true)} runs it (expectations
 * first, CRUD for everything else, HTTPS), with closing watches handled off its event loop
 * ({@link WatchCloseOffLoop}).
 */
public final class CrudApiServer {

    private CrudApiServer() {
    }

    /** A server listening on a free port of 127.0.0.1; {@code destroy()} it when done. */
    public static KubernetesMockServer start() {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()),
                new MockWebServer(), responses, new WatchCloseOffLoop(new KubernetesMixedDispatcher(responses)), true);
        server.init(InetAddress.getLoopbackAddress(), 0);
        return server;
    }
}
