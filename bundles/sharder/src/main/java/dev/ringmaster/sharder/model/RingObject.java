package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.ringmaster.ring.RingKind;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;

/**
 * A ring object of either kind ({@link ClusterRing}, {@link ControllerRing}): both kinds share
 * their spec, status and printer columns, and differ only in their names and the wire contract their
 * {@link #ringKind()} names. Everything that reads a ring works on this type; only the API calls
 * need the concrete class.
 *
 * <p>Both CRDs are generated from the concrete classes at build time (fabric8
 * crd-generator-maven-plugin), which reads the printer columns and validation rules of this class
 * too. The generator annotations are only read then, so the bundle imports their packages optionally.
 * Cluster scope follows from not implementing {@code Namespaced}; the status subresource from the
 * status type.
 */
@AdditionalPrinterColumn(name = "Ready", type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.conditions[?(@.type == \"Ready\")].status")
@AdditionalPrinterColumn(name = "Available", type = AdditionalPrinterColumn.Type.INTEGER,
        jsonPath = ".status.availableShards")
@AdditionalPrinterColumn(name = "Shards", type = AdditionalPrinterColumn.Type.INTEGER, jsonPath = ".status.shards")
// Custom printer columns replace kubectl's default ones, so Age must be listed again.
@AdditionalPrinterColumn(name = "Age", type = AdditionalPrinterColumn.Type.DATE,
        jsonPath = ".metadata.creationTimestamp")
public abstract class RingObject extends CustomResource<RingSpec, RingStatus> {

    /** Longest valid ring name: it is used as a label value on shard Leases and in the ring's label keys. */
    public static final int MAX_NAME_LENGTH = 63;
    /** The CEL rule of each kind's CRD that holds the name to {@link #MAX_NAME_LENGTH}. */
    static final String NAME_LENGTH_RULE = "self.metadata.name.size() <= " + MAX_NAME_LENGTH;

    /** The Java type of ring objects of a kind, for API calls. */
    public static Class<? extends RingObject> typeOf(RingKind kind) {
        return switch (kind) {
            case CLUSTER_RING -> ClusterRing.class;
            case CONTROLLER_RING -> ControllerRing.class;
        };
    }

    /** The kind of ring this object is, with its labels, paths and names: the one its class's {@code @Kind} names. */
    public RingKind ringKind() {
        return RingKind.ofKind(HasMetadata.getKind(getClass()));
    }

    /** The ring's kind and name, which identify it among the rings of both kinds. */
    public RingKey key() {
        return new RingKey(ringKind(), getMetadata().getName());
    }

    @Override
    protected RingSpec initSpec() {
        return new RingSpec();
    }

    @Override
    protected RingStatus initStatus() {
        return new RingStatus();
    }

    // Overridden only to make spec required in the generated schema: a ring without resources is meaningless.
    @Override
    @Required
    @JsonPropertyDescription("What the ring shards and how.")
    public RingSpec getSpec() {
        return super.getSpec();
    }
}
