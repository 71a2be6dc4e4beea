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
     * once a {@link #RESYNC}: at the default 3 shards and 100 objects a shard is busy about 0.17 s/s on
     * average, and the busiest object (a quarter of all the cost under zipf:1.1) alone about 0.13 s/s.
     */
    static final Duration MEAN_COST = Duration.ofMillis(5);
    /** The seed of the distribution: which ConfigMaps are the costly ones. */
    static final long SEED = 33;
    /** The shards' resync period: every object is reconciled, so costs its cost, once per period. */
    static final Duration RESYNC = Duration.ofSeconds(1);
    /** How often the shards write their load report on their Leases. */
    static final Duration LOAD_REPORT_PERIOD = Duration.ofSeconds(2);
    /** The scenario is done when the busiest shard is at most this many times the mean busy time. */
    static final double BALANCED_RATIO = 1.25;
    /** {@code spec.ranges.balancing} as the sandbox sets it: short times, so it plays out in a minute or two. */
    static final Map<String, Object> SETTINGS = Map.of("maxImbalancePercent", 10, "maxMovePercent", 30,
            "intervalSeconds", 5, "stabilizationSeconds", 5);
    /** The settings for the usage and the live view. */
    static final String SETTINGS_TEXT = "maxImbalancePercent: 10, maxMovePercent: 30, intervalSeconds: 5, "
            + "stabilizationSeconds: 5";

    private Balancing() {
    }

    /**
     * The {@code checksums.ringmaster.dev/cost} annotation of each of {@code objects} ConfigMaps: their
     * relative costs from {@link #COSTS} times {@link #MEAN_COST}, in whole microseconds.
     */
    static List<String> costAnnotations(int objects) {
        double[] costs = CostDistribution.parse(COSTS).costs(SEED, objects);
        List<String> annotations = new ArrayList<>(objects);
        for (double cost : costs) {
            annotations.add(Math.round(cost * MEAN_COST.toNanos() / 1000.0) + "us");
        }
        return annotations;
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

    /** The reported busy times of the {@code usable} shards, by shard; a shard without a report is left out. */
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
     * Why the ring is not balanced yet, or empty when it is: every one of {@code usable} reported a busy
     * time, the busiest is within {@link #BALANCED_RATIO} of their mean, and the leader recorded at least
     * one {@code Balanced} Event.
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
        OptionalDouble imbalance = imbalance(ofShards(reported, usable).values());
        if (imbalance.isEmpty()) {
            return Optional.of("no busy time reported yet");
        }
        if (imbalance.getAsDouble() > BALANCED_RATIO) {
            return Optional.of(String.format(Locale.ROOT, "busiest shard at %.2f times the mean busy time (done at %.2f)",
                    imbalance.getAsDouble(), BALANCED_RATIO));
        }
        if (balancedEvents == 0) {
            return Optional.of(String.format(Locale.ROOT, "busiest shard at %.2f times the mean, but no Balanced"
                    + " Event yet", imbalance.getAsDouble()));
        }
        return Optional.empty();
    }
}
