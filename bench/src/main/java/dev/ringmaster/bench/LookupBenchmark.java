package dev.ringmaster.bench;

import dev.ringmaster.ring.ShardRing;
import java.util.Optional;
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

/**
 * Cost of one {@link ShardRing#shardFor(String)} on a pre-built ring: key hashing plus the
 * strategy's search. Keys are cycled through so the JIT cannot constant-fold the lookup.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class LookupBenchmark {

    @Param
    public Fixtures.Strategy strategy;

    @Param({"3", "10", "100", "1000"})
    public int shards;

    @Param({"false", "true"})
    public boolean weighted;

    private ShardRing ring;
    private String[] keys;
    private int next;

    @Setup
    public void setUp() {
        ring = strategy.build(Fixtures.shards(shards, weighted));
        keys = Fixtures.keys();
    }

    @Benchmark
    public Optional<String> shardFor() {
        return ring.shardFor(keys[next++ & (Fixtures.KEY_COUNT - 1)]);
    }
}
