package dev.ringmaster.bench;

import dev.ringmaster.ring.XxHash64;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;

/**
 * Baseline for {@link LookupBenchmark}: hashing a key alone (UTF-8 encoding plus XXH64), the part
 * of every lookup that does not depend on the strategy or the number of shards.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class KeyHashBenchmark extends InProcessBenchmark {

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
