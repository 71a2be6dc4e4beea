package dev.ringmaster.cli.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The spec strings and the costs they give. Sums and maxima are pinned by formulas of their own, not by
 * the code's loops: for Zipf, the generalized harmonic number from the Hurwitz zeta function.
 */
class CostDistributionTest {

    /** ζ(1.1), from a table (mpmath.zeta(1.1) to 18 digits). */
    private static final double ZETA_1_1 = 10.584448464950809826;
    private static final long SEED = 42;

    /**
     * H(N, s) = ζ(s) − ζ(s, N + 1), the tail ζ(s, a) by Euler–Maclaurin:
     * a^(1−s)/(s−1) + a^(−s)/2 + s·a^(−s−1)/12 − s(s+1)(s+2)·a^(−s−3)/720.
     */
    private static double harmonic(int n, double s, double zeta) {
        double a = n + 1;
        double tail = Math.pow(a, 1 - s) / (s - 1) + Math.pow(a, -s) / 2 + s * Math.pow(a, -s - 1) / 12
                - s * (s + 1) * (s + 2) * Math.pow(a, -s - 3) / 720;
        return zeta - tail;
    }

    @Test
    void theHarmonicNumberOfTheTestIsRight() {
        // mpmath: zeta(1.1) - zeta(1.1, 1001) = 5.57282667635274116...
        assertThat(harmonic(1000, 1.1, ZETA_1_1)).isCloseTo(5.572826676352741, within(1e-12));
    }

    @Test
    void zipfCostsFallWithTheRankAndAverageOne() {
        int n = 1000;
        double[] costs = CostDistribution.parse("zipf:1.1").costs(SEED, n);
        double h = harmonic(n, 1.1, ZETA_1_1);

        assertThat(Arrays.stream(costs).sum()).isCloseTo(n, within(1e-9));
        assertThat(Arrays.stream(costs).max().orElseThrow()).isCloseTo(n / h, within(1e-9)); // 179.44
        assertThat(n / h).isCloseTo(179.4421, within(1e-4));
        double[] byRank = costs.clone();
        Arrays.sort(byRank);
        for (int rank = 1; rank <= n; rank++) {
            assertThat(byRank[n - rank]).isCloseTo(n * Math.pow(rank, -1.1) / h, within(1e-9));
        }
    }

    @Test
    void theSeedShufflesTheRanksOverTheObjects() {
        CostDistribution zipf = CostDistribution.parse("zipf:1.1");
        double[] costs = zipf.costs(SEED, 1000);
        assertThat(zipf.costs(SEED, 1000)).as("the same seed, the same workload").containsExactly(costs);
        assertThat(zipf.costs(SEED + 1, 1000)).isNotEqualTo(costs);
        // pinned: java.util.Random's algorithm is specified, so these hold on every JVM; computed apart from
        // this code by a Python rendering of that algorithm (its 48-bit LCG, nextInt, a Fisher-Yates shuffle)
        assertThat(argMax(costs)).as("rank 1").isEqualTo(572);
        assertThat(costs[0]).as("rank 254").isCloseTo(1000 * Math.pow(254, -1.1) / harmonic(1000, 1.1, ZETA_1_1),
                within(1e-9)).isCloseTo(0.40607605, within(1e-8));
    }

    @Test
    void hotObjectsCostFTimesTheOthers() {
        int n = 1000;
        CostDistribution hot = CostDistribution.parse("hot:1:100");
        double[] costs = hot.costs(SEED, n);
        // 10 objects at 100 c, 990 at c, mean 1: c = 1000 / (10 * 100 + 990)
        double cold = 1000.0 / 1990;
        assertThat(hot.hotObjects(n)).isEqualTo(10);
        assertThat(Arrays.stream(costs).sum()).isCloseTo(n, within(1e-9));
        assertThat(Arrays.stream(costs).filter(c -> Math.abs(c - 100 * cold) < 1e-12).count()).isEqualTo(10);
        assertThat(Arrays.stream(costs).filter(c -> Math.abs(c - cold) < 1e-12).count()).isEqualTo(990);
        assertThat(Arrays.stream(costs).max().orElseThrow()).isCloseTo(50.251256, within(1e-6));
        // the first 10 of the same shuffle as the Zipf ranks of that seed (pinned as there)
        assertThat(hotIndexes(costs, cold)).containsExactly(6, 25, 101, 525, 569, 572, 636, 653, 892, 905);

        assertThat(CostDistribution.parse("hot:0.5:3").hotObjects(10)).as("at least one").isEqualTo(1);
        assertThat(CostDistribution.parse("hot:100:3").costs(1, 4)).containsOnly(1.0);
        assertThat(CostDistribution.parse("hot:50:0.5").costs(1, 4)).containsExactlyInAnyOrder(
                2 / 1.5, 2 / 1.5, 1 / 1.5, 1 / 1.5);
    }

    @Test
    void equalCostsAreAllOne() {
        assertThat(CostDistribution.parse("equal").costs(SEED, 5)).containsExactly(1, 1, 1, 1, 1);
        assertThat(CostDistribution.parse("zipf:0").costs(SEED, 3)).containsExactly(1, 1, 1);
        assertThat(CostDistribution.parse("equal").costs(SEED, 0)).isEmpty();
        assertThat(CostDistribution.parse("namespace-half").costs(SEED, 2)).containsExactly(1, 1);
    }

    @Test
    void namespaceHalfPutsHalfTheObjectsInOneNamespaceAndSpreadsTheRest() {
        CostDistribution half = CostDistribution.parse("namespace-half");
        assertThat(half.placesNamespaces()).isTrue();
        int[] namespaces = half.namespaces(SEED, 1001, 100);
        Map<Integer, Integer> counts = new TreeMap<>();
        Arrays.stream(namespaces).forEach(ns -> counts.merge(ns, 1, Integer::sum));
        assertThat(counts.get(0)).isEqualTo(501);
        assertThat(counts.keySet()).hasSize(100).allSatisfy(ns -> assertThat(ns).isBetween(0, 99));
        // 500 over 99: 5 or 6 each
        assertThat(counts.entrySet().stream().filter(e -> e.getKey() > 0).map(Map.Entry::getValue))
                .allSatisfy(count -> assertThat(count).isBetween(5, 6));
        assertThat(half.namespaces(SEED, 1001, 100)).containsExactly(namespaces);
        int[] few = CostDistribution.parse("namespace-half:3").namespaces(SEED, 8, 100);
        assertThat(few).containsOnly(0, 1, 2, 3);
        assertThat(Arrays.stream(few).filter(ns -> ns == 0).count()).isEqualTo(4);

        CostDistribution zipf = CostDistribution.parse("zipf:1.1");
        assertThat(zipf.placesNamespaces()).isFalse();
        assertThat(zipf.namespaces(SEED, 5, 3)).as("the usual spread").containsExactly(0, 1, 2, 0, 1);
    }

    @Test
    void specsAreWrittenBackAsTheyAreRead() {
        for (String spec : List.of("equal", "zipf:1.1", "zipf:2", "hot:1:100", "hot:0.5:2.5", "namespace-half:99")) {
            assertThat(CostDistribution.parse(spec).spec()).isEqualTo(spec);
            assertThat(CostDistribution.parse(spec)).isEqualTo(CostDistribution.parse(CostDistribution.parse(spec).spec()));
        }
        assertThat(CostDistribution.parse("namespace-half").spec()).isEqualTo("namespace-half:99");
        assertThat(CostDistribution.parse("zipf:1.10")).isEqualTo(CostDistribution.parse("zipf:1.1"));
    }

    @Test
    void aBadSpecIsOneLineSayingWhatWasExpected() {
        assertBad("", "'' is not a cost distribution: use equal, zipf:S, hot:P:F or namespace-half[:M]");
        assertBad("pareto:2", "'pareto:2' is not a cost distribution: use equal, zipf:S, hot:P:F or namespace-half[:M]");
        assertBad("Zipf:1", "'Zipf:1' is not a cost distribution: use equal, zipf:S, hot:P:F or namespace-half[:M]");
        assertBad("equal:2", "'equal:2' is not a cost distribution: write equal");
        assertBad("zipf", "'zipf' is not a cost distribution: write zipf:S, S the exponent, e.g. zipf:1.1");
        assertBad("zipf:1:2", "'zipf:1:2' is not a cost distribution: write zipf:S, S the exponent, e.g. zipf:1.1");
        assertBad("zipf:x", "'zipf:x': the exponent S must be a number, not 'x'");
        assertBad("zipf:", "'zipf:': the exponent S must be a number, not ''");
        assertBad("zipf:-1", "'zipf:-1': the exponent S must be a number, not '-1'");
        assertBad("zipf:NaN", "'zipf:NaN': the exponent S must be a number, not 'NaN'");
        assertBad("zipf:11", "'zipf:11': the exponent S must be from 0 to 10");
        assertBad("hot:1", "'hot:1' is not a cost distribution: write hot:P:F, P % of the objects at F times the cost, e.g. hot:1:100");
        assertBad("hot:0:100", "'hot:0:100': the percentage P must be more than 0 and at most 100");
        assertBad("hot:101:2", "'hot:101:2': the percentage P must be more than 0 and at most 100");
        assertBad("hot:1:0", "'hot:1:0': the factor F must be more than 0");
        assertBad("hot:1:1e3", "'hot:1:1e3': the factor F must be a number, not '1e3'");
        assertBad("namespace-half:0", "'namespace-half:0': the other namespaces M must be a whole number from 1 to 100000");
        assertBad("namespace-half:x", "'namespace-half:x': the other namespaces M must be a whole number from 1 to 100000");
        assertBad("namespace-half:1:2", "'namespace-half:1:2' is not a cost distribution: write namespace-half or"
                + " namespace-half:M, M the other namespaces");
    }

    private static void assertBad(String spec, String message) {
        assertThatThrownBy(() -> CostDistribution.parse(spec)).as(spec).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    private static int argMax(double[] values) {
        int best = 0;
        for (int i = 1; i < values.length; i++) {
            if (values[i] > values[best]) {
                best = i;
            }
        }
        return best;
    }

    private static List<Integer> hotIndexes(double[] costs, double cold) {
        return IntStream.range(0, costs.length).filter(i -> costs[i] > cold * 1.5).boxed().toList();
    }
}
