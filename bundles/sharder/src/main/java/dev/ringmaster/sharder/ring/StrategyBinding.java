package dev.ringmaster.sharder.ring;

import dev.ringmaster.ring.spi.PartitioningStrategy;
import java.util.Map;
import java.util.Objects;

/**
 * A strategy service as bound: the instance, its service properties and the bundle that provides it
 * ({@code symbolic-name version}, for the ring's status; empty when not known). A ring is rebuilt when
 * the instance or its properties differ, so a settings change (published as properties) takes effect.
 */
public record StrategyBinding(PartitioningStrategy strategy, Map<String, Object> properties, String provider) {

    public StrategyBinding {
        Objects.requireNonNull(strategy, "strategy");
        properties = Map.copyOf(properties);
        Objects.requireNonNull(provider, "provider");
    }

    /** A binding whose provider is not known (outside a framework). */
    public StrategyBinding(PartitioningStrategy strategy, Map<String, Object> properties) {
        this(strategy, properties, "");
    }

    /** Same instance with the same settings. */
    boolean sameAs(StrategyBinding other) {
        return other != null && strategy == other.strategy && properties.equals(other.properties);
    }
}
