package dev.ringmaster.kubernetes.client;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.function.Consumer;

/** Informer event handlers that treat an added object as an updated one. */
public final class EventHandlers {

    private EventHandlers() {
    }

    /** {@code action} on every add, update (the new state) and delete (the last state seen). */
    public static <T> ResourceEventHandler<T> onEveryEvent(Consumer<? super T> action) {
        return handler(action, action);
    }

    /** {@code action} on every add and update (the new state); deletes are left alone. */
    public static <T> ResourceEventHandler<T> onAddOrUpdate(Consumer<? super T> action) {
        return handler(action, deleted -> { });
    }

    /** Passes each object added or updated (its new state) to {@code changed}, each deleted one (its last state seen) to {@code deleted}. */
    public static <T> ResourceEventHandler<T> handler(Consumer<? super T> changed, Consumer<? super T> deleted) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                changed.accept(object);
            }

            @Override
            public void onUpdate(T before, T after) {
                changed.accept(after);
            }

            @Override
            public void onDelete(T object, boolean finalStateUnknown) {
                deleted.accept(object);
            }
        };
    }
}
