package dev.ringmaster.bench;

import dev.ringmaster.ring.XxHash64;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Baseline for {@link LookupBenchmark}: hashing a key alone (UTF-8 encoding plus XXH64), the part
 * of every lookup that does not depend on the strategy or the number of shards.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class KeyHashBenchmark {

    private String[] keys;
    private int next;

    @Setup
    public void setUp() {
        keys = Fixtures.keys();
    }

    @Benchmark
    public long hash() {
        return XxHash64.hash(keys[next++ & (Fixtures.KEY_COUNT - 1)]);
    }
}
