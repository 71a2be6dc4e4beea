package dev.ringmaster.sharder.app;

import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.PlacementPolicy;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.ring.StrategyBinding;
import java.util.HashMap;
import java.util.Map;

/**
 * The plug-in services bound now, by their {@code name} service property: one immutable value,
 * replaced on every bind and unbind. The component keeps it across sharder replicas it replaces;
 * a replica publishes it to its ring registry and lease controller.
 */
public record PlugIns(Map<String, StrategyBinding> strategies, Map<String, LeaseDetector> detectors,
        Map<String, ResourceInterpreter> interpreters, Map<String, PlacementPolicy> policies) {

    public static final PlugIns NONE = new PlugIns(Map.of(), Map.of(), Map.of(), Map.of());

    public PlugIns {
        strategies = Map.copyOf(strategies);
        detectors = Map.copyOf(detectors);
        interpreters = Map.copyOf(interpreters);
        policies = Map.copyOf(policies);
    }

    public PlugIns withStrategy(String name, StrategyBinding binding) {
        return new PlugIns(with(strategies, name, binding), detectors, interpreters, policies);
    }

    /** Without the strategy of this name if it is still this instance (a replacement may have come first). */
    public PlugIns withoutStrategy(String name, Object instance) {
        StrategyBinding bound = strategies.get(name);
        return bound == null || bound.strategy() != instance ? this
                : new PlugIns(without(strategies, name), detectors, interpreters, policies);
    }

    public PlugIns withDetector(String name, LeaseDetector detector) {
        return new PlugIns(strategies, with(detectors, name, detector), interpreters, policies);
    }

    public PlugIns withoutDetector(String name, Object instance) {
        return detectors.get(name) != instance ? this : new PlugIns(strategies, without(detectors, name), interpreters, policies);
    }

    public PlugIns withInterpreter(String name, ResourceInterpreter interpreter) {
        return new PlugIns(strategies, detectors, with(interpreters, name, interpreter), policies);
    }

    public PlugIns withoutInterpreter(String name, Object instance) {
        return interpreters.get(name) != instance ? this
                : new PlugIns(strategies, detectors, without(interpreters, name), policies);
    }

    public PlugIns withPolicy(String name, PlacementPolicy policy) {
        return new PlugIns(strategies, detectors, interpreters, with(policies, name, policy));
    }

    public PlugIns withoutPolicy(String name, Object instance) {
        return policies.get(name) != instance ? this
                : new PlugIns(strategies, detectors, interpreters, without(policies, name));
    }

    private static <T> Map<String, T> with(Map<String, T> services, String name, T service) {
        Map<String, T> copy = new HashMap<>(services);
        copy.put(name, service);
        return copy;
    }

    private static <T> Map<String, T> without(Map<String, T> services, String name) {
        Map<String, T> copy = new HashMap<>(services);
        copy.remove(name);
        return copy;
    }
}
