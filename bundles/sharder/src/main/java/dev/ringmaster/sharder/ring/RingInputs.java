package dev.ringmaster.sharder.ring;

import dev.ringmaster.sharder.membership.Membership;
import java.util.Map;
import java.util.Objects;

/**
 * Everything ring snapshots are computed from, as one immutable value.
 *
 * @param strategyOfRing  each known ring's requested strategy name ({@code spec.strategy}), empty for the default
 * @param membership      every ring's shards
 * @param strategies      the strategy services bound now, by name
 * @param defaultStrategy the strategy of rings that name none
 */
public record RingInputs(Map<String, String> strategyOfRing, Membership membership,
        Map<String, StrategyBinding> strategies, String defaultStrategy) {

    public static final RingInputs EMPTY = new RingInputs(Map.of(), Membership.EMPTY, Map.of(), "consistent-hash");

    public RingInputs {
        strategyOfRing = Map.copyOf(strategyOfRing);
        Objects.requireNonNull(membership, "membership");
        strategies = Map.copyOf(strategies);
        Objects.requireNonNull(defaultStrategy, "defaultStrategy");
    }

    /** The strategy name in force for a ring. */
    String strategyNameOf(String ring) {
        String requested = strategyOfRing.getOrDefault(ring, "");
        return requested == null || requested.isEmpty() ? defaultStrategy : requested;
    }

    public RingInputs withRings(Map<String, String> strategyOfRing) {
        return new RingInputs(strategyOfRing, membership, strategies, defaultStrategy);
    }

    public RingInputs withMembership(Membership membership) {
        return new RingInputs(strategyOfRing, membership, strategies, defaultStrategy);
    }

    public RingInputs withStrategies(Map<String, StrategyBinding> strategies) {
        return new RingInputs(strategyOfRing, membership, strategies, defaultStrategy);
    }

    public RingInputs withDefaultStrategy(String defaultStrategy) {
        return new RingInputs(strategyOfRing, membership, strategies, defaultStrategy);
    }
}
