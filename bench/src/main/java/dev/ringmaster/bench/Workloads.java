package dev.ringmaster.bench;

import dev.ringmaster.cli.workload.CostDistribution;
import dev.ringmaster.examples.checksum.Cost;
import dev.ringmaster.flags.Durations;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Skewed workloads for the benchmarks (issue #33): what each of N objects costs to reconcile, as the
 * example shards read it from the annotation {@value Cost#ANNOTATION}, and which namespace each is in.
 * The spec strings are {@code simulate --costs}'s ({@link CostDistribution}: {@code equal},
 * {@code zipf:S}, {@code hot:P:F}, {@code namespace-half[:M]}); a seed makes a workload repeat.
 *
 * <pre>{@code
 * Workloads.Workload workload = Workloads.of("zipf:1.1", 7, 10_000, Duration.ofMillis(20), "load");
 * client.configMaps().inNamespace(workload.namespace(i)).resource(new ConfigMapBuilder()...
 *         .addToAnnotations(workload.annotations(i))...).create();
 * for (Workloads.Workload phase : workload.step()) { ... annotate every object, measure ... }
 * }</pre>
 */
public final class Workloads {

    /** The example shards' cost annotation ({@code Cost.ANNOTATION} of {@code examples/checksum-controller}). */
    /** The namespaces objects spread over unless the spec places them ({@code namespace-half}). */
    public static final int NAMESPACES = 100;

    private Workloads() {
    }

    /**
     * A workload of {@code objects} objects: costs drawn from the spec with a mean of {@code meanCost}
     * (to the microsecond), namespaces {@code <prefix>-<index>}.
     *
     * @throws IllegalArgumentException for a spec {@link CostDistribution#parse} does not read, naming it
     */
    public static Workload of(String spec, long seed, int objects, Duration meanCost, String namespacePrefix) {
        CostDistribution distribution = CostDistribution.parse(spec);
        return new Workload(distribution.spec(), costs(distribution, seed, objects, meanCost),
                Arrays.stream(distribution.namespaces(seed, objects, NAMESPACES))
                        .mapToObj(index -> namespacePrefix + "-" + index).toArray(String[]::new));
    }

    /**
     * Each object's cost: its relative cost ({@link CostDistribution#costs}, mean 1) times
     * {@code meanCost}, rounded to the microsecond, so that the annotations stay short.
     */
    public static Duration[] costs(CostDistribution distribution, long seed, int objects, Duration meanCost) {
        if (meanCost.isNegative()) {
            throw new IllegalArgumentException("the mean cost must not be negative, got " + meanCost);
        }
        double meanMicros = meanCost.toNanos() / 1_000.0;
        return Arrays.stream(distribution.costs(seed, objects))
                .mapToObj(relative -> Duration.ofNanos(Math.round(relative * meanMicros) * 1_000))
                .toArray(Duration[]::new);
    }

    /**
     * The costs and namespaces of a workload's objects, by index.
     *
     * @param spec       the distribution's spec, as {@link CostDistribution#spec()} writes it
     * @param costs      what each reconcile of object {@code i} costs
     * @param namespaces the namespace of object {@code i}
     */
    public record Workload(String spec, Duration[] costs, String[] namespaces) {

        public Workload {
            Objects.requireNonNull(spec, "spec");
            costs = costs.clone();
            namespaces = namespaces.clone();
            if (costs.length != namespaces.length) {
                throw new IllegalArgumentException(costs.length + " costs for " + namespaces.length + " namespaces");
            }
        }

        /** A copy of the costs, by object. */
        @Override
        public Duration[] costs() {
            return costs.clone();
        }

        /** A copy of the namespaces, by object. */
        @Override
        public String[] namespaces() {
            return namespaces.clone();
        }

        public int objects() {
            return costs.length;
        }

        public Duration cost(int object) {
            return costs[object];
        }

        public String namespace(int object) {
            return namespaces[object];
        }

        /** The annotation of object {@code object}: {@value Cost#ANNOTATION} with its cost, e.g. {@code 250ms}. */
        public Map<String, String> annotations(int object) {
            return Map.of(Cost.ANNOTATION, Durations.format(costs[object]));
        }

        /** The sum of the costs: the work of one reconcile of every object. */
        public Duration total() {
            return Arrays.stream(costs).reduce(Duration.ZERO, Duration::plus);
        }

        /** The same objects, every cost times {@code numerator / denominator} (to the nanosecond, rounded down). */
        public Workload scaled(long numerator, long denominator) {
            if (numerator < 0 || denominator <= 0) {
                throw new IllegalArgumentException("scale by a non-negative fraction, not " + numerator + "/" + denominator);
            }
            return new Workload(spec, Arrays.stream(costs)
                    .map(cost -> Duration.ofNanos(Math.multiplyExact(cost.toNanos(), numerator) / denominator))
                    .toArray(Duration[]::new), namespaces);
        }

        /**
         * A load step: the phases that write every object's cost annotation, first doubled (the load ×2),
         * then halved again (÷2, back to this workload's costs exactly).
         */
        public List<Workload> step() {
            Workload doubled = scaled(2, 1);
            return List.of(doubled, doubled.scaled(1, 2));
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Workload that && spec.equals(that.spec) && Arrays.equals(costs, that.costs)
                    && Arrays.equals(namespaces, that.namespaces);
        }

        @Override
        public int hashCode() {
            return Objects.hash(spec, Arrays.hashCode(costs), Arrays.hashCode(namespaces));
        }

        @Override
        public String toString() {
            return "Workload[" + spec + ", " + costs.length + " objects, total " + total() + "]";
        }
    }
}
