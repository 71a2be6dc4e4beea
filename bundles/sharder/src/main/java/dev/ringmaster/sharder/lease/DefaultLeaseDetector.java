package dev.ringmaster.sharder.lease;

import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.LeaseRecord;
import dev.ringmaster.ring.spi.ShardStatus;
import java.time.Duration;
import java.time.Instant;
import org.osgi.service.component.annotations.Component;

/**
 * The reference sharder's failure detector (docs/design.md section 3). With
 * {@code exp = renewTime + leaseDuration}:
 *
 * <ul>
 *   <li>ready: held by the shard itself and {@code now < exp}; revisit at exp;
 *   <li>expired: held and {@code now < exp + leaseDuration}; revisit then;
 *   <li>uncertain: held, but later than that; the sharder acts at once (acquires the lease);
 *   <li>dead: holder empty or another identity (e.g. the sharder after acquiring); revisit when it
 *       becomes orphaned;
 *   <li>orphaned: dead and expired at least {@link #ORPHAN_AFTER} ago; the sharder deletes it now.
 * </ul>
 *
 * A missing renew time counts as expired long ago and a missing duration as zero, so a lease that
 * was never renewed is never taken for a live shard.
 */
@Component(property = LeaseDetector.NAME + "=" + DefaultLeaseDetector.NAME)
public class DefaultLeaseDetector implements LeaseDetector {

    public static final String NAME = "default";
    static final Duration ORPHAN_AFTER = Duration.ofMinutes(1);

    @Override
    public ShardStatus detect(LeaseRecord lease, Instant now) {
        Duration duration = Duration.ofSeconds(
                lease.leaseDurationSeconds() == null ? 0 : Math.max(0, lease.leaseDurationSeconds()));
        Instant expiry = (lease.renewTime() == null ? Instant.EPOCH : lease.renewTime()).plus(duration);
        boolean heldByShard = lease.name().equals(lease.holderIdentity());
        if (!heldByShard) {
            Instant orphanedAt = expiry.plus(ORPHAN_AFTER);
            return now.isBefore(orphanedAt)
                    ? new ShardStatus(ShardState.DEAD, orphanedAt)
                    : new ShardStatus(ShardState.ORPHANED, now);
        }
        if (now.isBefore(expiry)) {
            return new ShardStatus(ShardState.READY, expiry);
        }
        Instant uncertainAt = expiry.plus(duration);
        return now.isBefore(uncertainAt)
                ? new ShardStatus(ShardState.EXPIRED, uncertainAt)
                : new ShardStatus(ShardState.UNCERTAIN, now);
    }
}
