package dev.ringmaster.sharder.ring;

import dev.ringmaster.ring.RingSnapshot;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.sharder.membership.ShardInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The current ring snapshot of every ClusterRing, shared by the webhook handler and the sharder
 * controller. A ring's snapshot is rebuilt only when its available shards or its strategy (instance
 * or settings) change — never per request — and listeners learn which rings changed, so exactly
 * those are rebalanced.
 */
public final class RingRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(RingRegistry.class);

    /** A ring's computed state: the snapshot, or none while its strategy is missing or failing. */
    public record RingState(String strategyName, StrategyBinding binding, List<Shard> availableShards,
            RingSnapshot snapshot) {

        /** The strategy's snapshot, empty while the ring's strategy is not deployed. */
        public Optional<RingSnapshot> current() {
            return Optional.ofNullable(snapshot);
        }

        public boolean strategyAvailable() {
            return snapshot != null;
        }
    }

    private record State(RingInputs inputs, Map<String, RingState> rings) {
    }

    private final Consumer<String> ringBuilt;
    private final Object writeLock = new Object();
    private final AtomicReference<State> state = new AtomicReference<>(new State(RingInputs.EMPTY, Map.of()));
    private final List<Consumer<Set<String>>> listeners = new CopyOnWriteArrayList<>();

    /** A registry that tells nobody about ring builds. */
    public RingRegistry() {
        this(ring -> { });
    }

    /** @param ringBuilt told the name of every ring a strategy (re)built, e.g. to count it */
    public RingRegistry(Consumer<String> ringBuilt) {
        this.ringBuilt = ringBuilt;
    }

    /** Called with the names of the rings whose snapshot or availability changed. */
    public void addListener(Consumer<Set<String>> listener) {
        listeners.add(listener);
    }

    public void removeListener(Consumer<Set<String>> listener) {
        listeners.remove(listener);
    }

    /** The ring's state, empty for a ring the registry does not know. */
    public Optional<RingState> ring(String ring) {
        return Optional.ofNullable(state.get().rings.get(ring));
    }

    /** The snapshot the webhook and the sharder use for a ring, empty if it has none now. */
    public Optional<RingSnapshot> snapshot(String ring) {
        return ring(ring).flatMap(RingState::current);
    }

    public RingInputs inputs() {
        return state.get().inputs;
    }

    /**
     * Applies a change of inputs, rebuilding only the rings it affects, and notifies listeners of
     * those rings. Updates are serialized; readers never block.
     */
    public void update(UnaryOperator<RingInputs> change) {
        Set<String> changed;
        synchronized (writeLock) {
            State before = state.get();
            RingInputs inputs = change.apply(before.inputs);
            Map<String, RingState> rings = new HashMap<>();
            changed = new TreeSet<>();
            for (String ring : inputs.strategyOfRing().keySet()) {
                RingState previous = before.rings.get(ring);
                RingState next = compute(ring, inputs, previous);
                if (next != previous && next.snapshot != null) {
                    ringBuilt.accept(ring);
                }
                rings.put(ring, next);
                if (next != previous) {
                    changed.add(ring);
                }
            }
            before.rings.keySet().stream().filter(ring -> !rings.containsKey(ring)).forEach(changed::add);
            state.set(new State(inputs, Map.copyOf(rings)));
        }
        if (!changed.isEmpty()) {
            listeners.forEach(listener -> listener.accept(changed));
        }
    }

    /** The ring's new state, or {@code previous} itself when nothing that shapes it changed. */
    private static RingState compute(String ring, RingInputs inputs, RingState previous) {
        String strategyName = inputs.strategyNameOf(ring);
        StrategyBinding binding = inputs.strategies().get(strategyName);
        List<Shard> available = inputs.membership().availableShards(ring).stream().map(ShardInfo::toShard).toList();
        if (previous != null && previous.strategyName.equals(strategyName) && available.equals(previous.availableShards)
                && (binding == null ? previous.binding == null : binding.sameAs(previous.binding))) {
            return previous;
        }
        if (binding == null) {
            return new RingState(strategyName, null, available, null);
        }
        try {
            RingSnapshot snapshot = new RingSnapshot(ring, strategyName, binding.strategy().build(available));
            return new RingState(strategyName, binding, available, snapshot);
        } catch (RuntimeException e) {
            // a broken strategy plug-in must not take the sharder down: treat it as unavailable,
            // remembering the binding so the same failure is not retried on every update
            LOG.error("strategy {} failed to build ring {}: {}", strategyName, ring, e.toString());
            return new RingState(strategyName, binding, available, null);
        }
    }

    @Override
    public String toString() {
        return "RingRegistry" + Objects.toString(state.get().rings.keySet());
    }
}
