package dev.ringmaster.sharder.survey;

import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.spi.PartitionKey;
import java.util.Objects;

/**
 * An object of one of the ring's resources, in a namespace the ring selects.
 *
 * @param role     main object, or controlled (keyed by its controlling owner, so it follows the owner)
 * @param key      its partition key by the ring's interpreter for its resource
 * @param shard    the value of the ring's shard label, empty when it has none (unassigned)
 * @param draining whether it carries the ring's drain label
 */
public record SurveyedObject(Role role, PartitionKey key, String shard, boolean draining) {

    public SurveyedObject {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(key, "key");
        shard = Objects.requireNonNullElse(shard, "");
    }

    public boolean isAssigned() {
        return !shard.isEmpty();
    }
}
