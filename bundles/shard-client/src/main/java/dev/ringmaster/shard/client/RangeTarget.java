package dev.ringmaster.shard.client;

import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;

/**
 * What {@link ShardRanges} hands the shard's ranges to: a {@link RangeInformer} and what reconciles
 * from it, or another framework's watches and workers (shard-josdk's controllers).
 */
public interface RangeTarget {

    /** Serve exactly {@code ranges} of {@code key} from now on (the empty set: nothing). */
    void serve(RangeSet ranges, RangeKey key);

    /** Whether a reconcile of an object outside {@code ranges} is running now. */
    boolean busyOutside(RangeSet ranges, RangeKey key);
}
