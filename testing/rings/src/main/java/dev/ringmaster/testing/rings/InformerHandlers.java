package dev.ringmaster.testing.rings;

import dev.ringmaster.kubernetes.client.EventHandlers;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.function.Consumer;

/** Informer handlers of tests and benchmarks, which treat an added object as an updated one. */
public final class InformerHandlers {

    private InformerHandlers() {
    }

    /** Passes each object added or updated to {@code changed}, each deleted one to {@code deleted}: {@link EventHandlers#handler}. */
    public static <T> ResourceEventHandler<T> handler(Consumer<T> changed, Consumer<T> deleted) {
        return EventHandlers.handler(changed, deleted);
    }
}
