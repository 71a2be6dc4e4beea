package dev.ringmaster.shard.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Objects;

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
 * hands it back. Thread-safe.
 */
public final class ShardInformers {

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
     * A started informer that caches only this shard's objects, without periodic resync.
     *
     * @param operation e.g. {@code client.configMaps().inAnyNamespace()}
     * @param handler   told of this shard's objects, e.g. a {@link ShardedReconciler}
     */
    public <T extends HasMetadata> SharedIndexInformer<T> inform(FilterWatchListDeletable<T, ?, ?> operation,
                                                                 ResourceEventHandler<? super T> handler) {
        Objects.requireNonNull(handler, "handler");
        return filter(operation).inform(handler, 0);
    }

    /**
     * An informer that caches only this shard's objects, not started yet (add handlers, e.g. with
     * {@link ShardedReconciler#start()}, then call {@code start()} or {@code run()}), without periodic
     * resync.
     *
     * @param operation e.g. {@code client.configMaps().inAnyNamespace()}
     */
    public <T extends HasMetadata> SharedIndexInformer<T> runnableInformer(FilterWatchListDeletable<T, ?, ?> operation) {
        return filter(operation).runnableInformer(0);
    }
}
