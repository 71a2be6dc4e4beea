package dev.ringmaster.shard.josdk;

import dev.ringmaster.shard.client.ShardSelectorInterceptor;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The range-mode Operator client's one interceptor: the shard selectors of the primary resources of the
 * controllers registered so far, each adding {@code shardSelector} to its own resource's lists and watches only.
 */
final class ShardSelectors implements Interceptor {

    private final List<ShardSelectorInterceptor> selectors = new CopyOnWriteArrayList<>();

    void add(ShardSelectorInterceptor selector) {
        selectors.add(selector);
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        for (ShardSelectorInterceptor selector : selectors) {
            selector.before(builder, request, tags);
        }
    }
}
