package dev.ringmaster.sharder.runtime;

import java.time.Duration;

/**
 * Level-based reconciliation of one key: re-read the current state, act, and say when to look again.
 * Must be idempotent; a thrown exception makes the controller retry the key with backoff.
 *
 * @param <K> the key type, e.g. a ring name or a namespace/name pair
 */
@FunctionalInterface
public interface Reconciler<K> {

    /** What the controller does with the key after a successful reconciliation. */
    record Result(Duration requeueAfter) {

        private static final Result DONE = new Result(null);

        /** Nothing to do until the next event for the key. */
        public static Result done() {
            return DONE;
        }

        /** Look at the key again after {@code delay} (at once if not positive). */
        public static Result requeueAfter(Duration delay) {
            return new Result(delay.isNegative() ? Duration.ZERO : delay);
        }
    }

    Result reconcile(K key) throws Exception;
}
