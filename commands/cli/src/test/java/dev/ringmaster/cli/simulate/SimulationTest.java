package dev.ringmaster.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ringmaster.flags.UsageException;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SimulationTest {

    private static SimulationResult simulate(PartitioningStrategy strategy, String line) throws UsageException {
        return Simulation.run(strategy, options(line));
    }

    private static SimulationOptions options(String line) throws UsageException {
        return SimulationOptions.of(SimulationOptions.FLAGS.parse(List.of(line.split(" "))));
    }

    @Test
    void scaleOutMovesAboutTheOptimalFractionToTheNewShard() throws UsageException {
        SimulationResult result = simulate(new RendezvousStrategy(), "--strategy rendezvous --shards 10 --objects 100000 --add 1");
        assertThat(result.shardsBefore()).isEqualTo(10);
        assertThat(result.shardsAfter()).isEqualTo(11);
        assertThat(result.optimalMovedFraction()).isCloseTo(1 / 11.0, within(1e-12));
        assertThat(result.movedFraction()).isCloseTo(1 / 11.0, within(0.005));
        assertThat(result.perShard().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(100_000);
        assertThat(result.perShard()).containsOnlyKeys(
                "shard-0", "shard-1", "shard-2", "shard-3", "shard-4", "shard-5", "shard-6", "shard-7", "shard-8",
                "shard-9", "shard-10");
        assertThat(result.peakToMean()).isBetween(1.0, 1.05);
        assertThat(result.minToMean()).isBetween(0.95, 1.0);
    }

    @Test
    void weightsAreComparedWithTheFairShare() throws UsageException {
        SimulationResult result = simulate(new RendezvousStrategy(),
                "--strategy rendezvous --shards 2 --objects 100000 --weights shard-1=3");
        assertThat(result.perShard().get("shard-1")).isCloseTo(75_000, within(1_000));
        assertThat(result.peakToMean()).isLessThan(1.03);
        assertThat(result.movedFraction()).isZero();
        assertThat(result.optimalMovedFraction()).isZero();
    }

    @Test
    void removalReportsTheRemovedShare() throws UsageException {
        SimulationResult result = simulate(new RendezvousStrategy(), "--strategy rendezvous --shards 4 --objects 40000 --remove 1");
        assertThat(result.optimalMovedFraction()).isEqualTo(0.25);
        assertThat(result.movedFraction()).isCloseTo(0.25, within(0.01));
        assertThat(result.perShard()).doesNotContainKey("shard-3");
    }

    @Test
    void jsonHasTheDocumentedFields() throws UsageException {
        String json = simulate(new RendezvousStrategy(), "--strategy rendezvous --shards 2 --objects 10 --add 1").toJson();
        assertThat(json).startsWith("{\"strategy\":\"rendezvous\",\"shardsBefore\":2,\"shardsAfter\":3,\"objects\":10,"
                + "\"perShard\":{\"shard-0\":").contains("\"peakToMean\":", "\"minToMean\":", "\"movedFraction\":",
                "\"optimalMovedFraction\":0.333333}");
    }

    /** Range mode, scale-out 3 to 4: what moves goes to the new shard only, about a quarter. */
    @Test
    void rangeModeMovesOnlyToTheNewShard() throws UsageException {
        SimulationOptions options = options("--ranges 256 --shards 3 --objects 40000 --add 1");
        SimulationResult result = Simulation.run(options.ranges().orElseThrow(), options);
        assertThat(result.strategy()).isEqualTo("ranges (256 buckets, key uid)");
        assertThat(result.movedFraction()).isCloseTo(result.perShard().get("shard-3") / 40000.0, within(1e-12));
        assertThat(result.movedFraction()).isBetween(0.25 * 0.75, 0.25 * 1.25);
        assertThat(result.peakToMean()).isLessThan(1.3);
    }

    /** Range mode keyed by namespace: each of the 100 simulated namespaces lies on one shard. */
    @Test
    void rangeModeByNamespaceKeepsANamespaceTogether() throws UsageException {
        SimulationOptions options = options("--ranges 64 --range-key namespace --shards 4 --objects 1000");
        ShardRing ring = options.ranges().orElseThrow().build(options.shardsAfter());
        for (int namespace = 0; namespace < 100; namespace++) {
            int first = namespace;
            assertThat(java.util.stream.IntStream.iterate(namespace, i -> i < 1000, i -> i + 100)
                    .mapToObj(i -> ring.shardFor(SimulationOptions.objectKey(i)).orElseThrow()).distinct())
                    .as("namespace ns-%d", first).hasSize(1);
        }
    }

    @Test
    void withoutCostsTheReportIsAsBefore() throws UsageException {
        SimulationResult result = simulate(new RendezvousStrategy(), "--strategy rendezvous --shards 2 --objects 10");
        assertThat(result.load()).isEmpty();
        assertThat(result.toJson()).doesNotContain("costs", "Load");
        assertThat(result.toTable()).doesNotContain("LOAD", "costs");
    }

    /** Equal costs: the load is the object count, to the object. */
    @Test
    void equalCostsLoadEachShardWithItsObjects() throws UsageException {
        SimulationResult result = simulate(new RendezvousStrategy(),
                "--strategy rendezvous --shards 3 --objects 3000 --add 1 --costs equal");
        SimulationResult.Load load = result.load().orElseThrow();
        result.perShard().forEach((shard, count) -> assertThat(load.perShard().get(shard)).isCloseTo(count, within(1e-6)));
        assertThat(load.peakToMean()).isCloseTo(result.peakToMean(), within(1e-9));
        assertThat(load.minToMean()).isCloseTo(result.minToMean(), within(1e-9));
        assertThat(load.movedFraction()).isCloseTo(result.movedFraction(), within(1e-9));
    }

    /**
     * hot:1:100 over 100 objects: one object carries 100 / 199 of the load, so its shard's load is at least
     * that: most-loaded / mean ≥ 3 × 100/199 over three shards.
     */
    @Test
    void skewedCostsShowInTheLoadNotInTheCounts() throws UsageException {
        SimulationOptions options = options("--ranges 64 --shards 3 --objects 100 --costs hot:1:100");
        SimulationResult result = Simulation.run(options.ranges().orElseThrow(), options);
        SimulationResult.Load load = result.load().orElseThrow();
        assertThat(load.perShard().values().stream().mapToDouble(Double::doubleValue).sum()).isCloseTo(100, within(1e-9));
        assertThat(load.perShard().values().stream().mapToDouble(Double::doubleValue).max().orElseThrow())
                .isGreaterThanOrEqualTo(100 * 100 / 199.0);
        assertThat(load.peakToMean()).isGreaterThanOrEqualTo(3 * 100 / 199.0);
        assertThat(load.costs()).isEqualTo("hot:1:100");

        String json = result.toJson();
        assertThat(json).contains("\"peakToMean\":", "\"costs\":\"hot:1:100\",\"perShardLoad\":{\"shard-0\":",
                "\"loadPeakToMean\":", "\"loadMinToMean\":", "\"movedLoadFraction\":0.000000}");
        assertThat(result.toTable()).contains("costs     hot:1:100: load in objects of mean cost, moved 0.00% of it")
                .contains("load      peak/mean ").contains("SHARD           OBJECTS    SHARE         LOAD    SHARE");
    }

    /** namespace-half keyed by namespace: half the objects hash alike, so one shard has at least half of them. */
    @Test
    void namespaceHalfPutsHalfTheObjectsOnOneShardOfANamespaceKeyedRing() throws UsageException {
        SimulationOptions options = options("--ranges 64 --range-key namespace --shards 4 --objects 1000 --costs namespace-half");
        SimulationResult result = Simulation.run(options.ranges().orElseThrow(), options);
        assertThat(result.perShard().values()).anySatisfy(count -> assertThat(count).isGreaterThanOrEqualTo(500));
        assertThat(result.load().orElseThrow().peakToMean()).isGreaterThanOrEqualTo(2.0);
        assertThat(java.util.Arrays.stream(options.namespaces().orElseThrow()).filter(ns -> ns == 0).count()).isEqualTo(500);

        SimulationOptions byUid = options("--ranges 64 --shards 4 --objects 1000 --costs namespace-half");
        assertThat(Simulation.run(byUid.ranges().orElseThrow(), byUid).load().orElseThrow().peakToMean())
                .as("keyed by uid, the namespace does not matter").isLessThan(1.5);
    }

    /** A scale-out moves load as well as objects; with Zipf costs the two fractions differ. */
    @Test
    void theMovedLoadIsReported() throws UsageException {
        SimulationResult result = simulate(new RendezvousStrategy(),
                "--strategy rendezvous --shards 4 --objects 20000 --add 1 --costs zipf:1.1");
        SimulationResult.Load load = result.load().orElseThrow();
        assertThat(load.movedFraction()).isBetween(0.0, 1.0).isNotCloseTo(result.movedFraction(), within(1e-6));
        assertThat(load.perShard()).containsOnlyKeys(result.perShard().keySet());
    }

    @Test
    void aStrategyAnsweringOutsideTheFleetIsReported() {
        PartitioningStrategy broken = shards -> new ShardRing() {
            @Override
            public List<Shard> shards() {
                return List.copyOf(shards);
            }

            @Override
            public Optional<String> shardFor(String key) {
                return Optional.of("stranger");
            }
        };
        assertThatThrownBy(() -> simulate(broken, "--strategy broken --shards 2 --objects 10"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("stranger, which is not in the fleet");
    }
}
