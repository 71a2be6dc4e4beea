package dev.ringmaster.sharder.unassigned;

import dev.ringmaster.kubernetes.client.EventHandlers;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ring.RingView;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The objects each ring has in drain, for the leader's metrics: one informer per main resource of
 * each ring with the selector {@code <drain label>} (only main objects are drained), so only objects
 * waiting for their shard to hand them back are cached, at most the move budget per ring. Each is
 * timed from the moment this watch first saw it; a drain older than the watch (one a former leader
 * wrote) counts from the watch's start, so an age is a lower bound.
 */
public final class DrainWatches implements AutoCloseable {

    /** One resource's watch and when it first saw each object in drain, by uid. */
    private record Watch(SharedIndexInformer<GenericKubernetesResource> informer, Map<String, Instant> since) {
    }

    private final KubernetesClient client;
    private final ResourceCatalog catalog;
    private final Clock clock;
    private final Map<WatchedResource, Watch> watches = new HashMap<>();

    public DrainWatches(KubernetesClient client, ResourceCatalog catalog, Clock clock) {
        this.client = client;
        this.catalog = catalog;
        this.clock = clock;
    }

    /** Watches exactly the main resources of these rings (resources the server does not serve yet: at the next sync). */
    public synchronized void sync(Collection<RingView> rings) {
        Set<WatchedResource> wanted = new LinkedHashSet<>();
        for (RingView ring : rings) {
            ring.resources().values().stream().filter(resource -> resource.role() == Role.MAIN)
                    .forEach(resource -> catalog.resolve(resource.group(), resource.resource())
                            .ifPresent(resolved -> wanted.add(new WatchedResource(ring.key(), resolved, Role.MAIN))));
        }
        WatchedResource.sync(watches, wanted, this::start, watch -> watch.informer().close());
    }

    /** The ring's objects in drain now. */
    public synchronized long inDrain(RingKey ring) {
        return watches.entrySet().stream().filter(entry -> entry.getKey().ring().equals(ring))
                .mapToLong(entry -> entry.getValue().since().size()).sum();
    }

    /** How long the ring's oldest drain has been waiting; empty when none is. */
    public synchronized Optional<Duration> oldest(RingKey ring) {
        return watches.entrySet().stream().filter(entry -> entry.getKey().ring().equals(ring))
                .flatMap(entry -> entry.getValue().since().values().stream()).min(Instant::compareTo)
                .map(since -> Duration.between(since, clock.instant()));
    }

    private Watch start(WatchedResource watched) {
        Map<String, Instant> since = new ConcurrentHashMap<>();
        SharedIndexInformer<GenericKubernetesResource> informer = watched.informer(client, watched.ring().drainLabel());
        // a delete: handed back (the drain label removed), reassigned or deleted
        informer.addEventHandler(EventHandlers.<GenericKubernetesResource>handler(
                object -> since.putIfAbsent(object.getMetadata().getUid(), clock.instant()),
                object -> since.remove(object.getMetadata().getUid())));
        informer.start();
        return new Watch(informer, since);
    }

    @Override
    public synchronized void close() {
        watches.values().forEach(watch -> watch.informer().close());
        watches.clear();
    }
}
