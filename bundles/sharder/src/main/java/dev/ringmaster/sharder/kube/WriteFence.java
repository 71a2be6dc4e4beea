package dev.ringmaster.sharder.kube;

import dev.ringmaster.kubernetes.client.KubernetesClients;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;

/**
 * Lets the leader's writes to the API server through only while its leadership is certain: a
 * replica whose lease may have run out (a paused JVM, a stalled renewal, a long rebalance pass)
 * writes nothing, though it has not noticed the loss yet.
 *
 * <p>The fence sits in the HTTP client ({@link #guard}), checked as each request that changes
 * something is sent: a check in the caller would leave the time between it and the request open
 * (a JVM paused there writes after thawing), and fabric8's own retries of a request would pass it
 * unchecked.
 */
@FunctionalInterface
public interface WriteFence {

    /** Whether a write now is safe. */
    boolean mayWrite();

    /**
     * A client to the same API server whose requests other than GET (reads and watches) fail with
     * {@link Closed}, without being sent, while the fence is shut. It makes no retries of its own
     * (fabric8 retries on another thread, where a refusal would be lost): callers retry with their
     * backoff, after reading again. Over HTTP/2 the JDK client fails a request beyond the server's
     * stream limit per connection ("too many concurrent streams") rather than waiting, which fabric8's
     * retries used to hide: keep the writes in flight below it ({@code concurrentMoves}). Close it
     * when done.
     */
    static KubernetesClient guard(KubernetesClient client, WriteFence fence) {
        Interceptor refuseUnsafeWrites = new Interceptor() {
            @Override
            public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
                if (!"GET".equals(request.method()) && !fence.mayWrite()) {
                    throw new Closed();
                }
            }
        };
        return KubernetesClients.build(
                new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0).build(),
                http -> http.addOrReplaceInterceptor("ringmaster-write-fence", refuseUnsafeWrites));
    }

    /** Whether the failure, or one of its causes, is a write this fence refused. */
    static boolean refused(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof Closed) {
                return true;
            }
        }
        return false;
    }

    /** A write refused because this replica's leadership is no longer certain. */
    final class Closed extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        Closed() {
            super("not written: this replica's leadership is no longer certain (its lease may have run out)");
        }
    }
}
