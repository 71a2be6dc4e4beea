package dev.ringmaster.sharder.ring;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.model.ClusterRing;
import java.util.Map;
import java.util.Objects;

/**
 * Everything ring views are compiled from, as one immutable value.
 *
 * @param rings              every ring object by name, as the ClusterRing watch last saw it
 * @param membership         every ring's shards
 * @param strategies         the strategy services bound now, by name
 * @param defaultStrategy    the strategy of rings that name none
 * @param interpreters       the resource interpreter services bound now, by name
 * @param defaultInterpreter the interpreter of ring resources that name none
 */
public record RingInputs(Map<String, ClusterRing> rings, Membership membership,
        Map<String, StrategyBinding> strategies, String defaultStrategy,
        Map<String, ResourceInterpreter> interpreters, String defaultInterpreter) {

    /** The sharder's default resource interpreter, for ring resources that name none. */
    public static final String DEFAULT_INTERPRETER = DefaultResourceInterpreter.NAME;

    public static final RingInputs EMPTY = new RingInputs(Map.of(), Membership.EMPTY, Map.of(), RingContract.DEFAULT_STRATEGY,
            Map.of(), DEFAULT_INTERPRETER);

    public RingInputs {
        rings = Map.copyOf(rings);
        Objects.requireNonNull(membership, "membership");
        strategies = Map.copyOf(strategies);
        Objects.requireNonNull(defaultStrategy, "defaultStrategy");
        interpreters = Map.copyOf(interpreters);
        Objects.requireNonNull(defaultInterpreter, "defaultInterpreter");
    }

    public RingInputs withRings(Map<String, ClusterRing> rings) {
        return new RingInputs(rings, membership, strategies, defaultStrategy, interpreters, defaultInterpreter);
    }

    public RingInputs withMembership(Membership membership) {
        return new RingInputs(rings, membership, strategies, defaultStrategy, interpreters, defaultInterpreter);
    }

    public RingInputs withStrategies(Map<String, StrategyBinding> strategies) {
        return new RingInputs(rings, membership, strategies, defaultStrategy, interpreters, defaultInterpreter);
    }

    public RingInputs withDefaultStrategy(String defaultStrategy) {
        return new RingInputs(rings, membership, strategies, defaultStrategy, interpreters, defaultInterpreter);
    }

    public RingInputs withInterpreters(Map<String, ResourceInterpreter> interpreters) {
        return new RingInputs(rings, membership, strategies, defaultStrategy, interpreters, defaultInterpreter);
    }

    public RingInputs withDefaultInterpreter(String defaultInterpreter) {
        return new RingInputs(rings, membership, strategies, defaultStrategy, interpreters, defaultInterpreter);
    }
}
