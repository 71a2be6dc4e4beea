package dev.ringmaster.sandbox;

/** The sandbox could not do what it set out to do; the message says what, in one line. */
class SandboxException extends Exception {

    SandboxException(String message) {
        super(message);
    }

    /** Ctrl-C or SIGTERM arrived while the sandbox was waiting for something. */
    static final class Stopped extends SandboxException {
        Stopped() {
            super("stopped by a signal");
        }
    }
}
