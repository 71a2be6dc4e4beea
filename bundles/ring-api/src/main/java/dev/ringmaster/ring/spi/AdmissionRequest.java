package dev.ringmaster.ring.spi;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code request} of an {@code admission.k8s.io/v1} AdmissionReview. Objects are JSON trees
 * (maps, lists, strings, numbers, booleans); absent ones are empty maps. Absent strings are empty
 * (the core group, no subresource, a cluster-scoped object).
 */
public record AdmissionRequest(
        String uid,
        String operation,
        String group,
        String version,
        String kind,
        String resourceGroup,
        String resource,
        String subResource,
        String namespace,
        String name,
        String username,
        List<String> userGroups,
        boolean dryRun,
        Map<String, Object> object,
        Map<String, Object> oldObject) {

    public AdmissionRequest {
        Objects.requireNonNull(uid, "uid");
        operation = Objects.requireNonNullElse(operation, "");
        group = Objects.requireNonNullElse(group, "");
        version = Objects.requireNonNullElse(version, "");
        kind = Objects.requireNonNullElse(kind, "");
        resourceGroup = Objects.requireNonNullElse(resourceGroup, "");
        resource = Objects.requireNonNullElse(resource, "");
        subResource = Objects.requireNonNullElse(subResource, "");
        namespace = Objects.requireNonNullElse(namespace, "");
        name = Objects.requireNonNullElse(name, "");
        username = Objects.requireNonNullElse(username, "");
        userGroups = userGroups == null ? List.of() : List.copyOf(userGroups);
        object = object == null ? Map.of() : object;
        oldObject = oldObject == null ? Map.of() : oldObject;
    }
}
