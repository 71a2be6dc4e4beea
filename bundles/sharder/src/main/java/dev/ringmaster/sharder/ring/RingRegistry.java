package dev.ringmaster.sharder.ring;

import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The current {@link RingView} of every ring, shared by the webhook handler and the leader's
 * controllers. A ring's view is compiled when its ring object, its shards or the plug-ins change,
 * never per request; its strategy ring is rebuilt only when its available shards or its strategy
 * (instance or settings) change. Listeners learn which views changed and how.
 */
public final class RingRegistry {

    private record State(RingInputs inputs, Map<RingKey, RingView> views) {
    }

    private final Consumer<RingKey> ringBuilt;
    private final Object writeLock = new Object();
    private final AtomicReference<State> state = new AtomicReference<>(new State(RingInputs.EMPTY, Map.of()));
    private final List<Consumer<List<RingChange>>> listeners = new CopyOnWriteArrayList<>();

    /** A registry that tells nobody about ring builds. */
    public RingRegistry() {
        this(ring -> { });
    }

    /** @param ringBuilt told of every ring a strategy (re)built, e.g. to count it */
    public RingRegistry(Consumer<RingKey> ringBuilt) {
        this.ringBuilt = ringBuilt;
    }

    /** Called after each update with the views that changed, sorted by kind and name. */
    public void addListener(Consumer<List<RingChange>> listener) {
        listeners.add(listener);
    }

    public void removeListener(Consumer<List<RingChange>> listener) {
        listeners.remove(listener);
    }

    /** The ring's current view, empty for a ring the registry does not know. */
    public Optional<RingView> view(RingKey ring) {
        return Optional.ofNullable(state.get().views.get(ring));
    }

    /** Every ring's current view, sorted by kind and name. */
    public Collection<RingView> views() {
        return state.get().views.values();
    }

    public RingInputs inputs() {
        return state.get().inputs;
    }

    /**
     * The view of a ring object read elsewhere (e.g. fresh from the API server) against the current
     * inputs, sharing the registry's strategy ring when that is the same.
     */
    public RingView compile(RingObject ring) {
        State current = state.get();
        return RingView.compile(ring, current.inputs, current.views.get(ring.key()));
    }

    /**
     * Applies a change of inputs, compiling every ring's view again and keeping those that say the
     * same, and notifies listeners of the others. Updates are serialized; readers never block.
     */
    public void update(UnaryOperator<RingInputs> change) {
        List<RingChange> changes = new ArrayList<>();
        synchronized (writeLock) {
            State before = state.get();
            RingInputs inputs = change.apply(before.inputs);
            Map<RingKey, RingView> views = new TreeMap<>();
            inputs.rings().forEach((name, ring) -> {
                RingView previous = before.views.get(name);
                RingView next = RingView.compile(ring, inputs, previous);
                if (next.sameAs(previous)) {
                    next = previous;
                } else {
                    changes.add(new RingChange(name, Optional.ofNullable(previous), Optional.of(next)));
                }
                if (next.shardRing().isPresent()
                        && (previous == null || next.shardRing().get() != previous.shardRing().orElse(null))) {
                    ringBuilt.accept(name);
                }
                views.put(name, next);
            });
            before.views.forEach((name, gone) -> {
                if (!views.containsKey(name)) {
                    changes.add(new RingChange(name, Optional.of(gone), Optional.empty()));
                }
            });
            changes.sort(Comparator.comparing(RingChange::ring));
            state.set(new State(inputs, Collections.unmodifiableMap(views)));
        }
        if (!changes.isEmpty()) {
            List<RingChange> changed = List.copyOf(changes);
            listeners.forEach(listener -> listener.accept(changed));
        }
    }

    @Override
    public String toString() {
        return "RingRegistry" + state.get().views.keySet();
    }
}
