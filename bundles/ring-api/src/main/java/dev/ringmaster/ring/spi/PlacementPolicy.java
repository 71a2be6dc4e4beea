package dev.ringmaster.ring.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Decides where a range-mode ring's ranges go, from where they are and what they cost (docs/design.md section 10).
 * Registered as a DS service whose {@value #NAME} property is the name rings refer to in
 * {@code spec.balancing.policy}. The leader calls it on every pass over a balanced ring and publishes the result
 * through the range handover, so a policy never has to care about overlap: whatever it returns, no range is
 * served by two shards at once. It must be a pure function of its request: the same request, the same placement.
 */
@ConsumerType
public interface PlacementPolicy {

    /** Service property carrying the policy's name, e.g. {@code load-aware}. */
    String NAME = "name";

    /**
     * The ranges every shard of {@code request} should hold. Every hash must lie in exactly one shard's set.
     *
     * @throws IllegalArgumentException if the request cannot be placed (e.g. a bucket count it does not support)
     */
    Placement place(PlacementRequest request);
}
