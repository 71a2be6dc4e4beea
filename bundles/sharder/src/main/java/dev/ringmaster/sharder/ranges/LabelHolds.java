package dev.ringmaster.sharder.ranges;

import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.sharder.model.RingKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Where a ring that entered range mode still has main objects labelled for shards that may reconcile them by label
 * (docs/design.md section 9, entering range mode): the leader's rebalance passes drain those objects and record the
 * buckets they lie in, and the range assigner grants a range only where the last pass found none. Each ring's hold is
 * immutable and replaced whole; one instance per term of leadership.
 */
public final class LabelHolds {

    /**
     * How long after a ring is first seen in range mode a pass's listing must begin to count: a replica whose webhook
     * saw the switch a moment late may still label an object for a label-mode shard, and a listing that began this
     * much later holds it.
     */
    static final Duration QUIET = Duration.ofSeconds(2);

    /** What one complete pass found: the held space, beside which label-mode shards, listed from when. */
    private record Hold(Set<String> labelShards, RangeSet held, Instant listedAt) {
    }

    private final Clock clock;
    private final Map<RingKey, Instant> firstSeen = new ConcurrentHashMap<>();
    private final Map<RingKey, Hold> holds = new ConcurrentHashMap<>();
    private volatile Consumer<RingKey> onChange = ring -> { };

    public LabelHolds(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Told the ring of every hold recorded, so that its ranges are assigned again. */
    public void onChange(Consumer<RingKey> listener) {
        this.onChange = Objects.requireNonNull(listener, "listener");
    }

    /** A pass over a range-mode ring begins its listing now; returns now. */
    public Instant listingStarts(RingKey ring) {
        Instant now = clock.instant();
        firstSeen.putIfAbsent(ring, now);
        return now;
    }

    /**
     * A complete pass whose listing began at {@code listedAt} found the main objects still labelled for
     * {@code labelShards} only in {@code held}.
     */
    public void found(RingKey ring, Set<String> labelShards, RangeSet held, Instant listedAt) {
        holds.put(ring, new Hold(Set.copyOf(labelShards), held, listedAt));
        onChange.accept(ring);
    }

    /** The ring is in label mode, or gone: a later switch to range mode starts afresh. */
    public void forget(RingKey ring) {
        firstSeen.remove(ring);
        holds.remove(ring);
    }

    /**
     * Where ranges may be granted beside {@code labelShards}: outside the space the last pass held, if its listing
     * began {@link #QUIET} after the ring was first seen in range mode and it knew every one of these shards (a
     * label-mode shard it did not know may hold objects anywhere); nowhere otherwise.
     */
    public RangeSet free(RingKey ring, Set<String> labelShards) {
        Hold hold = holds.get(ring);
        Instant seen = firstSeen.get(ring);
        if (hold == null || seen == null || hold.listedAt().isBefore(seen.plus(QUIET))
                || !hold.labelShards().containsAll(labelShards)) {
            return RangeSet.EMPTY;
        }
        return hold.held().complement();
    }
}
