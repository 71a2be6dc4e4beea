package dev.ringmaster.ring.balancer;

import dev.ringmaster.ring.load.CellLoad;
import dev.ringmaster.ring.load.LoadMap;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.ring.ranges.RangeSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A synthetic ring the test measures with its own objects: random 64-bit hashes and a cost per object, summed
 * per cell into the report the leader would read.
 */
record Workload(String name, long[] hashes, double[] costs) {

    private static final int CELLS = 4096;

    /** Object of rank k costs ∝ 1/k^s, ranks shuffled over the objects. */
    static Workload zipf(long seed, int objects, double exponent) {
        Random random = new Random(seed);
        long[] hashes = hashes(random, objects);
        List<Integer> ranks = new ArrayList<>();
        for (int rank = 1; rank <= objects; rank++) {
            ranks.add(rank);
        }
        Collections.shuffle(ranks, random);
        double[] costs = new double[objects];
        for (int i = 0; i < objects; i++) {
            costs[i] = 1 / Math.pow(ranks.get(i), exponent);
        }
        return new Workload("zipf s=" + exponent + " seed " + seed, hashes, costs);
    }

    /** A share {@code heavy} of the objects, picked at random, costs {@code factor} times the others. */
    static Workload hotSpots(long seed, int objects, double heavy, double factor) {
        Random random = new Random(seed);
        long[] hashes = hashes(random, objects);
        double[] costs = new double[objects];
        Arrays.fill(costs, 1.0);
        int heavyCount = (int) Math.round(objects * heavy);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < objects; i++) {
            order.add(i);
        }
        Collections.shuffle(order, random);
        for (int i = 0; i < heavyCount; i++) {
            costs[order.get(i)] = factor;
        }
        return new Workload(heavyCount + " objects at " + factor + "x seed " + seed, hashes, costs);
    }

    private static long[] hashes(Random random, int objects) {
        long[] hashes = new long[objects];
        for (int i = 0; i < objects; i++) {
            hashes[i] = random.nextLong();
        }
        return hashes;
    }

    int size() {
        return hashes.length;
    }

    /** One report of every cell (empty ones too, so that none is counted at the mean) over the whole space. */
    LoadMap loadMap() {
        double[] busy = new double[CELLS];
        long[] objects = new long[CELLS];
        for (int i = 0; i < hashes.length; i++) {
            int cell = (int) (hashes[i] >>> 52);
            busy[cell] += costs[i];
            objects[cell]++;
        }
        List<CellLoad> cells = new ArrayList<>();
        double total = 0;
        for (int cell = 0; cell < CELLS; cell++) {
            cells.add(new CellLoad(cell, cell, busy[cell], objects[cell]));
            total += busy[cell];
        }
        LoadReport report = new LoadReport(Duration.ofSeconds(15), total, 0, hashes.length, cells);
        return LoadMap.builder().report(RangeSet.ALL, report).build();
    }

    /** Each object's shard in {@code placement}, checking that exactly one holds it. */
    String[] owners(Map<String, RangeSet> placement) {
        String[] owners = new String[hashes.length];
        for (Map.Entry<String, RangeSet> shard : new TreeMap<>(placement).entrySet()) {
            for (int i = 0; i < hashes.length; i++) {
                if (shard.getValue().contains(hashes[i])) {
                    if (owners[i] != null) {
                        throw new AssertionError("object " + i + " is on " + owners[i] + " and " + shard.getKey());
                    }
                    owners[i] = shard.getKey();
                }
            }
        }
        for (int i = 0; i < hashes.length; i++) {
            if (owners[i] == null) {
                throw new AssertionError("object " + i + " is on no shard");
            }
        }
        return owners;
    }

    /** The busiest shard's cost over the mean, from the objects themselves. */
    double imbalance(Map<String, RangeSet> placement) {
        String[] owners = owners(placement);
        Map<String, Double> loads = new TreeMap<>();
        placement.keySet().forEach(shard -> loads.put(shard, 0.0));
        double total = 0;
        for (int i = 0; i < hashes.length; i++) {
            loads.merge(owners[i], costs[i], Double::sum);
            total += costs[i];
        }
        double most = loads.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        return most / (total / loads.size());
    }

    /** The share of the objects whose shard differs between two placements. */
    double moved(Map<String, RangeSet> before, Map<String, RangeSet> after) {
        String[] from = owners(before);
        String[] to = owners(after);
        int moved = 0;
        for (int i = 0; i < hashes.length; i++) {
            if (!from[i].equals(to[i])) {
                moved++;
            }
        }
        return (double) moved / hashes.length;
    }
}
