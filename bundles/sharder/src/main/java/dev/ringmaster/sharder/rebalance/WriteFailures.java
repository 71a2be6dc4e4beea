package dev.ringmaster.sharder.rebalance;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * The writes of one rebalance pass that failed (other than conflicts and objects gone), counted by
 * cause, with the first example of each, so that the pass's one warning says what failed and why.
 * Safe for the pass's concurrent writers.
 */
final class WriteFailures {

    /** One cause: how often, and the first object it happened to with its message. */
    private record Cause(AtomicLong count, String firstExample) {
    }

    private final ConcurrentMap<String, Cause> byCause = new ConcurrentHashMap<>();

    /** Counts a failed write of {@code object} (e.g. {@code ConfigMap ns/name}). */
    void add(String object, RuntimeException failure) {
        byCause.computeIfAbsent(causeOf(failure), cause -> new Cause(new AtomicLong(), object + ": " + failure))
                .count().incrementAndGet();
    }

    long total() {
        return byCause.values().stream().mapToLong(cause -> cause.count().get()).sum();
    }

    /** How many writes failed of each cause. */
    Map<String, Long> counts() {
        return byCause.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                entry -> entry.getValue().count().get(), (a, b) -> a, TreeMap::new));
    }

    /** Every cause, with its count and first example, on one line. */
    String describe() {
        return new TreeMap<>(byCause).entrySet().stream()
                .map(entry -> entry.getKey() + ": " + entry.getValue().count().get() + " (first: "
                        + entry.getValue().firstExample() + ")")
                .collect(Collectors.joining("; "));
    }

    /**
     * What a failure is, in few words: the HTTP status the API server answered (and its reason), or
     * for a request that got no answer, the innermost exception and its message (e.g. a stream limit
     * or a timeout of the HTTP client).
     */
    static String causeOf(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof KubernetesClientException e && e.getCode() > 0) {
                String reason = e.getStatus() == null ? null : e.getStatus().getReason();
                return "HTTP " + e.getCode() + (reason == null || reason.isEmpty() ? "" : " " + reason);
            }
        }
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }
}
