package dev.ringmaster.plugins.podreadiness;

import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.LeaseRecord;
import dev.ringmaster.ring.spi.ShardStatus;
import java.time.Instant;
import java.util.Objects;

/**
 * Refines a base detector's verdict (the sharder's default: docs/design.md section 3) with the readiness of
 * the shard's Pod, named like its Lease and in the Lease's namespace:
 *
 * <table>
 *   <caption>verdicts</caption>
 *   <tr><th>base verdict</th><th>Pod</th><th>verdict</th></tr>
 *   <tr><td>ready, expired</td><td>Ready, or none in the cache</td><td>the base verdict</td></tr>
 *   <tr><td>ready, expired</td><td>not Ready</td><td>dead (not available), revisit when the base would</td></tr>
 *   <tr><td>uncertain</td><td>any</td><td>uncertain: the sharder tries to acquire the lease as usual</td></tr>
 *   <tr><td>dead, orphaned</td><td>any (also Ready)</td><td>the base verdict: the lease decides</td></tr>
 * </table>
 *
 * A not-Ready shard is reported dead rather than anything the sharder acts on (it neither acquires
 * the lease of a shard that renews it nor deletes it): its objects move to available shards and come
 * back once the Pod is Ready again. The verdict depends only on the lease, {@code now} and the Pod
 * cache, which the lookup reads without blocking.
 */
final class PodReadinessDetector implements LeaseDetector {

    private final LeaseDetector base;
    private final PodReadiness.Lookup pods;

    PodReadinessDetector(LeaseDetector base, PodReadiness.Lookup pods) {
        this.base = Objects.requireNonNull(base, "base");
        this.pods = Objects.requireNonNull(pods, "pods");
    }

    @Override
    public ShardStatus detect(LeaseRecord lease, Instant now) {
        ShardStatus verdict = base.detect(lease, now);
        if (verdict.state() != ShardState.READY && verdict.state() != ShardState.EXPIRED) {
            return verdict;
        }
        if (pods.readiness(lease.namespace(), lease.name()) == PodReadiness.NOT_READY) {
            return new ShardStatus(ShardState.DEAD, verdict.revisitAt());
        }
        return verdict;
    }
}
