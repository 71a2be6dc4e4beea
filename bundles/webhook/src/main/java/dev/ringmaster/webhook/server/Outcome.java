package dev.ringmaster.webhook.server;

/**
 * How a request ended: the {@code outcome} tag of the request timer, and the HTTP status answered.
 * A fixed set, so the tag's cardinality stays bounded.
 */
public enum Outcome {
    /** Admitted unchanged. */
    ALLOWED("allowed", 200, ""),
    /** Admitted with a JSONPatch. */
    PATCHED("patched", 200, ""),
    /** Refused by the handler (still HTTP 200: the refusal is in the AdmissionReview). */
    DENIED("denied", 200, ""),
    /** The handler threw or returned nothing. */
    ERROR("error", 500, "InternalError"),
    /** Not a usable AdmissionReview. */
    BAD_REQUEST("bad_request", 400, "BadRequest"),
    /** No handler serves the path. */
    NOT_FOUND("not_found", 404, "NotFound"),
    /** Not a POST. */
    METHOD_NOT_ALLOWED("method_not_allowed", 405, "MethodNotAllowed"),
    /** The body did not arrive in time. */
    TIMEOUT("timeout", 408, "Timeout"),
    /** The body is larger than allowed. */
    TOO_LARGE("too_large", 413, "RequestEntityTooLarge"),
    /** Not {@code application/json}. */
    UNSUPPORTED_MEDIA_TYPE("unsupported_media_type", 415, "UnsupportedMediaType");

    private final String tag;
    private final int status;
    private final String reason;

    Outcome(String tag, int status, String reason) {
        this.tag = tag;
        this.status = status;
        this.reason = reason;
    }

    /** The value of the {@code outcome} metric tag. */
    public String tag() {
        return tag;
    }

    /** The HTTP status of the answer. */
    public int status() {
        return status;
    }

    /** The {@code reason} of an error answer, as Kubernetes names it in a {@code Status}. */
    public String reason() {
        return reason;
    }
}
