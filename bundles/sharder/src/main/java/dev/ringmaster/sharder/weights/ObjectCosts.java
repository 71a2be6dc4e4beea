package dev.ringmaster.sharder.weights;

import dev.ringmaster.ring.load.CellLoad;
import dev.ringmaster.ring.load.LoadReport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What each object of a label-mode ring costs, as well as the shards' reports tell (docs/design.md section 10.2). A
 * label-mode shard reports its busy time per run of cells of the hash of its objects' uids
 * ({@code ringmaster.dev/load}), the busy cells alone: an entry's busy time is shared by the shard's objects in its
 * cells, so a costly object stands out by itself. What the entries do not place (a report without cells, time of
 * objects gone since) is shared by all of the shard's objects; a shard that reports nothing is counted at the mean
 * busy time, shared by its objects; an object on no available shard costs the mean of the others.
 */
final class ObjectCosts {

    private ObjectCosts() {
    }

    /**
     * An object as the leader listed it.
     *
     * @param key   its partition key
     * @param owner the shard its label names; null for none
     * @param cell  the cell of the hash of its uid ({@link LoadReport#cell}); -1 without a uid
     */
    record Listed(String key, String owner, int cell) {
    }

    /**
     * @param objects the ring's objects
     * @param reports each available shard's readable report, empty for a shard without one
     * @param busy    each available shard's busy time, a shard without a readable report at the mean
     */
    static List<WeightStep.Item> of(List<Listed> objects, Map<String, Optional<LoadReport>> reports,
            Map<String, Double> busy) {
        Map<String, List<Listed>> byShard = new HashMap<>();
        objects.stream().filter(object -> busy.containsKey(object.owner()))
                .forEach(object -> byShard.computeIfAbsent(object.owner(), shard -> new ArrayList<>()).add(object));
        Map<Listed, Double> cost = new IdentityHashMap<>(); // two objects may be listed alike
        byShard.forEach((shard, own) -> costShard(own, reports.getOrDefault(shard, Optional.empty()), busy.get(shard),
                cost));
        double placed = cost.values().stream().mapToDouble(Double::doubleValue).sum();
        double mean = cost.isEmpty() ? 0 : placed / cost.size();
        return objects.stream().map(object -> new WeightStep.Item(object.key(), object.owner(),
                cost.getOrDefault(object, mean))).toList();
    }

    private static void costShard(List<Listed> own, Optional<LoadReport> report, double busy, Map<Listed, Double> cost) {
        int[] perCell = new int[LoadReport.CELLS];
        own.stream().filter(object -> object.cell() >= 0).forEach(object -> perCell[object.cell()]++);
        double[] cellCost = new double[LoadReport.CELLS];
        double spread = busy;
        for (CellLoad entry : report.map(LoadReport::cells).orElse(List.of())) {
            int there = 0;
            for (int cell = entry.first(); cell <= entry.last(); cell++) {
                there += perCell[cell];
            }
            if (there == 0) {
                continue; // its objects are gone: their time is shared by all
            }
            for (int cell = entry.first(); cell <= entry.last(); cell++) {
                cellCost[cell] = entry.busy() / there;
            }
            spread -= entry.busy();
        }
        double each = Math.max(0, spread) / own.size();
        own.forEach(object -> cost.put(object, each + (object.cell() < 0 ? 0 : cellCost[object.cell()])));
    }
}
