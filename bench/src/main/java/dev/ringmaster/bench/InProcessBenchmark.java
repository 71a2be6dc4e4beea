package dev.ringmaster.bench;

import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How every in-process JMH benchmark runs (JMH reads these annotations from the superclass): the
 * average time of one call, three one-second warm-up and five one-second measured iterations in one
 * fork, one state per thread. Each benchmark says its time unit.
 */
@BenchmarkMode(Mode.AverageTime)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public abstract class InProcessBenchmark {
}
