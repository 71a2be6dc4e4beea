package dev.ringmaster.sharder.kube;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.function.Consumer;

/** Informer event handlers that do one thing with the object of an event, whichever event it is. */
public final class EventHandlers {

    private EventHandlers() {
    }

    /** {@code action} on every add, update (the new state) and delete (the last state seen). */
    public static <T> ResourceEventHandler<T> onEveryEvent(Consumer<? super T> action) {
        return handler(action, true);
    }

    /** {@code action} on every add and update (the new state); deletes are left alone. */
    public static <T> ResourceEventHandler<T> onAddOrUpdate(Consumer<? super T> action) {
        return handler(action, false);
    }

    private static <T> ResourceEventHandler<T> handler(Consumer<? super T> action, boolean deletes) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                action.accept(object);
            }

            @Override
            public void onUpdate(T before, T after) {
                action.accept(after);
            }

            @Override
            public void onDelete(T object, boolean finalStateUnknown) {
                if (deletes) {
                    action.accept(object);
                }
            }
        };
    }
}
