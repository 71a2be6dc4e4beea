package dev.ringmaster.sharder.lease;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.sharder.model.RingKey;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** A ring's shard Leases among cached ones. */
public final class RingLeases {

    private RingLeases() {
    }

    /**
     * The Leases labelled with {@code ring}, by name; of a name in two namespaces, the first namespace's (as the
     * membership counts it).
     */
    public static Map<String, Lease> byName(RingKey ring, Collection<? extends Lease> leases) {
        Map<String, Lease> byName = new TreeMap<>();
        leases.stream()
                .filter(lease -> lease.getMetadata().getLabels() != null
                        && ring.name().equals(lease.getMetadata().getLabels().get(ring.kind().leaseLabel())))
                .sorted(Comparator.comparing((Lease lease) -> lease.getMetadata().getNamespace()))
                .forEach(lease -> byName.putIfAbsent(lease.getMetadata().getName(), lease));
        return byName;
    }

    /** The rings whose shard {@code lease} is: one per kind whose label it carries with a name. */
    public static List<RingKey> rings(Lease lease) {
        Map<String, String> labels = Objects.requireNonNullElse(lease.getMetadata().getLabels(), Map.of());
        return Arrays.stream(RingKind.values())
                .filter(kind -> !labels.getOrDefault(kind.leaseLabel(), "").isEmpty())
                .map(kind -> new RingKey(kind, labels.get(kind.leaseLabel())))
                .toList();
    }
}
