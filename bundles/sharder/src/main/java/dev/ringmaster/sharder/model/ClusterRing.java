package dev.ringmaster.sharder.model;

import dev.ringmaster.ring.RingContract;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * {@code sharding.timebertt.dev/v1alpha1 ClusterRing}: a cluster-scoped ring of shards of one
 * controller, with the resources it shards. Everything but its names is {@link RingObject}'s.
 */
@Group(RingContract.API_GROUP)
@Version(RingContract.API_VERSION)
@Kind(RingContract.CLUSTER_RING_KIND)
@ValidationRule(value = RingObject.NAME_LENGTH_RULE,
        message = "the ClusterRing name must be at most 63 characters long")
public class ClusterRing extends RingObject {
}
