package dev.ringmaster.ring.spi;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code request} of an {@code admission.k8s.io/v1} AdmissionReview. Objects are JSON trees
 * (maps, lists, strings, numbers, booleans); absent ones are empty maps.
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
        userGroups = userGroups == null ? List.of() : List.copyOf(userGroups);
        object = object == null ? Map.of() : object;
        oldObject = oldObject == null ? Map.of() : oldObject;
    }
}
