package dev.ringmaster.bench;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;

/** Cost of building a ring from a shard list, as happens on every membership or weight change. */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class BuildBenchmark extends RingBenchmark {

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
