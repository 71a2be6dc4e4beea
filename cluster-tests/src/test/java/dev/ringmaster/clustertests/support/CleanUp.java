package dev.ringmaster.clustertests.support;

/**
 * The clean-up of a scenario class that changed the shared install: every step is tried even when one
 * before it failed, so that a class whose clean-up fails half-way does not leave the rest of its changes
 * to the classes after it (a StatefulSet partition left behind fails every rolling update after it). The
 * first failure is thrown at the end, the others suppressed in it.
 */
public final class CleanUp {

    /** One step of a clean-up. */
    @FunctionalInterface
    public interface Step {
        void run() throws Exception;
    }

    private CleanUp() {
    }

    /** Runs every step in order; then throws the first failure, if any. */
    public static void steps(Step... steps) throws Exception {
        Exception first = null;
        for (Step step : steps) {
            try {
                step.run();
            } catch (Exception | AssertionError e) {
                Exception failure = e instanceof Exception exception ? exception : new IllegalStateException(e);
                if (first == null) {
                    first = failure;
                } else {
                    first.addSuppressed(failure);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
