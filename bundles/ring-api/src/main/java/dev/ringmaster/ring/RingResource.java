package dev.ringmaster.ring;

import java.util.Objects;

/**
 * A resource listed in a ClusterRing, and its role there.
 *
 * @param group    API group, empty for the core group
 * @param resource plural resource name, e.g. {@code configmaps}
 * @param role     main resource or controlled by one
 */
public record RingResource(String group, String resource, Role role) {

    /** How objects of a ring resource get their partition key. */
    public enum Role {
        /** Keyed by the object itself. */
        MAIN,
        /** Keyed by its controlling owner, so it lands on the owner's shard. */
        CONTROLLED
    }

    public RingResource {
        group = Objects.requireNonNullElse(group, "");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(role, "role");
    }
}
