package dev.ringmaster.bench;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Cost of building a ring from a shard list, as happens on every membership or weight change. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class BuildBenchmark {

    @Param
    public Fixtures.Strategy strategy;

    @Param({"3", "10", "100", "1000"})
    public int shards;

    @Param({"false", "true"})
    public boolean weighted;

    private List<Shard> shardList;

    @Setup
    public void setUp() {
        shardList = Fixtures.shards(shards, weighted);
    }

    @Benchmark
    public ShardRing build() {
        return strategy.build(shardList);
    }
}
