package dev.ringmaster.webhook.tls;

/**
 * Certificate or key files (or PEM read from elsewhere, e.g. a Secret) cannot serve TLS; the message says
 * which source and why, in one line.
 */
public final class KeyMaterialException extends Exception {

    private static final long serialVersionUID = 1L;

    public KeyMaterialException(String message) {
        super(message);
    }

    public KeyMaterialException(String message, Throwable cause) {
        super(message, cause);
    }
}
