package dev.ringmaster.ring.spi;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import java.util.Collection;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Decides which shard owns which partition key. Registered as a DS service whose {@value #NAME}
 * property is the name rings refer to in {@code spec.strategy}. A strategy's settings are exposed as
 * service properties, so a settings change is a service modification and consumers rebuild their
 * rings.
 */
@ConsumerType
public interface PartitioningStrategy {

    /** Service property carrying the strategy's name, e.g. {@code consistent-hash}. */
    String NAME = "name";

    /**
     * Builds an immutable ring. The result depends only on the set of shards (names and weights),
     * never on their order.
     *
     * @throws IllegalArgumentException if two shards share a name
     */
    ShardRing build(Collection<Shard> shards);
}
