package dev.ringmaster.sharder.weights;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.consistent.ConsistentHashRing;
import dev.ringmaster.ring.load.CellLoad;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.ring.rendezvous.RendezvousRing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The weight step as a closed loop, with the costs known only to the test: each object has a true cost and a cell (as
 * the hash of its uid would give it), each shard reports its busy time by cells as a shard does (the busy cells alone,
 * at most 128 entries), the leader costs the objects from the reports ({@link ObjectCosts}) and a step sets weights,
 * the objects move where the test's own ring at those weights puts them, and the next step sees the new reports. The
 * test counts moves and load itself.
 */
class WeightStepTest {

    private static final List<String> SHARDS = List.of("shard-0", "shard-1", "shard-2", "shard-3", "shard-4", "shard-5");
    private static final int OBJECTS = 10_000;
    private static final double MAX_IMBALANCE = 1.1;
    private static final double MAX_MOVED = 0.1;

    /** The strategy's ring at the given weights in percent: 10 weight units per Lease weight of 1 at 100 %. */
    private static ShardRing consistent(Map<String, Integer> percents) {
        return ConsistentHashRing.build(weighed(percents), 100);
    }

    private static ShardRing rendezvous(Map<String, Integer> percents) {
        return RendezvousRing.build(weighed(percents));
    }

    private static List<Shard> weighed(Map<String, Integer> percents) {
        return SHARDS.stream().map(shard -> new Shard(shard, Math.max(1,
                (int) Math.round(percents.getOrDefault(shard, 100) / 10.0)))).toList();
    }

    private static List<String> keys() {
        return IntStream.range(0, OBJECTS).mapToObj(i -> "/ConfigMap/tenant-" + (i % 37) + "/cm-" + i).toList();
    }

    /** Zipf (s = 1.1) costs over the objects, the ranks shuffled with a fixed seed. */
    private static double[] zipf() {
        List<Integer> ranks = new ArrayList<>(IntStream.rangeClosed(1, OBJECTS).boxed().toList());
        Collections.shuffle(ranks, new Random(42));
        return ranks.stream().mapToDouble(rank -> 1 / Math.pow(rank, 1.1)).toArray();
    }

    /** 1 % of the objects (every hundredth) at 100 times the cost of the others. */
    private static double[] onePercentHot() {
        return IntStream.range(0, OBJECTS).mapToDouble(i -> i % 100 == 7 ? 100 : 1).toArray();
    }

    /** What the loop did: the busiest over the mean by the true costs, before and after, and the most a step moved. */
    private record Run(double before, double after, int steps, int mostMovedInAStep, int movedInAll) {
    }

    private static Run balance(double[] costs, Function<Map<String, Integer>, ShardRing> strategy) {
        List<String> keys = keys();
        Map<String, Integer> percents = new TreeMap<>();
        String[] owner = new String[OBJECTS];
        ShardRing neutral = strategy.apply(percents);
        for (int i = 0; i < OBJECTS; i++) {
            owner[i] = neutral.shardFor(keys.get(i)).orElseThrow();
        }
        double before = imbalance(load(owner, costs));
        String[] start = owner.clone();
        int steps = 0;
        int mostMoved = 0;
        for (int round = 0; round < 20; round++) {
            Map<String, Double> busy = load(owner, costs);
            if (imbalance(busy) <= MAX_IMBALANCE) {
                break;
            }
            Optional<WeightStep.Outcome> step = new WeightStep(costed(keys, owner, costs), SHARDS, strategy)                    .next(percents, busy, MAX_IMBALANCE, MAX_MOVED);
            if (step.isEmpty()) {
                break;
            }
            steps++;
            percents = step.get().percents();
            assertThat(percents.values()).allSatisfy(percent -> assertThat(percent).isBetween(20, 500));
            ShardRing ring = strategy.apply(percents);
            int moved = 0;
            for (int i = 0; i < OBJECTS; i++) {
                String next = ring.shardFor(keys.get(i)).orElseThrow();
                if (!next.equals(owner[i])) {
                    moved++;
                    owner[i] = next;
                }
            }
            assertThat(moved).as("the step's own count of moves").isEqualTo(step.get().moved());
            mostMoved = Math.max(mostMoved, moved);
        }
        int movedInAll = (int) IntStream.range(0, OBJECTS).filter(i -> !start[i].equals(owner[i])).count();
        return new Run(before, imbalance(load(owner, costs)), steps, mostMoved, movedInAll);
    }

    /** Each object's cell, as the FNV-1a hash of a uid would spread them. */
    private static final int[] CELLS = new Random(7).ints(OBJECTS, 0, LoadReport.CELLS).toArray();

    /** The objects as the leader costs them from the shards' reports. */
    private static List<WeightStep.Item> costed(List<String> keys, String[] owner, double[] costs) {
        Map<String, Optional<LoadReport>> reports = new TreeMap<>();
        for (String shard : SHARDS) {
            double[] busy = new double[LoadReport.CELLS];
            long[] objects = new long[LoadReport.CELLS];
            for (int i = 0; i < OBJECTS; i++) {
                if (owner[i].equals(shard)) {
                    busy[CELLS[i]] += costs[i];
                    objects[CELLS[i]]++;
                }
            }
            List<CellLoad> entries = new ArrayList<>();
            for (int cell = 0; cell < LoadReport.CELLS; cell++) {
                entries.add(new CellLoad(cell, cell, busy[cell], objects[cell]));
            }
            double total = Arrays.stream(busy).sum();
            reports.put(shard, Optional.of(new LoadReport(Duration.ofSeconds(15), total, 0,
                    Arrays.stream(objects).sum(), entries).bounded(LoadReport.MAX_ENTRIES)));
        }
        Map<String, Double> busy = new TreeMap<>();
        reports.forEach((shard, report) -> busy.put(shard, report.orElseThrow().busy()));
        List<ObjectCosts.Listed> listed = IntStream.range(0, OBJECTS)
                .mapToObj(i -> new ObjectCosts.Listed(keys.get(i), owner[i], CELLS[i])).toList();
        return ObjectCosts.of(listed, reports, busy);
    }

    private static Map<String, Double> load(String[] owner, double[] costs) {
        Map<String, Double> load = new TreeMap<>();
        SHARDS.forEach(shard -> load.put(shard, 0.0));
        for (int i = 0; i < owner.length; i++) {
            load.merge(owner[i], costs[i], Double::sum);
        }
        return load;
    }

    private static double imbalance(Map<String, Double> load) {
        double total = load.values().stream().mapToDouble(Double::doubleValue).sum();
        double most = load.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        return most / (total / load.size());
    }

    @Test
    void zipfCostsComeWithinAQuarterOfTheMeanInStepsThatEachMoveAtMostTheBudget() {
        Run run = balance(zipf(), WeightStepTest::consistent);
        System.out.println("weights, consistent hashing, Zipf 1.1: " + run);
        assertThat(run.before()).as("hashing alone").isGreaterThan(1.25);
        assertThat(run.after()).isLessThanOrEqualTo(1.25);
        assertThat(run.mostMovedInAStep()).isLessThanOrEqualTo((int) (MAX_MOVED * OBJECTS));
    }

    @Test
    void onePercentAtAHundredTimesComesWithinAQuarterOfTheMeanWithRendezvousHashingToo() {
        for (Function<Map<String, Integer>, ShardRing> strategy : List.<Function<Map<String, Integer>, ShardRing>>of(
                WeightStepTest::consistent, WeightStepTest::rendezvous)) {
            Run run = balance(onePercentHot(), strategy);
            System.out.println("weights, 1% at 100x: " + run);
            assertThat(run.after()).isLessThanOrEqualTo(1.25).isLessThan(run.before());
            assertThat(run.mostMovedInAStep()).isLessThanOrEqualTo((int) (MAX_MOVED * OBJECTS));
        }
    }

    @Test
    void evenLoadChangesNoWeight() {
        double[] even = IntStream.range(0, OBJECTS).mapToDouble(i -> 1).toArray();
        List<String> keys = keys();
        ShardRing ring = consistent(Map.of());
        String[] owner = keys.stream().map(key -> ring.shardFor(key).orElseThrow()).toArray(String[]::new);
        Map<String, Double> busy = new TreeMap<>();
        load(owner, even).forEach(busy::put);
        assertThat(new WeightStep(costed(keys, owner, even), SHARDS, WeightStepTest::consistent)
                .next(Map.of(), busy, MAX_IMBALANCE, MAX_MOVED)).as("equal costs, within the tolerance by count").isEmpty();
    }

    @Test
    void aStepThatWouldMoveMoreThanTheBudgetIsDampedAndOneThatCannotMoveLessIsNotTaken() {
        List<String> keys = keys();
        ShardRing ring = consistent(Map.of());
        String[] owner = keys.stream().map(key -> ring.shardFor(key).orElseThrow()).toArray(String[]::new);
        double[] costs = IntStream.range(0, OBJECTS).mapToDouble(i -> owner[i].equals("shard-0") ? 10 : 1).toArray();
        Map<String, Double> busy = load(owner, costs);
        WeightStep step = new WeightStep(costed(keys, owner, costs), SHARDS, WeightStepTest::consistent);
        assertThat(step.next(Map.of(), busy, MAX_IMBALANCE, 0.05)).hasValueSatisfying(outcome -> {
            assertThat(outcome.moved()).isPositive().isLessThanOrEqualTo(500);
            assertThat(outcome.percents().get("shard-0")).isLessThan(100);
            assertThat(outcome.reason()).contains("shard-0=").contains("of 10000 objects");
        });
        assertThat(step.next(Map.of(), busy, MAX_IMBALANCE, 0.0)).as("no move allowed").isEmpty();
    }
}
