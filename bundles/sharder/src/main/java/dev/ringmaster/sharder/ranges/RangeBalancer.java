package dev.ringmaster.sharder.ranges;

import dev.ringmaster.ring.load.LoadMap;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.ring.spi.Placement;
import dev.ringmaster.ring.spi.PlacementPolicy;
import dev.ringmaster.ring.spi.PlacementRequest;
import dev.ringmaster.sharder.model.RingBalancing;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ring.RingView;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a balanced range-mode ring's ranges should be (docs/design.md section 10): asks the ring's placement policy on
 * every pass, with a load step only when the imbalance lasted the stabilization time, the interval since the last
 * step passed, and no handover is in flight. What it remembers per ring (the last placement, since when the ring is
 * off balance, the last step) only paces it: after a leader change it starts from the Leases' assignments.
 */
final class RangeBalancer {

    private static final Logger LOG = LoggerFactory.getLogger(RangeBalancer.class);

    private final Clock clock;
    private final Map<RingKey, State> states = new ConcurrentHashMap<>();

    /**
     * @param placed           the placement last decided, handed over or not
     * @param imbalancedSince  since when the ring has been off balance beyond its tolerance; null: it is not
     * @param lastStep         when the last load step moved something; null: none yet
     */
    private record State(Map<String, RangeSet> placed, Instant imbalancedSince, Instant lastStep) {
    }

    /**
     * A pass's decision.
     *
     * @param desired   the ranges each shard should hold
     * @param imbalance the busiest available shard's load over the mean, where the ranges are now
     * @param step      the policy's answer when this pass was a load step that moved something
     */
    record Decision(Map<String, RangeSet> desired, double imbalance, Optional<Placement> step) {
    }

    RangeBalancer(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * @param assigned  each shard Lease's assignment as the pass sees it (the sharder's last write if newer)
     * @param available the ring's available shards, sorted
     * @param load      the shards' reports; {@code reported} whether any shard reported at all
     * @param settled   whether every shard serves exactly its assignment
     */
    Decision decide(RingKey ring, RingView.RangeMode mode, RingView.Balancing balancing, Map<String, RangeSet> assigned,
            List<String> available, LoadMap load, boolean reported, boolean settled) {
        Instant now = clock.instant();
        State state = states.getOrDefault(ring, new State(null, null, null));
        Map<String, RangeSet> current = new TreeMap<>(state.placed() != null ? state.placed() : assigned);
        double imbalance = load.imbalance(of(current, available));
        RingBalancing.Settings settings = balancing.settings();
        Optional<PlacementPolicy> policy = balancing.policy();
        if (policy.isEmpty()) {
            // the ranges stay as they are until the policy is back (the ring's Ready condition says why)
            return new Decision(current, imbalance, Optional.empty());
        }
        Instant since = reported && imbalance > settings.maxImbalance()
                ? Objects.requireNonNullElse(state.imbalancedSince(), now) : null;
        boolean handedOver = settled && of(assigned, available).equals(of(current, available));
        boolean loadStep = since != null && handedOver && !now.isBefore(since.plus(settings.stabilization()))
                && (state.lastStep() == null || !now.isBefore(state.lastStep().plus(settings.interval())));
        Placement placement;
        try {
            placement = policy.get().place(new PlacementRequest(mode.buckets(), available, current, load,
                    settings.maxImbalance(), settings.maxMoved(), loadStep));
        } catch (RuntimeException e) {
            // a failing plug-in must not take the sharder down: the ranges stay where they are
            LOG.error("{}: placement policy {} failed: {}", ring, settings.policy(), e.toString());
            return new Decision(current, imbalance, Optional.empty());
        }
        Map<String, RangeSet> desired = new TreeMap<>(placement.ranges());
        boolean stepped = loadStep && !of(desired, available).equals(of(current, available));
        states.put(ring, new State(desired, stepped ? null : since, stepped ? now : state.lastStep()));
        return new Decision(desired, imbalance, stepped ? Optional.of(placement) : Optional.empty());
    }

    /** The ring is gone, no longer balanced, or this replica no longer leads. */
    void forget(RingKey ring) {
        states.remove(ring);
    }

    /** The ranges of {@code shards} in {@code placement}, the empty set for a shard it has none for. */
    private static Map<String, RangeSet> of(Map<String, RangeSet> placement, List<String> shards) {
        Map<String, RangeSet> ranges = new TreeMap<>();
        shards.forEach(shard -> ranges.put(shard, placement.getOrDefault(shard, RangeSet.EMPTY)));
        return ranges;
    }
}
