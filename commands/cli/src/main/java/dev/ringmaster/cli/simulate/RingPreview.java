package dev.ringmaster.cli.simulate;

import dev.ringmaster.cli.simulate.RingPreviewResult.ShardCounts;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.sharder.survey.RingSurvey;
import dev.ringmaster.sharder.survey.SurveyedObject;
import dev.ringmaster.sharder.survey.SurveyedShard;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Places a surveyed ring's objects with the strategy in force and with a candidate, over the ring's
 * available shards, and compares the two with each other and the current one with the objects'
 * labels. Main objects are counted per shard; a controlled object follows its owner, so it is only
 * counted, and counted as moving when its owner's key moves.
 */
final class RingPreview {

    /**
     * A strategy's placement of the ring.
     *
     * @param strategy the strategy's name
     * @param source   where the name comes from, for the reader
     * @param ring     the strategy's ring over the ring's available shards
     */
    record Placement(String strategy, String source, ShardRing ring) {
        Placement {
            Objects.requireNonNull(strategy, "strategy");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(ring, "ring");
        }
    }

    /**
     * The strategy in force and where its name comes from: the option, else the one the sharder
     * reports in force in the ring's Ready condition (its default when the ring names none, or an
     * earlier strategy while the one the ring names is missing), else the ring's {@code spec.strategy},
     * else the built-in default.
     */
    static Map.Entry<String, String> strategyInForce(Optional<String> option, RingSurvey survey) {
        if (option.isPresent()) {
            return Map.entry(option.get(), "--current-strategy");
        }
        if (survey.reportedStrategy().isPresent()) {
            return Map.entry(survey.reportedStrategy().get(), "in force, as the ring's Ready condition says");
        }
        return survey.specStrategy().map(name -> Map.entry(name, "spec.strategy"))
                .orElse(Map.entry(RingContract.DEFAULT_STRATEGY,
                        "the built-in default: the ring names none and its Ready condition does not say"));
    }

    /** One shard's counts while they are being made. */
    private static final class Row {
        final String state;
        final String sharderState;
        int labelled;
        int current;
        int candidate;

        Row(String state, String sharderState) {
            this.state = state;
            this.sharderState = sharderState;
        }

        ShardCounts counts() {
            return new ShardCounts(state, sharderState, labelled, current, candidate);
        }
    }

    private final Map<String, Row> rows = new LinkedHashMap<>();
    private final Set<String> available = new HashSet<>();
    /** Shards objects are labelled with that have no Lease; listed after the others, by name. */
    private final Map<String, Row> leaseless = new TreeMap<>();
    private int objects;
    private int controlled;
    private int unkeyed;
    private int moved;
    private int controlledMoved;
    private int elsewhere;
    private int draining;
    private int unassigned;

    private RingPreview(RingSurvey survey) {
        survey.shards().forEach(shard -> rows.put(shard.name(), new Row(shard.state().label(),
                shard.sharderState().map(ShardState::label).orElse(""))));
        survey.availableShards().forEach(shard -> available.add(shard.name()));
    }

    static RingPreviewResult run(RingSurvey survey, Placement current, Placement candidate) {
        RingPreview preview = new RingPreview(survey);
        survey.objects().forEach(object -> preview.count(object, current, candidate));
        Map<String, ShardCounts> perShard = new LinkedHashMap<>();
        preview.rows.forEach((shard, row) -> perShard.put(shard, row.counts()));
        preview.leaseless.forEach((shard, row) -> perShard.put(shard, row.counts()));
        return new RingPreviewResult(survey.ring(), current.strategy(), current.source(), candidate.strategy(),
                survey.shards().size(), preview.available.size(),
                preview.objects, preview.controlled, preview.unkeyed, preview.moved, preview.controlledMoved,
                preview.elsewhere, preview.draining, preview.unassigned, perShard,
                survey.shards().stream().filter(SurveyedShard::judgedOtherwiseBySharder).map(SurveyedShard::name).toList(),
                survey.unservedResources());
    }

    /**
     * The row of the shard a strategy placed an object on.
     *
     * @throws IllegalStateException if the strategy placed it on a shard that is not available
     */
    private Row placedOn(String shard, String strategy) {
        Row row = available.contains(shard) ? rows.get(shard) : null;
        if (row == null) {
            throw new IllegalStateException("strategy " + strategy + " placed an object on " + shard
                    + ", which is not an available shard of the ring");
        }
        return row;
    }

    private void count(SurveyedObject object, Placement current, Placement candidate) {
        if (!(object.key() instanceof PartitionKey.Key key)) {
            unkeyed++;
            return;
        }
        Optional<String> before = current.ring().shardFor(key.value());
        Optional<String> after = candidate.ring().shardFor(key.value());
        boolean moves = !before.equals(after);
        if (object.role() == Role.CONTROLLED) {
            controlled++;
            controlledMoved += moves ? 1 : 0;
            return;
        }
        objects++;
        moved += moves ? 1 : 0;
        before.ifPresent(shard -> placedOn(shard, current.strategy()).current++);
        after.ifPresent(shard -> placedOn(shard, candidate.strategy()).candidate++);
        if (!object.isAssigned()) {
            unassigned++;
            return;
        }
        Row labelled = rows.get(object.shard());
        (labelled != null ? labelled : leaseless.computeIfAbsent(object.shard(), name -> new Row(ShardCounts.NO_LEASE, "")))
                .labelled++;
        if (object.draining()) {
            draining++;
        } else if (before.isPresent() && !before.get().equals(object.shard())) {
            elsewhere++;
        }
    }
}
