package dev.ringmaster.cli.workload;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Objects;
import java.util.Random;
import java.util.regex.Pattern;

/**
 * How a workload spreads over N objects what reconciling them costs (and, for one kind, which
 * namespaces they are in), from a spec string such as {@code zipf:1.1}; the same strings for
 * {@code ringmaster simulate --costs} and the bench ({@code dev.ringmaster.bench.Workloads}):
 *
 * <ul>
 *   <li>{@code equal}: every object costs the same;</li>
 *   <li>{@code zipf:S}: the object of rank k costs in proportion to 1/k^S (S from 0 to 10), the ranks
 *       shuffled over the objects;</li>
 *   <li>{@code hot:P:F}: P % of the objects (more than 0, at most 100; at least one object) cost F times
 *       what each of the others costs (F more than 0);</li>
 *   <li>{@code namespace-half} or {@code namespace-half:M}: equal costs, but half the objects (rounded
 *       up) are in one namespace, index 0, and the others spread evenly over M more, indexes 1 to M
 *       (default 99: 100 namespaces in all).</li>
 * </ul>
 *
 * <p>Costs are relative: their mean is exactly 1 (up to rounding), so a shard's load is the number of
 * objects of mean cost it carries; scale by a duration for real costs. Everything random comes from
 * {@link Random} with the seed given, whose algorithm the JDK specifies, so a seed gives the same
 * workload on every JVM. Immutable.
 */
public final class CostDistribution {

    /** The kinds of spec. */
    public enum Kind { EQUAL, ZIPF, HOT, NAMESPACE_HALF }

    /** What a message shows after a spec it could not read. */
    public static final String FORMS = "equal, zipf:S, hot:P:F or namespace-half[:M]";
    /** The namespaces beside the hot one of {@code namespace-half} when the spec does not say. */
    public static final int DEFAULT_OTHER_NAMESPACES = 99;
    private static final double MAX_EXPONENT = 10;
    private static final int MAX_OTHER_NAMESPACES = 100_000;
    private static final Pattern DECIMAL = Pattern.compile("[0-9]{1,9}(\\.[0-9]{1,9})?|\\.[0-9]{1,9}");

    private final Kind kind;
    /** zipf: the exponent S; hot: the percentage P; namespace-half: M. */
    private final double first;
    /** hot: the factor F. */
    private final double second;

    private CostDistribution(Kind kind, double first, double second) {
        this.kind = kind;
        this.first = first;
        this.second = second;
    }

    /** Every object at the same cost. */
    public static CostDistribution equal() {
        return new CostDistribution(Kind.EQUAL, 0, 0);
    }

    /**
     * The distribution a spec names.
     *
     * @throws IllegalArgumentException naming the spec and what was expected, in one line
     */
    public static CostDistribution parse(String spec) {
        Objects.requireNonNull(spec, "spec");
        String[] parts = spec.split(":", -1);
        switch (parts[0]) {
            case "equal" -> {
                expectParts(spec, parts, 1, "equal");
                return equal();
            }
            case "zipf" -> {
                expectParts(spec, parts, 2, "zipf:S, S the exponent, e.g. zipf:1.1");
                double exponent = number(spec, parts[1], "the exponent S");
                if (exponent < 0 || exponent > MAX_EXPONENT) {
                    throw new IllegalArgumentException("'" + spec + "': the exponent S must be from 0 to " + (int) MAX_EXPONENT);
                }
                return new CostDistribution(Kind.ZIPF, exponent, 0);
            }
            case "hot" -> {
                expectParts(spec, parts, 3, "hot:P:F, P % of the objects at F times the cost, e.g. hot:1:100");
                double percent = number(spec, parts[1], "the percentage P");
                double factor = number(spec, parts[2], "the factor F");
                if (percent <= 0 || percent > 100) {
                    throw new IllegalArgumentException("'" + spec + "': the percentage P must be more than 0 and at most 100");
                }
                if (factor <= 0) {
                    throw new IllegalArgumentException("'" + spec + "': the factor F must be more than 0");
                }
                return new CostDistribution(Kind.HOT, percent, factor);
            }
            case "namespace-half" -> {
                if (parts.length == 1) {
                    return new CostDistribution(Kind.NAMESPACE_HALF, DEFAULT_OTHER_NAMESPACES, 0);
                }
                expectParts(spec, parts, 2, "namespace-half or namespace-half:M, M the other namespaces");
                int others;
                try {
                    others = Integer.parseInt(parts[1]);
                } catch (NumberFormatException e) {
                    others = 0;
                }
                if (others < 1 || others > MAX_OTHER_NAMESPACES) {
                    throw new IllegalArgumentException("'" + spec + "': the other namespaces M must be a whole number from 1 to "
                            + MAX_OTHER_NAMESPACES);
                }
                return new CostDistribution(Kind.NAMESPACE_HALF, others, 0);
            }
            default -> throw new IllegalArgumentException("'" + spec + "' is not a cost distribution: use " + FORMS);
        }
    }

    private static void expectParts(String spec, String[] parts, int count, String form) {
        if (parts.length != count) {
            throw new IllegalArgumentException("'" + spec + "' is not a cost distribution: write " + form);
        }
    }

    private static double number(String spec, String text, String what) {
        if (!DECIMAL.matcher(text).matches()) {
            throw new IllegalArgumentException("'" + spec + "': " + what + " must be a number, not '" + text + "'");
        }
        return Double.parseDouble(text);
    }

    public Kind kind() {
        return kind;
    }

    /** Whether the spec places the objects in namespaces of its own ({@link #namespaces}). */
    public boolean placesNamespaces() {
        return kind == Kind.NAMESPACE_HALF;
    }

    /**
     * The relative cost of each of {@code objects} objects: mean 1, so the sum is {@code objects} (up to
     * floating-point rounding).
     *
     * @param seed decides which objects get which ranks ({@code zipf}) or are hot ({@code hot})
     */
    public double[] costs(long seed, int objects) {
        if (objects < 0) {
            throw new IllegalArgumentException("objects must not be negative, got " + objects);
        }
        double[] costs = new double[objects];
        switch (kind) {
            case ZIPF -> {
                double harmonic = 0;
                // the small terms first: fewer rounding errors
                for (int rank = objects; rank >= 1; rank--) {
                    harmonic += Math.pow(rank, -first);
                }
                int[] order = shuffled(new Random(seed), objects);
                for (int rank = 1; rank <= objects; rank++) {
                    costs[order[rank - 1]] = objects * Math.pow(rank, -first) / harmonic;
                }
            }
            case HOT -> {
                int hot = hotObjects(objects);
                double cold = objects / (hot * second + (objects - hot));
                Arrays.fill(costs, cold);
                int[] order = shuffled(new Random(seed), objects);
                for (int i = 0; i < hot; i++) {
                    costs[order[i]] = cold * second;
                }
            }
            default -> Arrays.fill(costs, 1.0);
        }
        return costs;
    }

    /** {@code hot:P:F}: how many of {@code objects} are hot, P % of them rounded, at least one. */
    public int hotObjects(int objects) {
        if (kind != Kind.HOT) {
            return 0;
        }
        return objects == 0 ? 0 : (int) Math.min(objects, Math.max(1, Math.round(objects * first / 100)));
    }

    /**
     * The namespace of each object as an index: with {@code namespace-half}, 0 for the half (rounded up)
     * the seed picks and 1 to M, evenly, for the others; for the other kinds {@code i mod namespaces},
     * the objects' usual spread.
     *
     * @param namespaces the namespaces of the usual spread (positive)
     */
    public int[] namespaces(long seed, int objects, int namespaces) {
        if (namespaces < 1) {
            throw new IllegalArgumentException("namespaces must be positive, got " + namespaces);
        }
        int[] placed = new int[objects];
        if (kind != Kind.NAMESPACE_HALF) {
            for (int i = 0; i < objects; i++) {
                placed[i] = i % namespaces;
            }
            return placed;
        }
        int others = (int) first;
        int hot = (objects + 1) / 2;
        int[] order = shuffled(new Random(seed), objects);
        for (int i = hot; i < objects; i++) {
            placed[order[i]] = 1 + (i - hot) % others;
        }
        return placed;
    }

    /** 0 … n-1 in the order of a Fisher-Yates shuffle with {@code random}. */
    private static int[] shuffled(Random random, int n) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        return order;
    }

    /** The spec, written as {@link #parse} reads it: {@code zipf:1.1}, {@code hot:1:100}, {@code namespace-half:99}. */
    public String spec() {
        return switch (kind) {
            case EQUAL -> "equal";
            case ZIPF -> "zipf:" + decimal(first);
            case HOT -> "hot:" + decimal(first) + ":" + decimal(second);
            case NAMESPACE_HALF -> "namespace-half:" + (int) first;
        };
    }

    private static String decimal(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : BigDecimal.valueOf(value).toPlainString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CostDistribution that && kind == that.kind
                && Double.compare(first, that.first) == 0 && Double.compare(second, that.second) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, first, second);
    }

    @Override
    public String toString() {
        return spec();
    }
}
