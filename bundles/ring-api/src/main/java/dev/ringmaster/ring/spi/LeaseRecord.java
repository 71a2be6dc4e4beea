package dev.ringmaster.ring.spi;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * A shard Lease as the lease detector sees it. Absent fields are {@code null}.
 *
 * @param name                 Lease name, which is the shard name
 * @param namespace            Lease namespace
 * @param holderIdentity       current holder
 * @param acquireTime          when the holder acquired it
 * @param renewTime            when the holder last renewed it
 * @param leaseDurationSeconds how long a renewal is valid
 * @param labels               Lease labels
 * @param annotations          Lease annotations
 */
public record LeaseRecord(
        String name,
        String namespace,
        String holderIdentity,
        Instant acquireTime,
        Instant renewTime,
        Integer leaseDurationSeconds,
        Map<String, String> labels,
        Map<String, String> annotations) {

    public LeaseRecord {
        Objects.requireNonNull(name, "name");
        namespace = Objects.requireNonNullElse(namespace, "");
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    }
}
