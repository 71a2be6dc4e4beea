package dev.ringmaster.sharder.ring;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.spi.PlacementPolicy;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingObject;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Everything ring views are compiled from, as one immutable value.
 *
 * @param rings              every ring object of both kinds, as the ring watches last saw them
 * @param membership         every ring's shards
 * @param strategies         the strategy services bound now, by name
 * @param defaultStrategy    the strategy of rings that name none
 * @param interpreters       the resource interpreter services bound now, by name
 * @param defaultInterpreter the interpreter of ring resources that name none
 * @param policies           the placement policy services bound now, by name
 */
public record RingInputs(Map<RingKey, RingObject> rings, Membership membership,
        Map<String, StrategyBinding> strategies, String defaultStrategy,
        Map<String, ResourceInterpreter> interpreters, String defaultInterpreter,
        Map<String, PlacementPolicy> policies) {

    /** The sharder's default resource interpreter, for ring resources that name none. */
    public static final String DEFAULT_INTERPRETER = DefaultResourceInterpreter.NAME;

    public static final RingInputs EMPTY = new RingInputs(Map.of(), Membership.EMPTY, Map.of(), RingContract.DEFAULT_STRATEGY,
            Map.of(), DEFAULT_INTERPRETER, Map.of());

    public RingInputs {
        rings = Map.copyOf(rings);
        Objects.requireNonNull(membership, "membership");
        strategies = Map.copyOf(strategies);
        Objects.requireNonNull(defaultStrategy, "defaultStrategy");
        interpreters = Map.copyOf(interpreters);
        Objects.requireNonNull(defaultInterpreter, "defaultInterpreter");
        policies = Map.copyOf(policies);
    }

    /** These inputs with {@code rings} as every ring of their kind, and the rings of the other kind as they are. */
    public RingInputs withRings(RingKind kind, Collection<? extends RingObject> rings) {
        Map<RingKey, RingObject> next = new HashMap<>(this.rings);
        next.keySet().removeIf(key -> key.kind() == kind);
        rings.forEach(ring -> next.put(ring.key(), ring));
        return new RingInputs(next, membership, strategies, defaultStrategy, interpreters, defaultInterpreter, policies);
    }

    public RingInputs withMembership(Membership membership) {
        return new RingInputs(rings, membership, strategies, defaultStrategy, interpreters, defaultInterpreter, policies);
    }

    public RingInputs withStrategies(Map<String, StrategyBinding> strategies) {
        return new RingInputs(rings, membership, strategies, defaultStrategy, interpreters, defaultInterpreter, policies);
    }

    public RingInputs withDefaultStrategy(String defaultStrategy) {
        return new RingInputs(rings, membership, strategies, defaultStrategy, interpreters, defaultInterpreter, policies);
    }

    public RingInputs withInterpreters(Map<String, ResourceInterpreter> interpreters) {
        return new RingInputs(rings, membership, strategies, defaultStrategy, interpreters, defaultInterpreter, policies);
    }

    public RingInputs withDefaultInterpreter(String defaultInterpreter) {
        return new RingInputs(rings, membership, strategies, defaultStrategy, interpreters, defaultInterpreter, policies);
    }

    public RingInputs withPolicies(Map<String, PlacementPolicy> policies) {
        return new RingInputs(rings, membership, strategies, defaultStrategy, interpreters, defaultInterpreter, policies);
    }
}
