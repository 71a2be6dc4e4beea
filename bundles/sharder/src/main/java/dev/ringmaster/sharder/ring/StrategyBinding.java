package dev.ringmaster.sharder.ring;

import dev.ringmaster.ring.spi.PartitioningStrategy;
import java.util.Map;
import java.util.Objects;

/**
 * A strategy service as bound: the instance and its service properties. A ring is rebuilt when
 * either differs, so a settings change (published as properties) takes effect.
 */
public record StrategyBinding(PartitioningStrategy strategy, Map<String, Object> properties) {

    public StrategyBinding {
        Objects.requireNonNull(strategy, "strategy");
        properties = Map.copyOf(properties);
    }

    /** Same instance with the same settings. */
    boolean sameAs(StrategyBinding other) {
        return other != null && strategy == other.strategy && properties.equals(other.properties);
    }
}
