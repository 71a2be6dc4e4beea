package dev.ringmaster.ring;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a resource interpreter may look at to key an object: its type, identity, labels and owners.
 * Strings are never null; absent values are empty (core group, cluster scope, no name yet).
 */
public record ObjectReference(
        String group,
        String version,
        String kind,
        String namespace,
        String name,
        String generateName,
        Map<String, String> labels,
        List<OwnerReference> ownerReferences) {

    public ObjectReference {
        group = Objects.requireNonNullElse(group, "");
        version = Objects.requireNonNullElse(version, "");
        kind = Objects.requireNonNull(kind, "kind");
        namespace = Objects.requireNonNullElse(namespace, "");
        name = Objects.requireNonNullElse(name, "");
        generateName = Objects.requireNonNullElse(generateName, "");
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        ownerReferences = ownerReferences == null ? List.of() : List.copyOf(ownerReferences);
    }

    /** An object with a name and no labels or owners. */
    public static ObjectReference of(String group, String version, String kind, String namespace, String name) {
        return new ObjectReference(group, version, kind, namespace, name, "", Map.of(), List.of());
    }

    /** The owner reference marked {@code controller: true}, if any. */
    public Optional<OwnerReference> controller() {
        return ownerReferences.stream().filter(OwnerReference::controller).findFirst();
    }
}
