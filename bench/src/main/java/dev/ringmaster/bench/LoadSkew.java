package dev.ringmaster.bench;

import dev.ringmaster.cli.workload.CostDistribution;
import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * An offline orientation for load-aware sharding (issue #33): how unevenly hash placement spreads load
 * when objects cost differently. {@code --objects} objects get random 64-bit hashes (seeded), the
 * {@code --shards} shards the ranges {@link RangePlacement#place} gives them over {@code --buckets} buckets,
 * and each shard's load is the sum of its objects' costs ({@link CostDistribution}, one line per spec of
 * {@code --costs}). Printed per spec: the most-loaded shard over the mean, median and 90th percentile
 * over {@code --seeds} seeds (seed i draws both the hashes and the costs).
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.ringmaster.bench.LoadSkew [--objects 10000] [--shards 6]
 *     [--buckets 64] [--seeds 200] [--costs equal,zipf:1.1,hot:1:100]
 * </pre>
 */
public final class LoadSkew {

    private LoadSkew() {
    }

    public static void main(String[] args) {
        BenchArgs flags = BenchArgs.parse(LoadSkew.class, args, "objects", "shards", "buckets", "seeds", "costs");
        int objects = flags.integer("objects", 10_000);
        int shards = flags.integer("shards", 6);
        int buckets = flags.integer("buckets", RangePlacement.DEFAULT_BUCKETS);
        int seeds = flags.integer("seeds", 200);
        List<CostDistribution> specs = new ArrayList<>();
        for (String spec : flags.string("costs", "equal,zipf:1.1,hot:1:100").split(",", -1)) {
            try {
                specs.add(CostDistribution.parse(spec));
            } catch (IllegalArgumentException e) {
                throw flags.usageError("--costs " + e.getMessage());
            }
        }
        if (objects < 1 || shards < 1 || seeds < 1) {
            throw flags.usageError("--objects, --shards and --seeds must be positive");
        }
        Map<String, RangeSet> placement;
        try {
            placement = placement(shards, buckets);
        } catch (IllegalArgumentException e) {
            throw flags.usageError("--buckets: " + e.getMessage());
        }
        System.out.printf(Locale.ROOT, "%d objects (random 64-bit hashes), %d shards, RangePlacement.place(shards, %d),"
                + " %d seeds%n%-14s %22s %22s%n", objects, shards, buckets, seeds, "COSTS", "MOST-LOADED/MEAN p50",
                "p90");
        for (CostDistribution spec : specs) {
            double[] ratios = new double[seeds];
            for (int seed = 0; seed < seeds; seed++) {
                ratios[seed] = mostLoadedToMean(spec, seed, objects, placement);
            }
            System.out.printf(Locale.ROOT, "%-14s %22.3f %22.3f%n", spec.spec(), percentile(ratios, 50), percentile(ratios, 90));
        }
    }

    /** The ranges of {@code shard-0 … shard-(shards-1)} over {@code buckets} buckets. */
    static Map<String, RangeSet> placement(int shards, int buckets) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < shards; i++) {
            names.add("shard-" + i);
        }
        return RangePlacement.place(names, buckets);
    }

    /**
     * The most-loaded shard's load over the mean load of the shards, for {@code objects} objects whose hashes
     * {@link SplittableRandom} draws from {@code seed} and whose costs {@code costs} draws from the same seed.
     */
    static double mostLoadedToMean(CostDistribution costs, long seed, int objects, Map<String, RangeSet> placement) {
        double[] cost = costs.costs(seed, objects);
        SplittableRandom hashes = new SplittableRandom(seed);
        List<RangeSet> ranges = List.copyOf(placement.values());
        double[] load = new double[ranges.size()];
        for (int i = 0; i < objects; i++) {
            long hash = hashes.nextLong();
            for (int shard = 0; shard < ranges.size(); shard++) {
                if (ranges.get(shard).contains(hash)) {
                    load[shard] += cost[i];
                    break;
                }
            }
        }
        double total = Arrays.stream(load).sum();
        return Arrays.stream(load).max().orElseThrow() / (total / load.length);
    }

    /** The nearest-rank percentile {@code p} of {@code values}. */
    static double percentile(double[] values, int p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }
}
