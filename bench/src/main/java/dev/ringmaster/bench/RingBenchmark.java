package dev.ringmaster.bench;

import org.openjdk.jmh.annotations.Param;

/** The parameters of the benchmarks of one built ring: its strategy, its number of shards, weighted or not. */
public abstract class RingBenchmark extends InProcessBenchmark {

    @Param
    public Fixtures.Strategy strategy;

    @Param({"3", "10", "100", "1000"})
    public int shards;

    @Param({"false", "true"})
    public boolean weighted;
}
