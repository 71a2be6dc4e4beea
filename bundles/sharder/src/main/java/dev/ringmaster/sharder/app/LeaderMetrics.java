package dev.ringmaster.sharder.app;

import dev.ringmaster.sharder.autoscale.AutoscaleRecorder;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ranges.RangeRecorder;
import dev.ringmaster.sharder.rebalance.MoveRecorder;
import dev.ringmaster.sharder.rebalance.PassSummary;
import dev.ringmaster.sharder.ring.Move;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.ToDoubleFunction;

/**
 * What only the leader knows, per ring (docs/monitoring.md): its rebalance passes, and the ring's
 * objects that wait, read at each scrape from the leader's watches. Moves are counted by
 * {@link SharderMetrics}, which this passes them to.
 *
 * <ul>
 * <li>{@code ringmaster_rebalance_passes_total} {clusterring, controllerring, result = completed | failed}</li>
 * <li>{@code ringmaster_rebalance_pass_seconds} (histogram) {clusterring, controllerring}</li>
 * <li>{@code ringmaster_rebalance_moves_not_written_total} {clusterring, controllerring, reason}: moves a
 * pass left for the next one: {@code deferred} (move budget), {@code conflict} (the object changed
 * meanwhile), {@code failed} (the API server refused or did not answer)</li>
 * <li>{@code ringmaster_ring_shard_objects} {clusterring, controllerring, shard, group, resource}: the
 * objects labelled with each shard, as the ring's last completed pass listed them</li>
 * <li>{@code ringmaster_ring_objects_in_drain}, {@code ringmaster_ring_oldest_drain_age_seconds} (0 when none)
 * and {@code ringmaster_ring_unassigned_objects} {clusterring, controllerring}, while this replica leads</li>
 * <li>range mode (docs/design.md section 9): {@code ringmaster_ring_shard_ranges} and
 * {@code ringmaster_ring_shard_range_share} {clusterring, controllerring, shard}: the ranges each shard Lease is
 * assigned, and their share of the hash space (0..1), as the range assigner last published them;
 * {@code ringmaster_ring_range_handovers_total} {clusterring, controllerring}: buckets that left one shard's
 * assignment and entered another's; {@code ringmaster_ring_range_handover_seconds} (histogram): how long after
 * leaving the loser's assignment they entered the gainer's</li>
 * <li>balanced rings (docs/design.md sections 10 and 10.2): {@code ringmaster_ring_shard_load_seconds_per_second}
 * {clusterring, controllerring, shard}: each available shard's busy time, as the shards reported it (in range mode
 * for its assigned ranges); {@code ringmaster_ring_load_imbalance}: the busiest shard's over the mean;
 * {@code ringmaster_ring_balancing_steps_total} and {@code ringmaster_ring_balancing_moved_total}: load steps that
 * moved ranges or changed shard weights, and the share of the objects they moved, summed</li>
 * <li>autoscaled rings (docs/design.md section 10.1): {@code ringmaster_ring_autoscaling_current_shards} and
 * {@code ringmaster_ring_autoscaling_desired_shards} {clusterring, controllerring}: the scale target's replicas and
 * the autoscaler's stabilized recommendation, as its last pass saw them</li>
 * </ul>
 */
final class LeaderMetrics implements MoveRecorder, RangeRecorder, AutoscaleRecorder {

    /** What the leader sees of a ring's objects now. */
    interface RingObjects {

        long inDrain(RingKey ring);

        Optional<Duration> oldestDrain(RingKey ring);

        /** Objects the ring would assign (in its scope, with a partition key) that have no shard label. */
        long unassigned(RingKey ring);
    }

    private final SharderMetrics moves;
    private final MeterRegistry registry;
    private final MultiGauge inDrain;
    private final MultiGauge oldestDrain;
    private final MultiGauge unassigned;
    private final MultiGauge shardObjects;
    /** The rows of {@link #shardObjects} by ring: each pass replaces its ring's. */
    private final Map<RingKey, List<MultiGauge.Row<?>>> shardObjectRows = new HashMap<>();
    private final MultiGauge shardRanges;
    private final MultiGauge shardRangeShare;
    private final MultiGauge shardLoad;
    private final MultiGauge loadImbalance;
    /** Each balanced ring's load per shard and imbalance as its last pass saw them. */
    private final Map<RingKey, Balance> balancing = new HashMap<>();

    private record Balance(Map<String, Double> load, double imbalance) {
    }

    private final MultiGauge autoscalingCurrent;
    private final MultiGauge autoscalingDesired;
    /** Each autoscaled ring's current and desired shards as the autoscaler's last pass saw them. */
    private final Map<RingKey, int[]> autoscaling = new HashMap<>();

    /** Each range-mode ring's assignments as last published, by shard. */
    private final Map<RingKey, Map<String, RangeSet>> assignments = new HashMap<>();

    LeaderMetrics(MeterRegistry registry, SharderMetrics moves) {
        this.registry = registry;
        this.moves = moves;
        this.inDrain = MultiGauge.builder("ringmaster.ring.objects.in.drain")
                .description("Objects waiting for their shard to hand them back (the drain label set)").register(registry);
        this.oldestDrain = MultiGauge.builder("ringmaster.ring.oldest.drain.age").baseUnit("seconds")
                .description("How long the ring's oldest drain has waited, since the leader first saw it")
                .register(registry);
        this.unassigned = MultiGauge.builder("ringmaster.ring.unassigned.objects")
                .description("Objects the ring would assign (in its scope, with a partition key) without a shard label")
                .register(registry);
        this.shardObjects = MultiGauge.builder("ringmaster.ring.shard.objects")
                .description("Objects labelled with each shard, as the ring's last rebalance pass listed them")
                .register(registry);
        this.shardRanges = MultiGauge.builder("ringmaster.ring.shard.ranges")
                .description("Hash ranges each shard Lease of a range-mode ring is assigned").register(registry);
        this.shardRangeShare = MultiGauge.builder("ringmaster.ring.shard.range.share")
                .description("Share of the hash space (0..1) each shard Lease of a range-mode ring is assigned")
                .register(registry);
        this.shardLoad = MultiGauge.builder("ringmaster.ring.shard.load").baseUnit("seconds.per.second")
                .description("Busy time of each shard of a balanced ring, as the shards reported it for their ranges")
                .register(registry);
        this.loadImbalance = MultiGauge.builder("ringmaster.ring.load.imbalance")
                .description("The busiest shard's load over the mean, of a balanced ring").register(registry);
        this.autoscalingCurrent = MultiGauge.builder("ringmaster.ring.autoscaling.current.shards")
                .description("Replicas of an autoscaled ring's scale target (its scale subresource's spec.replicas)")
                .register(registry);
        this.autoscalingDesired = MultiGauge.builder("ringmaster.ring.autoscaling.desired.shards")
                .description("Shards the autoscaler wants for an autoscaled ring: its stabilized recommendation")
                .register(registry);
    }

    @Override
    public synchronized void shards(RingKey ring, int current, int desired) {
        int[] before = autoscaling.put(ring, new int[] {current, desired});
        if (before == null || before[0] != current || before[1] != desired) {
            registerAutoscaling();
        }
    }

    @Override
    public synchronized void notAutoscaled(RingKey ring) {
        if (autoscaling.remove(ring) != null) {
            registerAutoscaling();
        }
    }

    private void registerAutoscaling() {
        List<MultiGauge.Row<?>> current = new ArrayList<>();
        List<MultiGauge.Row<?>> desired = new ArrayList<>();
        autoscaling.forEach((ring, shards) -> {
            Tags tags = SharderMetrics.ringTags(ring);
            current.add(MultiGauge.Row.of(tags, shards[0]));
            desired.add(MultiGauge.Row.of(tags, shards[1]));
        });
        autoscalingCurrent.register(current, true);
        autoscalingDesired.register(desired, true);
    }

    @Override
    public void written(RingKey ring, ResolvedResource resource, Move move) {
        moves.written(ring, resource, move);
    }

    @Override
    public void passed(RingKey ring, PassSummary summary, Duration took) {
        pass(ring, "completed", took);
        notWritten(ring, "deferred", summary.deferred());
        notWritten(ring, "conflict", summary.conflicts());
        notWritten(ring, "failed", summary.failed());
    }

    @Override
    public synchronized void objectsPerShard(RingKey ring, Map<ResolvedResource, Map<String, Long>> objects) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        objects.forEach((resource, perShard) -> perShard.forEach((shard, count) -> {
            if (!shard.isEmpty()) { // unassigned objects have a gauge of their own
                rows.add(MultiGauge.Row.of(SharderMetrics.ringTags(ring).and("shard", shard, "group", resource.group(),
                        "resource", resource.resource()), count));
            }
        }));
        shardObjectRows.put(ring, rows);
        registerShardObjects();
    }

    private void registerShardObjects() {
        shardObjects.register(shardObjectRows.values().stream().flatMap(List::stream).toList(), true);
    }

    @Override
    public void passFailed(RingKey ring, Duration took) {
        pass(ring, "failed", took);
    }

    private void pass(RingKey ring, String result, Duration took) {
        Tags tags = SharderMetrics.ringTags(ring);
        Counter.builder("ringmaster.rebalance.passes").description("Rebalance passes, by result")
                .tags(tags.and("result", result)).register(registry).increment();
        Timer.builder("ringmaster.rebalance.pass").description("How long rebalance passes took")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(10))
                .maximumExpectedValue(Duration.ofMinutes(10)).tags(tags).register(registry).record(took);
    }

    /** Counted also when 0, so that the series exist from the first pass on. */
    private void notWritten(RingKey ring, String reason, long count) {
        Counter.builder("ringmaster.rebalance.moves.not.written")
                .description("Moves a rebalance pass left for the next one, by reason")
                .tags(SharderMetrics.ringTags(ring).and("reason", reason)).register(registry).increment(count);
    }

    @Override
    public synchronized void assigned(RingKey ring, Map<String, RangeSet> assigned) {
        assignments.put(ring, Map.copyOf(assigned));
        registerAssignments();
    }

    @Override
    public void handedOver(RingKey ring, long buckets, Duration took) {
        Tags tags = SharderMetrics.ringTags(ring);
        Counter.builder("ringmaster.ring.range.handovers")
                .description("Buckets of a range-mode ring that left one shard's assignment and entered another's")
                .tags(tags).register(registry).increment(buckets);
        Timer.builder("ringmaster.ring.range.handover")
                .description("How long after leaving the loser's assignment a range entered the gainer's")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(10))
                .maximumExpectedValue(Duration.ofMinutes(10)).tags(tags).register(registry).record(took);
    }

    @Override
    public synchronized void balanced(RingKey ring, Map<String, Double> load, double imbalance, OptionalDouble moved) {
        balancing.put(ring, new Balance(Map.copyOf(load), imbalance));
        registerBalancing();
        moved.ifPresent(share -> {
            Tags tags = SharderMetrics.ringTags(ring);
            Counter.builder("ringmaster.ring.balancing.steps")
                    .description("Load steps of a balanced ring that moved ranges or changed shard weights").tags(tags)
                    .register(registry).increment();
            Counter.builder("ringmaster.ring.balancing.moved")
                    .description("Share of a balanced ring's objects its load steps moved, summed over the steps")
                    .tags(tags).register(registry).increment(share);
        });
    }

    @Override
    public synchronized void notBalanced(RingKey ring) {
        if (balancing.remove(ring) != null) {
            registerBalancing();
        }
    }

    @Override
    public synchronized void forget(RingKey ring) {
        if (assignments.remove(ring) != null) {
            registerAssignments();
        }
        if (balancing.remove(ring) != null) {
            registerBalancing();
        }
    }

    private void registerBalancing() {
        List<MultiGauge.Row<?>> loads = new ArrayList<>();
        List<MultiGauge.Row<?>> imbalances = new ArrayList<>();
        balancing.forEach((ring, balance) -> {
            Tags tags = SharderMetrics.ringTags(ring);
            imbalances.add(MultiGauge.Row.of(tags, balance.imbalance()));
            balance.load().forEach((shard, busy) -> loads.add(MultiGauge.Row.of(tags.and("shard", shard), busy)));
        });
        shardLoad.register(loads, true);
        loadImbalance.register(imbalances, true);
    }

    private void registerAssignments() {
        List<MultiGauge.Row<?>> ranges = new ArrayList<>();
        List<MultiGauge.Row<?>> shares = new ArrayList<>();
        assignments.forEach((ring, byShard) -> byShard.forEach((shard, set) -> {
            Tags tags = SharderMetrics.ringTags(ring).and("shard", shard);
            ranges.add(MultiGauge.Row.of(tags, set.ranges().size()));
            shares.add(MultiGauge.Row.of(tags, set.fraction()));
        }));
        shardRanges.register(ranges, true);
        shardRangeShare.register(shares, true);
    }

    /** The per-ring gauges for these rings, read from {@code objects} at each scrape; other rings' disappear. */
    synchronized void rings(Collection<RingKey> rings, RingObjects objects) {
        if (shardObjectRows.keySet().retainAll(rings)) {
            registerShardObjects();
        }
        if (assignments.keySet().retainAll(rings)) {
            registerAssignments();
        }
        if (balancing.keySet().retainAll(rings)) {
            registerBalancing();
        }
        if (autoscaling.keySet().retainAll(rings)) {
            registerAutoscaling();
        }
        inDrain.register(rows(rings, ring -> objects.inDrain(ring)), true);
        oldestDrain.register(rows(rings, ring -> objects.oldestDrain(ring).map(age -> age.toMillis() / 1000.0)
                .orElse(0.0)), true);
        unassigned.register(rows(rings, ring -> objects.unassigned(ring)), true);
    }

    /** Leadership ended: the per-ring gauges go, as the next leader exports them. */
    synchronized void noRings() {
        rings(List.of(), null);
    }

    private static List<MultiGauge.Row<?>> rows(Collection<RingKey> rings, ToDoubleFunction<RingKey> value) {
        return rings.stream().<MultiGauge.Row<?>>map(ring -> MultiGauge.Row.of(SharderMetrics.ringTags(ring),
                () -> value.applyAsDouble(ring))).toList();
    }
}
