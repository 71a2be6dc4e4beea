package dev.ringmaster.ring;

import java.util.Objects;

/**
 * The parts of a Kubernetes owner reference that partitioning needs.
 *
 * @param apiVersion {@code group/version}, or just {@code version} for the core group
 * @param kind       the owner's kind
 * @param name       the owner's name
 * @param controller whether this reference is the object's controller
 */
public record OwnerReference(String apiVersion, String kind, String name, boolean controller) {

    public OwnerReference {
        Objects.requireNonNull(apiVersion, "apiVersion");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
    }

    /** The API group of the owner: the part of apiVersion before '/', empty for the core group. */
    public String group() {
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }
}
