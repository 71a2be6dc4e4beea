package dev.ringmaster.plugins.podreadiness;

/** What the cache knows of the Pod behind a shard. */
enum PodReadiness {
    /** The Pod exists and its {@code Ready} condition is {@code True}. */
    READY,
    /** The Pod exists and is not Ready (condition False or Unknown, or not reported yet). */
    NOT_READY,
    /** No such Pod in the cache (none exists, it is not watched, or the cache has not synced yet). */
    UNKNOWN;

    /** Reads the cache of Pods; must not block or call the API server. */
    @FunctionalInterface
    interface Lookup {
        PodReadiness readiness(String namespace, String name);
    }
}
