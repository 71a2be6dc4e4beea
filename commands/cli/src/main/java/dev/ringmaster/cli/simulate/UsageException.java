package dev.ringmaster.cli.simulate;

/** Bad command-line input; the message is shown to the user as one line. */
final class UsageException extends Exception {

    UsageException(String message) {
        super(message);
    }
}
