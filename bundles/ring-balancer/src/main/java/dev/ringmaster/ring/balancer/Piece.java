package dev.ringmaster.ring.balancer;

import dev.ringmaster.ring.load.LoadMap;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangeSet;
import java.util.List;

/**
 * What moves between shards: a range inside one bucket, with its busy time ({@link LoadMap#busy}), its objects
 * ({@link LoadMap#objects}) and its share of the space.
 */
record Piece(HashRange range, double cost, double objects, double space) {

    static Piece of(HashRange range, LoadMap load) {
        RangeSet set = RangeSet.of(List.of(range));
        return new Piece(range, load.busy(set), load.objects(set), range.fraction());
    }

    long first() {
        return range.first();
    }

    /** Whether it covers more than one cell, so that it can be cut on the cell grid. */
    boolean wide() {
        return LoadReport.cell(range.first()) != LoadReport.cell(range.last());
    }

    /**
     * The two pieces this one is cut into at the cell boundary that best halves its busy time (the weighted median
     * of its cells); among equally good boundaries the one nearest the middle, then the first. Only for a
     * {@link #wide()} piece.
     */
    Piece[] halve(LoadMap load) {
        int firstCell = LoadReport.cell(range.first());
        int lastCell = LoadReport.cell(range.last());
        double[] prefix = new double[lastCell - firstCell + 2];
        for (int cell = firstCell; cell <= lastCell; cell++) {
            HashRange whole = LoadReport.hashes(cell, cell);
            HashRange part = new HashRange(cell == firstCell ? range.first() : whole.first(),
                    cell == lastCell ? range.last() : whole.last());
            prefix[cell - firstCell + 1] = prefix[cell - firstCell] + load.busy(RangeSet.of(List.of(part)));
        }
        double total = prefix[prefix.length - 1];
        int middle = (firstCell + lastCell + 1) / 2;
        int best = -1;
        for (int cell = firstCell + 1; cell <= lastCell; cell++) {
            if (best < 0 || better(prefix, total, cell - firstCell, best - firstCell, cell, best, middle)) {
                best = cell;
            }
        }
        long cut = (long) best << 52;
        return new Piece[] {of(new HashRange(range.first(), cut - 1), load), of(new HashRange(cut, range.last()), load)};
    }

    private static boolean better(double[] prefix, double total, int at, int than, int cell, int bestCell, int middle) {
        double mine = Math.abs(2 * prefix[at] - total);
        double theirs = Math.abs(2 * prefix[than] - total);
        return mine < theirs || mine == theirs && Math.abs(cell - middle) < Math.abs(bestCell - middle);
    }
}
