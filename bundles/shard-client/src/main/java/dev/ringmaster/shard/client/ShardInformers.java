package dev.ringmaster.shard.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restricts fabric8 list, watch and informer calls to this shard's objects (docs/design.md section 1):
 * it adds the label selector {@code <shard label>=<shard>} to an operation, so the API server sends
 * only the objects the sharder assigned to this shard and the shard's cache holds nothing else.
 *
 * <p>Any operation that can list and watch works: {@code client.configMaps().inAnyNamespace()},
 * {@code client.configMaps().inNamespace(ns)}, {@code client.resources(MyType.class)},
 * {@code client.genericKubernetesResources(context).inAnyNamespace()} and so on.
 *
 * <pre>{@code
 * ShardInformers informers = sharding.informers();
 * ConfigMapList mine = informers.filter(client.configMaps().inNamespace("ns")).list();
 * SharedIndexInformer<ConfigMap> informer = informers.runnableInformer(client.configMaps().inAnyNamespace());
 * }</pre>
 *
 * <p>An object leaves the shard's cache (a delete event) when the sharder moves it away or the shard
 * hands it back. The informers made here retry a failed list or watch with fabric8's backoff, the first list
 * too, which fabric8 gives up by default: a shard whose first list is refused (RBAC applied after it) or times
 * out on a busy server would hold its Lease and reconcile nothing. Each failure is logged at WARN; a handler
 * set with {@code exceptionHandler} replaces this one. Thread-safe.
 */
public final class ShardInformers {

    private static final Logger LOG = LoggerFactory.getLogger(ShardInformers.class);

    private final ShardLabels labels;

    /** @param labels this shard's labels */
    public ShardInformers(ShardLabels labels) {
        this.labels = Objects.requireNonNull(labels, "labels");
    }

    /**
     * The operation restricted to this shard's objects, for {@code list()}, {@code watch(...)} or
     * {@code inform(...)}.
     *
     * @param operation e.g. {@code client.configMaps().inAnyNamespace()}
     */
    public <T extends HasMetadata, L, R> FilterWatchListDeletable<T, L, R> filter(FilterWatchListDeletable<T, L, R> operation) {
        return Objects.requireNonNull(operation, "operation").withLabel(labels.shardLabel(), labels.shard());
    }

    /**
     * A started informer that caches only this shard's objects, without periodic resync. It returns at once;
     * {@code hasSynced()} tells when the first list is in (fabric8's own {@code inform} waits for it, and throws
     * when it fails).
     *
     * @param operation e.g. {@code client.configMaps().inAnyNamespace()}
     * @param handler   told of this shard's objects, e.g. a {@link ShardedReconciler}
     */
    public <T extends HasMetadata> SharedIndexInformer<T> inform(FilterWatchListDeletable<T, ?, ?> operation,
                                                                 ResourceEventHandler<? super T> handler) {
        Objects.requireNonNull(handler, "handler");
        SharedIndexInformer<T> informer = runnableInformer(operation);
        informer.addEventHandler(handler);
        informer.start();
        return informer;
    }

    /**
     * An informer that caches only this shard's objects, not started yet (add handlers, e.g. with
     * {@link ShardedReconciler#start()}, then call {@code start()} or {@code run()}), without periodic
     * resync.
     *
     * @param operation e.g. {@code client.configMaps().inAnyNamespace()}
     */
    public <T extends HasMetadata> SharedIndexInformer<T> runnableInformer(FilterWatchListDeletable<T, ?, ?> operation) {
        return runnableInformer(operation, Duration.ZERO);
    }

    /** The same with a periodic resync ({@code Duration.ZERO}: none), e.g. to reconcile every object again now and then. */
    public <T extends HasMetadata> SharedIndexInformer<T> runnableInformer(FilterWatchListDeletable<T, ?, ?> operation,
                                                                           Duration resync) {
        return retrying(filter(operation).runnableInformer(resync.toMillis()), labels.shard());
    }

    /**
     * {@code informer}, retrying a failed list or watch with fabric8's backoff, the first list too, with a WARN per
     * failure naming {@code shard}: for informers of a shard's other resources (its own Secrets, say).
     */
    public static <T extends HasMetadata> SharedIndexInformer<T> retrying(SharedIndexInformer<T> informer, String shard) {
        return informer.exceptionHandler((started, failure) -> {
            LOG.warn("Shard {}: listing or watching {} failed, retrying: {}", shard, informer.getApiTypeClass()
                    .getSimpleName(), failure.toString());
            return true;
        });
    }
}
