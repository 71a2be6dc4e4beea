package dev.ringmaster.flags;

import java.io.PrintStream;

/** A command line that cannot be used; the message says why in one line, naming the flag. */
public class UsageException extends Exception {

    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }

    /**
     * Prints the message in one line on {@code err}, prefixed with the command and followed by the hint
     * to its {@code --help}.
     *
     * @param command the command as typed, e.g. {@code ringmaster run}
     * @return {@link Flags#USAGE_ERROR}, the exit code
     */
    public int report(String command, PrintStream err) {
        err.println(command + ": " + getMessage() + " (see " + command + " --help)");
        return Flags.USAGE_ERROR;
    }
}
