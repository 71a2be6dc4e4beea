package dev.ringmaster.testing.mockapiserver;

import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.function.BiConsumer;

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
        return start((request, response) -> { });
    }

    /**
     * The same, showing {@code answering} each request with the response about to be sent, on the server's
     * event loop: it may change the response (a body delay, say) but must not block.
     */
    public static KubernetesMockServer start(BiConsumer<RecordedRequest, MockResponse> answering) {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        Dispatcher crud = new WatchCloseOffLoop(new KubernetesMixedDispatcher(responses));
        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()),
                new MockWebServer(), responses, new Dispatcher() {
                    @Override
                    public MockResponse dispatch(RecordedRequest request) {
                        MockResponse response = crud.dispatch(request);
                        if (response != null) {
                            answering.accept(request, response);
                        }
                        return response;
                    }

                    @Override
                    public void shutdown() {
                        crud.shutdown();
                    }

                    @Override
                    public void releaseResources() {
                        crud.releaseResources();
                    }
                }, true);
        server.init(InetAddress.getLoopbackAddress(), 0);
        return server;
    }
}
