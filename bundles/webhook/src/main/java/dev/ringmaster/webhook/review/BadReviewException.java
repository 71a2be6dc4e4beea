package dev.ringmaster.webhook.review;

import java.util.Optional;

/** A request body that is not a usable {@code admission.k8s.io/v1} AdmissionReview: answered with 400. */
public final class BadReviewException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String uid;

    BadReviewException(String message, String uid) {
        super(message, null, false, false); // expected input errors: no stack trace to fill
        this.uid = uid;
    }

    /** The request's uid, when the body carried one before it went wrong: the answer echoes it. */
    public Optional<String> uid() {
        return Optional.ofNullable(uid);
    }
}
