package dev.ringmaster.sharder.unassigned;

import dev.ringmaster.kubernetes.client.EventHandlers;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.runtime.Controller;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One informer per ring resource with the selector {@code !<shard label>}, so only unassigned
 * objects are cached; every object it sees is queued for the {@link UnassignedAssigner}. An object
 * that gets its label leaves the selector and the cache.
 */
public final class UnassignedWatches implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(UnassignedWatches.class);

    private final KubernetesClient client;
    private final ResourceCatalog catalog;
    private final Controller<UnassignedObject> assigner;
    private final Map<WatchedResource, SharedIndexInformer<GenericKubernetesResource>> informers = new HashMap<>();

    public UnassignedWatches(KubernetesClient client, ResourceCatalog catalog, Controller<UnassignedObject> assigner) {
        this.client = client;
        this.catalog = catalog;
        this.assigner = assigner;
    }

    /**
     * Watches exactly the resources of these rings: starts informers for new ones and stops those of
     * removed rings or resources. Resources the server does not serve yet are tried at the next sync.
     */
    public synchronized void sync(Collection<RingView> rings) {
        Set<WatchedResource> wanted = new LinkedHashSet<>();
        for (RingView ring : rings) {
            ring.resources().values().forEach(resource -> resolve(ring.key(), resource).ifPresent(wanted::add));
        }
        WatchedResource.sync(informers, wanted, this::start, SharedIndexInformer::close);
    }

    /** The cached unassigned object, if it is still unassigned. */
    public synchronized Optional<HasMetadata> get(UnassignedObject key) {
        SharedIndexInformer<GenericKubernetesResource> informer = informers.get(key.watched());
        if (informer == null) {
            return Optional.empty();
        }
        String cacheKey = key.namespace().isEmpty() ? key.name() : key.namespace() + "/" + key.name();
        return Optional.ofNullable(informer.getIndexer().getByKey(cacheKey));
    }

    /** Queues every cached object of a ring again, e.g. when its strategy or shards came back. */
    public synchronized void requeue(RingKey ring) {
        informers.forEach((watched, informer) -> {
            if (watched.ring().equals(ring)) {
                informer.getStore().list().forEach(object -> enqueue(watched, object));
            }
        });
    }

    private Optional<WatchedResource> resolve(RingKey ring, RingResource resource) {
        Optional<WatchedResource> watched = catalog.resolve(resource.group(), resource.resource())
                .map(resolved -> new WatchedResource(ring, resolved, resource.role()));
        if (watched.isEmpty()) {
            LOG.warn("{}: resource {} is not served by the API server; not watching it yet", ring,
                    resource.group().isEmpty() ? resource.resource() : resource.resource() + "." + resource.group());
        }
        return watched;
    }

    private SharedIndexInformer<GenericKubernetesResource> start(WatchedResource watched) {
        SharedIndexInformer<GenericKubernetesResource> informer = watched.informer(client, "!" + watched.ring().shardLabel());
        // a delete is an object labelled or deleted: nothing to assign
        informer.addEventHandler(EventHandlers.onAddOrUpdate(object -> enqueue(watched, object)));
        informer.start();
        return informer;
    }

    private void enqueue(WatchedResource watched, HasMetadata object) {
        String namespace = object.getMetadata().getNamespace();
        assigner.enqueue(new UnassignedObject(watched, namespace == null ? "" : namespace, object.getMetadata().getName()));
    }

    /** The ring's cached (unassigned) objects that {@code counted} accepts, given the resource each was watched as. */
    public synchronized long count(RingKey ring, BiPredicate<WatchedResource, HasMetadata> counted) {
        return informers.entrySet().stream().filter(entry -> entry.getKey().ring().equals(ring))
                .mapToLong(entry -> entry.getValue().getStore().list().stream()
                        .filter(object -> counted.test(entry.getKey(), object)).count())
                .sum();
    }

    /** Objects cached across all watches: unassigned objects only, so this stays small. */
    public synchronized int cachedObjects() {
        return informers.values().stream().mapToInt(informer -> informer.getStore().list().size()).sum();
    }

    @Override
    public synchronized void close() {
        informers.values().forEach(SharedIndexInformer::close);
        informers.clear();
    }
}
