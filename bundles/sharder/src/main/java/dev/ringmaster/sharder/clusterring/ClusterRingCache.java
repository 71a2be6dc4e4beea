package dev.ringmaster.sharder.clusterring;

import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.ring.RingRegistry;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every replica's read-only view of the ClusterRings: the webhook answers from it on each replica,
 * and the leader's controllers subscribe to its changes. Each change also tells the ring registry
 * which strategy each ring asks for, so snapshots exist on every replica.
 */
public final class ClusterRingCache implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterRingCache.class);

    /** Told of each ring that appeared, changed or went; called on the informer's thread, so it must be quick. */
    public interface Listener {
        /** @param specChanged whether the ring's spec (its generation) changed, not just its status */
        void ringChanged(ClusterRing ring, boolean specChanged);
    }

    private final SharedIndexInformer<ClusterRing> informer;
    private final RingRegistry registry;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    public ClusterRingCache(KubernetesClient client, RingRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.informer = client.resources(ClusterRing.class).runnableInformer(0)
                // an API server that is briefly away at start must not leave the replica without rings
                .exceptionHandler((started, failure) -> {
                    LOG.warn("Watching ClusterRings failed, retrying: {}", failure.toString());
                    return true;
                });
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ClusterRing ring) {
                changed(ring, true);
            }

            @Override
            public void onUpdate(ClusterRing before, ClusterRing after) {
                changed(after, !Objects.equals(before.getMetadata().getGeneration(), after.getMetadata().getGeneration()));
            }

            @Override
            public void onDelete(ClusterRing ring, boolean finalStateUnknown) {
                changed(ring, true);
            }
        });
    }

    public void start() {
        informer.start();
    }

    public boolean hasSynced() {
        return informer.hasSynced();
    }

    public Optional<ClusterRing> get(String name) {
        return Optional.ofNullable(informer.getStore().getByKey(name));
    }

    public List<ClusterRing> list() {
        return informer.getStore().list();
    }

    public List<String> names() {
        return informer.getStore().listKeys();
    }

    public void addListener(Listener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    private void changed(ClusterRing ring, boolean specChanged) {
        registry.update(inputs -> inputs.withRings(list().stream().collect(Collectors.toMap(
                candidate -> candidate.getMetadata().getName(),
                candidate -> Objects.requireNonNullElse(candidate.getSpec().getStrategy(), "")))));
        for (Listener listener : listeners) {
            listener.ringChanged(ring, specChanged);
        }
    }

    @Override
    public void close() {
        informer.close();
    }
}
