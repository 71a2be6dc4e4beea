package dev.ringmaster.sharder.model;

import dev.ringmaster.ring.RingContract;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * {@code sharding.timebertt.dev/v1alpha1 ClusterRing}: a cluster-scoped ring of shards of one
 * controller, with the resources it shards.
 */
@Group(RingContract.API_GROUP)
@Version(RingContract.API_VERSION)
@Kind(RingContract.CLUSTER_RING_KIND)
@Plural("clusterrings")
@Singular("clusterring")
public class ClusterRing extends CustomResource<ClusterRingSpec, ClusterRingStatus> {

    @Override
    protected ClusterRingSpec initSpec() {
        return new ClusterRingSpec();
    }

    @Override
    protected ClusterRingStatus initStatus() {
        return new ClusterRingStatus();
    }
}
