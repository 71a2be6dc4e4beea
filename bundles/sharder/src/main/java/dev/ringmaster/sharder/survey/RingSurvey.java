package dev.ringmaster.sharder.survey;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.Shard;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One ring as read from the cluster.
 *
 * @param kind              the ring's kind
 * @param name              the ring's name
 * @param specStrategy      the ring's {@code spec.strategy}; empty when it names none (the sharder's default applies)
 * @param reportedStrategy  the strategy the sharder reports in force in the ring's Ready condition for the
 *                          ring's current generation (also while it goes on with an earlier strategy because
 *                          the one asked for is missing); empty when the condition names none
 * @param shards            every Lease of the ring, judged, sorted by name
 * @param objects           the objects of the ring's resources in the namespaces it selects
 * @param unservedResources the ring's resources the API server does not serve ({@code group/resource}), not surveyed
 */
public record RingSurvey(RingKind kind, String name, Optional<String> specStrategy, Optional<String> reportedStrategy,
        List<SurveyedShard> shards, List<SurveyedObject> objects, List<String> unservedResources) {

    public RingSurvey {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(specStrategy, "specStrategy");
        Objects.requireNonNull(reportedStrategy, "reportedStrategy");
        shards = List.copyOf(shards);
        objects = List.copyOf(objects);
        unservedResources = List.copyOf(unservedResources);
    }

    /** The shards objects may be assigned to, as a strategy builds its ring from them. */
    public List<Shard> availableShards() {
        return shards.stream().filter(SurveyedShard::isAvailable).map(SurveyedShard::toShard).toList();
    }

    /** {@code ClusterRing/name}, as the sharder names a ring. */
    public String ring() {
        return kind.kind() + "/" + name;
    }
}
