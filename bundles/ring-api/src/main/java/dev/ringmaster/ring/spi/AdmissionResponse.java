package dev.ringmaster.ring.spi;

import java.util.List;
import java.util.Objects;

/**
 * The {@code response} of an AdmissionReview.
 *
 * @param allowed  whether the request is admitted
 * @param code     HTTP-style status code reported to the client when denied
 * @param message  reason shown to the client, may be empty
 * @param patch    JSONPatch operations to apply, empty for none
 * @param warnings warnings shown to the client
 */
public record AdmissionResponse(boolean allowed, int code, String message, List<PatchOperation> patch,
        List<String> warnings) {

    /** One JSONPatch (RFC 6902) operation. {@code value} is a JSON tree, unused for remove. */
    public record PatchOperation(String op, String path, Object value) {
        public PatchOperation {
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(path, "path");
        }
    }

    public AdmissionResponse {
        message = Objects.requireNonNullElse(message, "");
        patch = patch == null ? List.of() : List.copyOf(patch);
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }

    public static AdmissionResponse allow() {
        return new AdmissionResponse(true, 200, "", List.of(), List.of());
    }

    public static AdmissionResponse allowWithWarning(String warning) {
        return new AdmissionResponse(true, 200, "", List.of(), List.of(warning));
    }

    public static AdmissionResponse patch(List<PatchOperation> operations) {
        return new AdmissionResponse(true, 200, "", operations, List.of());
    }

    public static AdmissionResponse deny(int code, String message) {
        return new AdmissionResponse(false, code, message, List.of(), List.of());
    }
}
