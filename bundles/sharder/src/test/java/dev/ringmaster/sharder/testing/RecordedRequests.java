package dev.ringmaster.sharder.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The requests a client sent, as it sent them: the mock server's own request log loses bodies it has
 * read and cannot tell two clients apart.
 */
public final class RecordedRequests {

    /** One request, recorded when its response arrived. */
    public record Request(String method, String path, String body) {
    }

    private final List<Request> requests = new CopyOnWriteArrayList<>();

    /** A new client configured as {@code like} whose requests are recorded here; the caller closes it. */
    public KubernetesClient clientLike(KubernetesClient like) {
        return new KubernetesClientBuilder().withConfig(like.getConfiguration())
                .withHttpClientBuilderConsumer(builder -> builder.addOrReplaceInterceptor("recorded-requests",
                        new Interceptor() {
                            @Override
                            public void after(HttpRequest request, HttpResponse<?> response,
                                    AsyncBody.Consumer<List<ByteBuffer>> consumer) {
                                requests.add(new Request(request.method(), request.uri().getPath(), request.bodyString()));
                            }
                        }))
                .build();
    }

    /** Every request so far, in the order the responses arrived. */
    public List<Request> all() {
        return List.copyOf(requests);
    }

    /** How many requests with this method went to this path. */
    public long count(String method, String path) {
        return requests.stream().filter(r -> r.method().equals(method) && r.path().equals(path)).count();
    }
}
