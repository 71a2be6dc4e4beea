package dev.ringmaster.ring;

import java.util.List;
import java.util.Optional;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * An immutable ring built by a partitioning strategy: maps partition keys to shards. Safe for
 * concurrent lookups; a change of membership means building a new ring.
 */
@ConsumerType
public interface ShardRing {

    /** The shards of this ring, sorted by name. */
    List<Shard> shards();

    /**
     * The shard responsible for the key.
     *
     * @return the shard name, or empty if and only if the ring has no shards
     */
    Optional<String> shardFor(String key);
}
