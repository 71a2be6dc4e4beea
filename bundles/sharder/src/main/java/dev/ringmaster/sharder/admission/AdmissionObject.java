package dev.ringmaster.sharder.admission;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.OwnerReference;
import dev.ringmaster.ring.spi.AdmissionRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The metadata of an admission request's object, read straight from its JSON tree: the webhook is
 * on the API server's write path, so it converts nothing it does not need. Values of the wrong JSON
 * type count as absent; the API server has validated the object's schema before admission anyway.
 */
final class AdmissionObject {

    private final Map<?, ?> metadata;
    private final Map<String, String> labels;

    AdmissionObject(Map<String, Object> object) {
        this.metadata = object.get("metadata") instanceof Map<?, ?> map ? map : Map.of();
        this.labels = stringMap(metadata.get("labels"));
    }

    boolean hasLabels() {
        return metadata.get("labels") instanceof Map<?, ?>;
    }

    Map<String, String> labels() {
        return labels;
    }

    /** What the resource interpreter sees; the request's namespace and name fill in what the object lacks. */
    ObjectReference reference(AdmissionRequest request) {
        String namespace = string(metadata.get("namespace"));
        String name = string(metadata.get("name"));
        return new ObjectReference(request.group(), request.version(), request.kind(),
                namespace.isEmpty() ? request.namespace() : namespace, name.isEmpty() ? request.name() : name,
                string(metadata.get("generateName")), labels, owners(metadata.get("ownerReferences")));
    }

    private static List<OwnerReference> owners(Object value) {
        if (!(value instanceof List<?> list)) {
            return List.of();
        }
        return list.stream()
                .filter(Map.class::isInstance)
                .map(Map.class::cast)
                .map(owner -> new OwnerReference(string(owner.get("apiVersion")), string(owner.get("kind")),
                        string(owner.get("name")), Boolean.TRUE.equals(owner.get("controller"))))
                .toList();
    }

    /** The string entries of a JSON object, as the immutable map {@link ObjectReference} keeps without copying. */
    @SuppressWarnings("unchecked")
    private static Map<String, String> stringMap(Object value) {
        if (!(value instanceof Map<?, ?> map)) {
            return Map.of();
        }
        List<Map.Entry<String, String>> entries = new ArrayList<>(map.size());
        map.forEach((key, entry) -> {
            if (key instanceof String name && entry instanceof String text) {
                entries.add(Map.entry(name, text));
            }
        });
        return Map.ofEntries(entries.toArray(Map.Entry[]::new));
    }

    private static String string(Object value) {
        return value instanceof String text ? text : "";
    }
}
