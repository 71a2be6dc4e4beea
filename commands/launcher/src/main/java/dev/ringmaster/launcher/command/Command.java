package dev.ringmaster.launcher.command;

import dev.ringmaster.flags.Flags;
import java.io.PrintStream;
import java.util.List;

/**
 * A {@code bin/ringmaster} sub-command, registered as an OSGi service whose {@value #NAME}
 * property is the command word.
 */
public interface Command {

    /** Service property: the word that selects the command, e.g. {@code simulate}. */
    String NAME = "ringmaster.command";

    /** Exit code for bad usage or input. */
    int USAGE_ERROR = Flags.USAGE_ERROR;

    /**
     * Runs the command.
     *
     * @param args the arguments after the command word
     * @return the process exit code
     */
    int run(List<String> args, PrintStream out, PrintStream err);
}
