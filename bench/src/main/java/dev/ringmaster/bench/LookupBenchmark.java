package dev.ringmaster.bench;

import dev.ringmaster.ring.ShardRing;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;

/**
 * Cost of one {@link ShardRing#shardFor(String)} on a pre-built ring: key hashing plus the
 * strategy's search. Keys are cycled through so the JIT cannot constant-fold the lookup.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LookupBenchmark extends RingBenchmark {

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
