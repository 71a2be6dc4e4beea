package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.ringmaster.ring.RingKind;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.client.CustomResource;

/**
 * A ring object of either kind ({@link ClusterRing}, {@link ControllerRing}): both kinds share
 * their spec and status, and differ only in the wire contract their {@link #ringKind()} names.
 * Everything that reads a ring works on this type; only the API calls need the concrete class.
 */
public abstract class RingObject extends CustomResource<RingSpec, RingStatus> {

    /** Longest valid ring name: it is used as a label value. */
    public static final int MAX_NAME_LENGTH = 63;

    /** The Java type of ring objects of a kind, for API calls. */
    public static Class<? extends RingObject> typeOf(RingKind kind) {
        return switch (kind) {
            case CLUSTER_RING -> ClusterRing.class;
            case CONTROLLER_RING -> ControllerRing.class;
        };
    }

    /** The kind of ring this object is, with its labels, paths and names. */
    public abstract RingKind ringKind();

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
