package dev.ringmaster.bench;

import dev.ringmaster.ring.balancer.LoadAwarePolicy;
import dev.ringmaster.ring.load.CellLoad;
import dev.ringmaster.ring.load.LoadMap;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.ring.spi.Placement;
import dev.ringmaster.ring.spi.PlacementRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;

/**
 * The {@code load-aware} placement policy (bundle ring-balancer) at its largest grid, 4096 buckets over 16 shards,
 * as the sharder's leader calls it: a membership pass that fills a joining 16th shard under equal costs, and a
 * load step over Zipf-distributed work (s = 1.1, 100,000 objects) from the rendezvous placement.
 */
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class PlacementPolicyBenchmark extends InProcessBenchmark {

    private static final int BUCKETS = 4096;

    private final LoadAwarePolicy policy = new LoadAwarePolicy();
    private PlacementRequest join;
    private PlacementRequest loadStep;

    @Setup
    public void setUp() {
        List<String> shards = IntStream.range(0, 16).mapToObj(i -> "shard-" + i).sorted().toList();
        Map<String, RangeSet> fifteen = policy.place(new PlacementRequest(BUCKETS, shards.subList(0, 15), Map.of(),
                LoadMap.uniform(), 1.1, 0.1, false)).ranges();
        join = new PlacementRequest(BUCKETS, shards, fifteen, LoadMap.uniform(), 1.1, 0.1, false);
        loadStep = new PlacementRequest(BUCKETS, shards, RangePlacement.place(shards, BUCKETS), zipf(100_000, 1.1),
                1.1, 0.1, true);
    }

    @Benchmark
    public Placement joinerFill() {
        return policy.place(join);
    }

    @Benchmark
    public Placement loadStep() {
        return policy.place(loadStep);
    }

    /** Objects at random hashes, the one of rank k costing 1/k^s, summed per cell. */
    private static LoadMap zipf(int objects, double exponent) {
        Random random = new Random(1);
        double[] busy = new double[LoadReport.CELLS];
        long[] count = new long[LoadReport.CELLS];
        for (int rank = 1; rank <= objects; rank++) {
            int cell = LoadReport.cell(random.nextLong());
            busy[cell] += 1 / Math.pow(rank, exponent);
            count[cell]++;
        }
        List<CellLoad> cells = new ArrayList<>();
        for (int cell = 0; cell < LoadReport.CELLS; cell++) {
            cells.add(new CellLoad(cell, cell, busy[cell], count[cell]));
        }
        LoadReport report = new LoadReport(Duration.ofSeconds(15), 1, 0, objects, cells);
        return LoadMap.builder().report(RangeSet.ALL, report).build();
    }
}
