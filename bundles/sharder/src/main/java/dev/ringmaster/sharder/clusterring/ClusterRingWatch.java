package dev.ringmaster.sharder.clusterring;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.sharder.model.RingObject;
import dev.ringmaster.sharder.ring.RingRegistry;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every replica's watch of the ring objects of one kind: each change puts the rings of that kind, as
 * now cached, into the ring registry, which compiles their views. The webhook answers from those
 * views on each replica, and the leader's controllers follow the registry's changes. The sharder runs
 * one watch per kind ({@link #ofEveryKind}).
 */
public final class ClusterRingWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterRingWatch.class);

    private final RingKind kind;
    private final SharedIndexInformer<? extends RingObject> informer;
    private final RingRegistry registry;

    public <T extends RingObject> ClusterRingWatch(KubernetesClient client, RingRegistry registry, Class<T> type) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.kind = RingKind.ofKind(HasMetadata.getKind(type));
        SharedIndexInformer<T> typed = client.resources(type).runnableInformer(0)
                // an API server that is briefly away at start must not leave the replica without rings
                .exceptionHandler((started, failure) -> {
                    LOG.warn("Watching {}s failed, retrying: {}", kind.kind(), failure.toString());
                    return true;
                });
        typed.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(T ring) {
                publish();
            }

            @Override
            public void onUpdate(T before, T after) {
                publish();
            }

            @Override
            public void onDelete(T ring, boolean finalStateUnknown) {
                publish();
            }
        });
        this.informer = typed;
    }

    /** A watch of each ring kind. */
    public static List<ClusterRingWatch> ofEveryKind(KubernetesClient client, RingRegistry registry) {
        return Arrays.stream(RingKind.values())
                .map(kind -> new ClusterRingWatch(client, registry, RingObject.typeOf(kind))).toList();
    }

    public void start() {
        informer.start();
    }

    private void publish() {
        registry.update(inputs -> inputs.withRings(kind, informer.getStore().list()));
    }

    @Override
    public void close() {
        informer.close();
    }
}
