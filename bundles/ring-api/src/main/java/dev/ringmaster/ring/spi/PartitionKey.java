package dev.ringmaster.ring.spi;

import java.util.Objects;

/** What a resource interpreter makes of an object. */
public sealed interface PartitionKey {

    /** The object is assigned by hashing this key. */
    record Key(String value) implements PartitionKey {
        public Key {
            Objects.requireNonNull(value, "value");
        }
    }

    /** The object is deliberately left unassigned, e.g. a controlled object without controller. */
    record NotAssigned(String reason) implements PartitionKey {
        public NotAssigned {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** The object cannot be keyed and should be rejected, e.g. generateName without name. */
    record Invalid(String message) implements PartitionKey {
        public Invalid {
            Objects.requireNonNull(message, "message");
        }
    }

    static PartitionKey key(String value) {
        return new Key(value);
    }

    static PartitionKey notAssigned(String reason) {
        return new NotAssigned(reason);
    }

    static PartitionKey invalid(String message) {
        return new Invalid(message);
    }
}
