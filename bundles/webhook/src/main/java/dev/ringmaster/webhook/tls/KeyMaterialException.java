package dev.ringmaster.webhook.tls;

/** The certificate or key files cannot serve TLS; the message says which file and why, in one line. */
public final class KeyMaterialException extends Exception {

    private static final long serialVersionUID = 1L;

    public KeyMaterialException(String message) {
        super(message);
    }

    public KeyMaterialException(String message, Throwable cause) {
        super(message, cause);
    }
}
