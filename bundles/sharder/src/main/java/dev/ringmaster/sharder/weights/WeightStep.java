package dev.ringmaster.sharder.weights;

import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.sharder.model.RingBalancingStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One load step of a label-mode ring weighed by load (docs/design.md section 10.2): new shard weights, tried on the
 * ring's objects before they are set, each object at its estimated cost ({@link ObjectCosts}): the weights of busy
 * shards go down and of idle ones up, one shard at a time, as long as the objects the new weights move stay within the
 * budget. Pure: the strategy's ring for given weights comes from the caller.
 */
final class WeightStep {

    /** Rounds of the search per step. */
    private static final int ROUNDS = 24;
    /** How much a try changes one shard's weight, as a share of it. */
    private static final double[] CHANGES = {0.1, 0.25, 0.5};
    /** An expected gain smaller than this is not worth moving objects for. */
    private static final double WORTHWHILE = 0.005;

    /** An object of the ring: its partition key, the shard its label names (null: none) and its estimated cost. */
    record Item(String key, String owner, double cost) {
    }

    /**
     * A step's outcome.
     *
     * @param percents        each available shard's weight in percent of its Lease's
     * @param imbalanceBefore the busiest shard's reported load over the mean
     * @param imbalanceAfter  the same as estimated under {@code percents}
     * @param moved           objects whose shard the new weights change
     * @param objects         objects of the ring
     */
    record Outcome(Map<String, Integer> percents, double imbalanceBefore, double imbalanceAfter, int moved,
            int objects) {

        double movedShare() {
            return objects == 0 ? 0 : (double) moved / objects;
        }

        /** One line for the ring's Events and the log. */
        String reason() {
            return String.format(Locale.ROOT, "shard weights %s: the busiest shard at %.2f times the mean load, %.2f"
                    + " expected; moves %d of %d objects (%.1f%%)", percents.entrySet().stream()
                    .map(entry -> entry.getKey() + "=" + entry.getValue() + "%").collect(Collectors.joining(", ", "{", "}")),
                    imbalanceBefore, imbalanceAfter, moved, objects, 100 * movedShare());
        }
    }

    private final List<Item> objects;
    private final List<String> shards;
    private final Function<Map<String, Integer>, ShardRing> ringFor;

    /**
     * @param objects the ring's objects, all placed where the current weights put them
     * @param shards  the available shards
     * @param ringFor the strategy's ring over the available shards at the given weights
     */
    WeightStep(List<Item> objects, Collection<String> shards, Function<Map<String, Integer>, ShardRing> ringFor) {
        this.objects = List.copyOf(objects);
        this.shards = shards.stream().sorted().distinct().toList();
        this.ringFor = ringFor;
    }

    /**
     * The weights to set, if any change is worth it: a greedy search from {@code percents} over the objects at their
     * estimated costs. Each round tries, for every shard above the mean, its weight a tenth, a quarter and a half
     * lower, and for every shard below it as much higher, and keeps the try that leaves the busiest shard the least
     * busy, as long as it moves at most {@code maxMoved} of the objects in all; the search ends within
     * {@code maxImbalance}, or when no try helps. A try is judged by where it puts every object, not by the weight
     * alone, so a costly object that a new weight would carry to another shard counts there.
     */
    Optional<Outcome> next(Map<String, Integer> percents, Map<String, Double> busy, double maxImbalance,
            double maxMoved) {
        double before = imbalance(busy);
        if (before <= maxImbalance) {
            return Optional.empty();
        }
        long budget = (long) Math.floor(maxMoved * objects.size());
        Estimate current = estimate(neutralWhereMissing(percents));
        Estimate start = current;
        for (int round = 0; round < ROUNDS && current.imbalance() > maxImbalance; round++) {
            Estimate best = null;
            for (Map<String, Integer> tried : tries(current)) {
                Estimate estimate = estimate(tried);
                if (estimate.moved() <= budget && (best == null || estimate.imbalance() < best.imbalance()
                        || estimate.imbalance() == best.imbalance() && estimate.moved() < best.moved())) {
                    best = estimate;
                }
            }
            if (best == null || best.imbalance() > current.imbalance() - WORTHWHILE) {
                break;
            }
            current = best;
        }
        if (current == start) {
            return Optional.empty();
        }
        return Optional.of(new Outcome(current.percents(), before, current.imbalance(), current.moved(),
                objects.size()));
    }

    private Map<String, Integer> neutralWhereMissing(Map<String, Integer> percents) {
        Map<String, Integer> complete = new TreeMap<>();
        shards.forEach(shard -> complete.put(shard, percents.getOrDefault(shard, RingBalancingStatus.NEUTRAL_PERCENT)));
        return complete;
    }

    /** Each shard's weight moved towards the mean by each of the {@link #CHANGES}, one shard at a time. */
    private List<Map<String, Integer>> tries(Estimate from) {
        double mean = from.load().values().stream().mapToDouble(Double::doubleValue).average().orElse(0);
        List<Map<String, Integer>> tries = new ArrayList<>();
        for (String shard : shards) {
            double load = from.load().get(shard);
            if (load == mean) {
                continue;
            }
            for (double change : CHANGES) {
                int percent = from.percents().get(shard);
                long next = Math.round(percent * (load > mean ? 1 - change : 1 + change));
                int held = (int) Math.max(RingBalancingStatus.MIN_PERCENT, Math.min(RingBalancingStatus.MAX_PERCENT, next));
                if (held != percent) {
                    Map<String, Integer> tried = new TreeMap<>(from.percents());
                    tried.put(shard, held);
                    tries.add(tried);
                }
            }
        }
        return tries;
    }

    private record Estimate(Map<String, Integer> percents, Map<String, Double> load, double imbalance, int moved) {
    }

    /** Where the objects go at {@code percents}, the load each shard would have, and how many move. */
    private Estimate estimate(Map<String, Integer> percents) {
        ShardRing ring = ringFor.apply(percents);
        Map<String, Double> load = new TreeMap<>();
        shards.forEach(shard -> load.put(shard, 0.0));
        int moved = 0;
        for (Item item : objects) {
            String shard = ring.shardFor(item.key()).orElseThrow();
            load.merge(shard, item.cost(), Double::sum);
            if (!shard.equals(item.owner())) {
                moved++;
            }
        }
        return new Estimate(percents, load, imbalance(load), moved);
    }

    /** The busiest shard's load over the mean; 1 for no load. */
    static double imbalance(Map<String, Double> load) {
        double mean = load.values().stream().mapToDouble(Double::doubleValue).average().orElse(0);
        double most = load.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return mean <= 0 ? 1 : most / mean;
    }
}
