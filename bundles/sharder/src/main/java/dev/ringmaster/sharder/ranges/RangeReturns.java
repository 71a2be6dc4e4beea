package dev.ringmaster.sharder.ranges;

import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.sharder.model.RingKey;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * How a ring that left range mode gives its ranges back (docs/design.md section 9, leaving range mode): the range
 * assigner publishes what its range-mode shards may still serve and takes the ranges back a slice at a time; the
 * leader's rebalance passes label only the objects outside those claims, and say when they labelled all of them, which
 * lets the assigner take the next slice. Each ring's claims are immutable and replaced whole; one instance per term of
 * leadership.
 */
public final class RangeReturns {

    /**
     * What the range-mode shards of a label-mode ring may still serve.
     *
     * @param key     the field their ranges hash; empty if their Leases name different ones (then every object counts
     *                as claimed)
     * @param claimed their claims: assigned and served ranges, and assignments written that the cache may not show
     */
    public record Claims(Optional<RangeKey> key, RangeSet claimed) {

        /** Whether a range-mode shard may still serve the object of this uid and namespace. */
        public boolean hold(String uid, String namespace) {
            return key.map(rangeKey -> claimed.contains(rangeKey.hash(uid, namespace))).orElse(!claimed.isEmpty());
        }
    }

    private final Map<RingKey, Claims> claims = new ConcurrentHashMap<>();
    /** Per ring, the claims a complete rebalance pass labelled every object outside of. */
    private final Map<RingKey, Claims> labelledOutside = new ConcurrentHashMap<>();
    private volatile Consumer<RingKey> onClaims = ring -> { };
    private volatile Consumer<RingKey> onLabelled = ring -> { };

    /** Told the ring when its claims change, so that it is rebalanced again. */
    public void onClaims(Consumer<RingKey> listener) {
        this.onClaims = Objects.requireNonNull(listener, "listener");
    }

    /** Told the ring when a pass labelled every object outside its claims, so that the next slice is taken back. */
    public void onLabelled(Consumer<RingKey> listener) {
        this.onLabelled = Objects.requireNonNull(listener, "listener");
    }

    /** The claims of the ring's range-mode shards as the assigner read them now; nothing claimed ends the return. */
    public void claimed(RingKey ring, Claims now) {
        Claims before = now.claimed().isEmpty() ? claims.remove(ring) : claims.put(ring, now);
        if (!now.equals(before) && !(before == null && now.claimed().isEmpty())) {
            onClaims.accept(ring);
        }
    }

    /** What the ring's range-mode shards may still serve; empty when nothing is claimed (or nothing is known). */
    public Optional<Claims> claims(RingKey ring) {
        return Optional.ofNullable(claims.get(ring));
    }

    /** A complete pass found no object outside {@code used} left to label. */
    public void labelled(RingKey ring, Claims used) {
        labelledOutside.put(ring, used);
        onLabelled.accept(ring);
    }

    /** Whether a complete pass labelled every object outside exactly these claims. */
    public boolean labelledOutside(RingKey ring, Claims now) {
        return now.equals(labelledOutside.get(ring));
    }

    /** The ring is in range mode, or gone. */
    public void forget(RingKey ring) {
        claims.remove(ring);
        labelledOutside.remove(ring);
    }
}
