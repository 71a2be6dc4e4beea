package dev.ringmaster.sharder.lease;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;

/**
 * Identifies a shard Lease in the shard lease controller's work queue. Only the key is queued, never
 * the Lease itself: every pass re-reads the current Lease from the cache.
 *
 * @param namespace the Lease's namespace
 * @param name      the Lease's name, which is the shard's name
 */
public record LeaseKey(String namespace, String name) {

    public LeaseKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    public static LeaseKey of(HasMetadata lease) {
        return new LeaseKey(lease.getMetadata().getNamespace(), lease.getMetadata().getName());
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
