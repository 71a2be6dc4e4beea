package dev.ringmaster.sharder.clusterring;

import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.ring.RingRegistry;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every replica's watch of the ClusterRings: each change puts the rings, as now cached, into the
 * ring registry, which compiles their views. The webhook answers from those views on each replica,
 * and the leader's controllers follow the registry's changes.
 */
public final class ClusterRingWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterRingWatch.class);

    private final SharedIndexInformer<ClusterRing> informer;
    private final RingRegistry registry;

    public ClusterRingWatch(KubernetesClient client, RingRegistry registry) {
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
                publish();
            }

            @Override
            public void onUpdate(ClusterRing before, ClusterRing after) {
                publish();
            }

            @Override
            public void onDelete(ClusterRing ring, boolean finalStateUnknown) {
                publish();
            }
        });
    }

    public void start() {
        informer.start();
    }

    private void publish() {
        registry.update(inputs -> inputs.withRings(informer.getStore().list().stream()
                .collect(Collectors.toMap(ring -> ring.getMetadata().getName(), Function.identity()))));
    }

    @Override
    public void close() {
        informer.close();
    }
}
