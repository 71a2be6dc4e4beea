package dev.ringmaster.launcher;

/** The framework could not be started; the message says why. */
public final class LaunchException extends Exception {

    LaunchException(String message, Throwable cause) {
        super(message, cause);
    }
}
