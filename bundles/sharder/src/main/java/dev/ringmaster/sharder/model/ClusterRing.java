package dev.ringmaster.sharder.model;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * {@code sharding.timebertt.dev/v1alpha1 ClusterRing}: a cluster-scoped ring of shards of one
 * controller, with the resources it shards.
 *
 * <p>The CRD is generated from this class at build time (fabric8 crd-generator-maven-plugin); the
 * generator annotations are only read then, so the bundle imports their packages optionally.
 * Cluster scope follows from not implementing {@code Namespaced}; the status subresource from the
 * status type.
 */
@Group(RingContract.API_GROUP)
@Version(RingContract.API_VERSION)
@Kind(RingContract.CLUSTER_RING_KIND)
@Plural("clusterrings")
@Singular("clusterring")
// The ring name becomes a label value on shard Leases (and part of label keys), so it must fit 63 characters.
@ValidationRule(value = "self.metadata.name.size() <= " + RingObject.MAX_NAME_LENGTH,
        message = "the ClusterRing name must be at most 63 characters long")
@AdditionalPrinterColumn(name = "Ready", type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.conditions[?(@.type == \"Ready\")].status")
@AdditionalPrinterColumn(name = "Available", type = AdditionalPrinterColumn.Type.INTEGER,
        jsonPath = ".status.availableShards")
@AdditionalPrinterColumn(name = "Shards", type = AdditionalPrinterColumn.Type.INTEGER, jsonPath = ".status.shards")
// Custom printer columns replace kubectl's default ones, so Age must be listed again.
@AdditionalPrinterColumn(name = "Age", type = AdditionalPrinterColumn.Type.DATE,
        jsonPath = ".metadata.creationTimestamp")
public class ClusterRing extends RingObject {

    @Override
    public RingKind ringKind() {
        return RingKind.CLUSTER_RING;
    }
}
