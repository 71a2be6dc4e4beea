package dev.ringmaster.testing.apiserver;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Standard error captured while an action runs: slf4j-simple's target, for tests of what a component logs. */
public final class StandardError {

    @FunctionalInterface
    public interface Action {
        void run() throws Exception;
    }

    private StandardError() {
    }

    /** Runs {@code action} and returns what was written to standard error meanwhile. */
    public static String loggedWhile(Action action) throws Exception {
        PrintStream standardError = System.err;
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
            action.run();
        } finally {
            System.setErr(standardError);
        }
        return logged.toString(StandardCharsets.UTF_8);
    }
}
