package dev.ringmaster.sandbox;

import dev.ringmaster.cli.workload.CostDistribution;
import dev.ringmaster.ring.load.LoadReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The {@code balance} scenario's workload and its end: what each ConfigMap costs, the ring's balancing
 * settings, and when the shards' reported busy times count as balanced. Pure; {@link Sandbox} plays it.
 */
final class Balancing {

    /** The cost distribution over the objects ({@link CostDistribution}): skewed, but no object alone too heavy. */
    static final String COSTS = "zipf:1.1";
    /**
     * The mean cost of a reconcile, spent waiting. Each shard reconciles on one thread and every object
     * once a {@link #RESYNC}: at the default 3 shards and 100 objects a shard is busy about 0.33 s/s on
     * average, and the busiest object (a quarter of all the cost under zipf:1.1) alone about 0.25 s/s.
     * Tens of milliseconds, so that what a loaded machine adds to each reconcile is small beside it.
     */
    static final Duration MEAN_COST = Duration.ofMillis(20);
    /** The seed of the distribution: which ConfigMaps are the costly ones. */
    static final long SEED = 33;
    /** The shards' resync period: every object is reconciled, so costs its cost, once per period. */
    static final Duration RESYNC = Duration.ofSeconds(2);
    /**
     * How often the shards write their load report on their Leases: five resyncs, so that a report counts
     * each object's reconciles five times, give or take one, and the costliest object moves it little.
     */
    static final Duration LOAD_REPORT_PERIOD = Duration.ofSeconds(10);
    /** The scenario is done when the busiest shard's reported busy time is at most this many times the mean. */
    static final double BALANCED_RATIO = 1.25;
    /** {@code spec.ranges.balancing} as the sandbox sets it: short times, so it plays out in a minute or two. */
    static final Map<String, Object> SETTINGS = Map.of("maxImbalancePercent", 10, "maxMovePercent", 30,
            "intervalSeconds", 10, "stabilizationSeconds", 10);
    /** The settings for the usage and the live view. */
    static final String SETTINGS_TEXT = "maxImbalancePercent: 10, maxMovePercent: 30, intervalSeconds: 10, "
            + "stabilizationSeconds: 10";

    private Balancing() {
    }

    /** What a reconcile of each of {@code objects} ConfigMaps costs: {@link #COSTS} times {@link #MEAN_COST}, in whole microseconds. */
    static List<Duration> costs(int objects) {
        double[] relative = CostDistribution.parse(COSTS).costs(SEED, objects);
        List<Duration> costs = new ArrayList<>(objects);
        for (double cost : relative) {
            costs.add(Duration.ofNanos(Math.round(cost * MEAN_COST.toNanos() / 1000.0) * 1000));
        }
        return costs;
    }

    /** The {@code checksums.ringmaster.dev/cost} annotation of a ConfigMap costing this. */
    static String annotation(Duration cost) {
        return cost.toNanos() / 1000 + "us";
    }

    /**
     * The busy time (s/s) the objects each usable shard serves cost it: their costs over the {@link #RESYNC}
     * that reconciles each once: what the shards' busy time would be without any overhead, shown beside the
     * reports in the result.
     *
     * @param shardOf the shard serving each object (null: none)
     * @param costOf  each object's cost
     */
    static SortedMap<String, Double> load(Map<String, String> shardOf, Map<String, Duration> costOf,
            Collection<String> usable) {
        SortedMap<String, Double> load = new TreeMap<>();
        usable.forEach(shard -> load.put(shard, 0.0));
        shardOf.forEach((object, shard) -> {
            Duration cost = costOf.get(object);
            if (shard != null && cost != null && load.containsKey(shard)) {
                load.merge(shard, cost.toNanos() / (double) RESYNC.toNanos(), Double::sum);
            }
        });
        return load;
    }

    /** The busy time (s/s) a shard's {@code ringmaster.dev/load} annotation reports; empty when absent or unreadable. */
    static OptionalDouble busy(String annotation) {
        if (annotation == null || annotation.isBlank()) {
            return OptionalDouble.empty();
        }
        try {
            return OptionalDouble.of(LoadReport.parse(annotation).busy());
        } catch (IllegalArgumentException e) {
            return OptionalDouble.empty();
        }
    }

    /**
     * The busiest shard's busy time over the mean of {@code busy}; empty with no shard or no busy time at
     * all. 1 is perfectly even; with N shards it is at most N.
     */
    static OptionalDouble imbalance(Collection<Double> busy) {
        double sum = busy.stream().mapToDouble(Double::doubleValue).sum();
        if (busy.isEmpty() || sum <= 0) {
            return OptionalDouble.empty();
        }
        double max = busy.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return OptionalDouble.of(max / (sum / busy.size()));
    }

    /** {@link #imbalance} of what the {@code usable} shards reported ({@link #ofShards}). */
    static OptionalDouble imbalance(Map<String, Double> reported, Collection<String> usable) {
        return imbalance(ofShards(reported, usable).values());
    }

    /** The values of the {@code usable} shards, by shard; a shard without one is left out. */
    static SortedMap<String, Double> ofShards(Map<String, Double> reported, Collection<String> usable) {
        SortedMap<String, Double> busy = new TreeMap<>();
        usable.forEach(shard -> {
            Double value = reported.get(shard);
            if (value != null) {
                busy.put(shard, value);
            }
        });
        return busy;
    }

    /**
     * Why the ring is not balanced yet, or empty when it is: every one of {@code usable} reported its busy time,
     * the busiest is at most {@link #BALANCED_RATIO} times their mean, and the leader recorded at least one
     * {@code Balanced} Event. Judged by what the leader balances: the reports, which count each reconcile's
     * overhead too (on a loaded machine most of a shard's busy time), not only the objects' costs.
     *
     * @param reported       busy time (s/s) by shard, from the Leases' load reports
     * @param usable         the shards that run and are available
     * @param balancedEvents {@code Balanced} Events seen so far
     */
    static Optional<String> pending(Map<String, Double> reported, Collection<String> usable, int balancedEvents) {
        List<String> silent = usable.stream().filter(shard -> !reported.containsKey(shard)).toList();
        if (!silent.isEmpty()) {
            return Optional.of("no load report yet from " + String.join(", ", silent));
        }
        OptionalDouble imbalance = imbalance(reported, usable);
        if (imbalance.isEmpty()) {
            return Optional.of("no busy time reported yet");
        }
        if (imbalance.getAsDouble() > BALANCED_RATIO) {
            return Optional.of(String.format(Locale.ROOT, "busiest shard at %.2f times the mean busy time (done at"
                    + " %.2f)", imbalance.getAsDouble(), BALANCED_RATIO));
        }
        if (balancedEvents == 0) {
            return Optional.of(String.format(Locale.ROOT, "busiest shard at %.2f times the mean busy time, but no"
                    + " Balanced Event yet", imbalance.getAsDouble()));
        }
        return Optional.empty();
    }
}
