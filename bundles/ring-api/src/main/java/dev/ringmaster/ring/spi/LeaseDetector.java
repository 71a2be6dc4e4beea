package dev.ringmaster.ring.spi;

import java.time.Instant;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Failure detection: classifies a shard from its Lease. Must be a pure function of its arguments
 * (the clock is the caller's), so decisions are reproducible and testable.
 */
@ConsumerType
public interface LeaseDetector {

    /** Service property carrying the detector's name. */
    String NAME = "name";

    ShardStatus detect(LeaseRecord lease, Instant now);
}
