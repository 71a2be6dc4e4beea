package dev.ringmaster.ring.load;

import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangeSet;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The work of a ring over the whole hash space, cell by cell, as its shards reported it: each report entry is
 * spread evenly over the cells of it that its shard serves. Cells no shard reported are counted at the mean of the
 * reported ones, so a shard that publishes nothing weighs by its share of the space; with no busy time reported at
 * all, every cell weighs the same. Immutable; build it with {@link #builder()}.
 */
public final class LoadMap {

    private static final double CELL_SIZE = 0x1p52;

    private final double[] busy;
    private final double[] objects;

    private LoadMap(double[] busy, double[] objects) {
        this.busy = busy;
        this.objects = objects;
    }

    /** A map with no report: every cell weighs the same, and no objects are known. */
    public static LoadMap uniform() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The busy time of the objects in {@code ranges}, seconds per second (or cells' weight; see the class). */
    public double busy(RangeSet ranges) {
        return sum(busy, ranges);
    }

    /** The objects in {@code ranges}, as reported (unreported cells at the mean of reported ones). */
    public double objects(RangeSet ranges) {
        return sum(objects, ranges);
    }

    /** The busy time of cell {@code cell}. */
    public double cellBusy(int cell) {
        return busy[cell];
    }

    /** The objects of cell {@code cell}. */
    public double cellObjects(int cell) {
        return objects[cell];
    }

    /**
     * How far a placement is off balance: the busiest shard's busy time over the mean of all shards of
     * {@code placement}; 1 when perfectly even, when there is no shard, or when nothing is busy.
     */
    public double imbalance(Map<String, RangeSet> placement) {
        double total = 0;
        double most = 0;
        for (RangeSet ranges : placement.values()) {
            double load = busy(ranges);
            total += load;
            most = Math.max(most, load);
        }
        return placement.isEmpty() || total <= 0 ? 1.0 : most / (total / placement.size());
    }

    private static double sum(double[] perCell, RangeSet ranges) {
        double sum = 0;
        for (HashRange range : ranges.ranges()) {
            int first = LoadReport.cell(range.first());
            int last = LoadReport.cell(range.last());
            for (int cell = first; cell <= last; cell++) {
                sum += perCell[cell] * covered(range, cell);
            }
        }
        return sum;
    }

    /** The share of cell {@code cell} that {@code range} covers. */
    private static double covered(HashRange range, int cell) {
        HashRange whole = LoadReport.hashes(cell, cell);
        long first = Long.compareUnsigned(range.first(), whole.first()) > 0 ? range.first() : whole.first();
        long last = Long.compareUnsigned(range.last(), whole.last()) < 0 ? range.last() : whole.last();
        return first == whole.first() && last == whole.last() ? 1.0 : (last - first + 1) / CELL_SIZE;
    }

    /** Collects the shards' reports. Not thread-safe. */
    public static final class Builder {

        private final double[] busy = new double[LoadReport.CELLS];
        private final double[] objects = new double[LoadReport.CELLS];
        private final boolean[] reported = new boolean[LoadReport.CELLS];

        private Builder() {
        }

        /**
         * Adds a shard's report. Each entry is spread evenly over its cells that {@code served} covers (over all its
         * cells if it covers none: the report is older than the served ranges). A cell two reports cover keeps the
         * larger values: shards hand ranges over, and their reports are of different moments.
         */
        public Builder report(RangeSet served, LoadReport report) {
            for (CellLoad entry : report.cells()) {
                RangeSet cells = RangeSet.of(List.of(LoadReport.hashes(entry.first(), entry.last())));
                RangeSet spreadOver = cells.intersect(served);
                if (spreadOver.isEmpty()) {
                    spreadOver = cells;
                }
                double width = spreadOver.fraction() * LoadReport.CELLS;
                for (HashRange range : spreadOver.ranges()) {
                    for (int cell = LoadReport.cell(range.first()); cell <= LoadReport.cell(range.last()); cell++) {
                        double share = covered(range, cell) / width;
                        busy[cell] = reported[cell] ? Math.max(busy[cell], entry.busy() * share) : entry.busy() * share;
                        objects[cell] = reported[cell] ? Math.max(objects[cell], entry.objects() * share)
                                : entry.objects() * share;
                        reported[cell] = true;
                    }
                }
            }
            return this;
        }

        public LoadMap build() {
            int count = 0;
            double busySum = 0;
            double objectSum = 0;
            for (int cell = 0; cell < LoadReport.CELLS; cell++) {
                if (reported[cell]) {
                    count++;
                    busySum += busy[cell];
                    objectSum += objects[cell];
                }
            }
            double[] busyOut = busy.clone();
            double[] objectsOut = objects.clone();
            if (busySum <= 0) {
                Arrays.fill(busyOut, 1.0 / LoadReport.CELLS);
            }
            for (int cell = 0; cell < LoadReport.CELLS; cell++) {
                if (!reported[cell]) {
                    if (busySum > 0) {
                        busyOut[cell] = busySum / count;
                    }
                    objectsOut[cell] = count == 0 ? 0 : objectSum / count;
                }
            }
            return new LoadMap(busyOut, objectsOut);
        }
    }
}
