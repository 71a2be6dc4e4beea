package dev.ringmaster.sharder.kube;

/**
 * Lets the leader's writes to the API server through only while its leadership is certain: a
 * replica whose lease may have run out (a paused JVM, a stalled renewal, a long rebalance pass)
 * writes nothing, though it has not noticed the loss yet. Checked right before each request.
 */
@FunctionalInterface
public interface WriteFence {

    /** No fence: for a single sharder that competes with no one (tests, benchmarks). */
    WriteFence NONE = () -> true;

    /** Whether a write now is safe. */
    boolean mayWrite();

    /** @throws Closed when a write now is not safe; controllers retry it later, or the term ends */
    default void check() {
        if (!mayWrite()) {
            throw new Closed();
        }
    }

    /** A write refused because this replica's leadership is no longer certain. */
    final class Closed extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        Closed() {
            super("not written: this replica's leadership is no longer certain (its lease may have run out)");
        }
    }
}
