package dev.ringmaster.sharder.ringcontrol;

import dev.ringmaster.sharder.model.RingObject;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An RFC 6902 JSON Patch that sets whole fields the sharder owns and is locked to the resourceVersion
 * it was computed from: the API server compares the patched object's resourceVersion with the stored
 * one and answers 409 Conflict if anyone wrote in between, so a value read and carried over (such as
 * a CA bundle cert-manager injected) is never overwritten with a stale copy.
 *
 * <p>Why not server-side apply: it would be the natural choice on a real API server, but fabric8's
 * mock server rejects apply patches (415), and a JSON merge patch replaces lists wholesale (and the
 * mock merges them differently). A locked JSON Patch behaves the same on both.
 */
public final class LockedJsonPatch {

    /** Field manager recorded in managedFields for the sharder's writes. */
    static final String FIELD_MANAGER = "ringmaster-sharder";

    private final List<Map<String, Object>> operations = new ArrayList<>();

    public LockedJsonPatch(String resourceVersion) {
        operations.add(operation("replace", "/metadata/resourceVersion", resourceVersion));
    }

    /** Sets the member at {@code path} to {@code value}, replacing it if present ("add" semantics). */
    public LockedJsonPatch set(String path, Object value) {
        operations.add(operation("add", path, value));
        return this;
    }

    public String toJson(KubernetesSerialization serialization) {
        return serialization.asJson(operations);
    }

    /** Applies this patch to the status subresource of {@code ring}. */
    public void applyToStatus(KubernetesClient client, RingObject ring) {
        patchStatus(client, RingObject.typeOf(ring.ringKind()), ring, toJson(client.getKubernetesSerialization()));
    }

    private static <T extends RingObject> void patchStatus(KubernetesClient client, Class<T> type, RingObject ring,
            String patch) {
        client.resources(type).resource(type.cast(ring)).status().patch(statusContext(), patch);
    }

    /** For the main resource: the writes show up under the sharder's name in managedFields. */
    static PatchContext context() {
        return new PatchContext.Builder().withPatchType(PatchType.JSON).withFieldManager(FIELD_MANAGER).build();
    }

    /**
     * For the status subresource: without a field manager, because fabric8's mock server tells a
     * status request by its path ending in "/status" and so mistakes {@code /status?fieldManager=...}
     * for a write of the main resource (dropping the status). A real API server would accept it; the
     * manager name is only cosmetic there, the lock is what matters.
     */
    static PatchContext statusContext() {
        return new PatchContext.Builder().withPatchType(PatchType.JSON).build();
    }

    private static Map<String, Object> operation(String op, String path, Object value) {
        Map<String, Object> operation = new LinkedHashMap<>();
        operation.put("op", op);
        operation.put("path", path);
        operation.put("value", value);
        return operation;
    }
}
