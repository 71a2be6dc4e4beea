package dev.ringmaster.testing.rings;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.function.Consumer;

/** Informer handlers of tests and benchmarks, which treat an added object as an updated one. */
public final class InformerHandlers {

    private InformerHandlers() {
    }

    /** Passes each object added or updated to {@code changed}, each deleted one to {@code deleted}. */
    public static <T> ResourceEventHandler<T> handler(Consumer<T> changed, Consumer<T> deleted) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                changed.accept(object);
            }

            @Override
            public void onUpdate(T before, T object) {
                changed.accept(object);
            }

            @Override
            public void onDelete(T object, boolean finalStateUnknown) {
                deleted.accept(object);
            }
        };
    }
}
