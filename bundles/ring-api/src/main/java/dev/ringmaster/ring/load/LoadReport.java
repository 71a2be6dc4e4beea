package dev.ringmaster.ring.load;

import dev.ringmaster.ring.ranges.HashRange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What a shard measured of its own work over its last window, the value of its Lease's
 * {@code ringmaster.dev/load} annotation ({@link dev.ringmaster.ring.RingContract#LOAD_ANNOTATION}):
 * <pre>window=15s busy=0.4120 wait=0.0130 objects=1532 cells=0-63:0.1200:310,64-127:0.0800:290</pre>
 * {@code busy} is the seconds spent reconciling per second of the window (above 1 with parallel workers),
 * {@code wait} the mean seconds an object's key waited in the queue before its reconcile started, {@code objects}
 * the objects the shard holds, and {@code cells} the same split over the hash space: the space is cut into
 * {@value #CELLS} equal cells (the finest bucket grid of range mode, so every bucket is whole cells), and each entry
 * gives a run of cells, its busy time and its objects. Entries are sorted and disjoint; at most
 * {@value #MAX_ENTRIES} are written ({@link #bounded}), so the annotation stays under 4 KB at any bucket count (about 2.5 KB at 4,096 busy cells).
 * Words after these that a reader does not know are ignored, so later versions may add some.
 */
public record LoadReport(Duration window, double busy, double queueWait, long objects, List<CellLoad> cells) {

    /** Cells of the hash space: a hash's cell is its top 12 bits. */
    public static final int CELLS = 4096;
    /** Entries a report carries at most. */
    public static final int MAX_ENTRIES = 128;

    public LoadReport {
        Objects.requireNonNull(window, "window");
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window " + window + " is not positive");
        }
        requireRate("busy time", busy);
        requireRate("queue wait", queueWait);
        if (objects < 0) {
            throw new IllegalArgumentException("object count " + objects + " is negative");
        }
        cells = List.copyOf(cells);
        for (int i = 1; i < cells.size(); i++) {
            if (cells.get(i).first() <= cells.get(i - 1).last()) {
                throw new IllegalArgumentException("cells " + cells.get(i).first() + "-" + cells.get(i).last()
                        + " do not come after " + cells.get(i - 1).first() + "-" + cells.get(i - 1).last());
            }
        }
    }

    /** The cell of a hash: its top 12 bits. */
    public static int cell(long hash) {
        return (int) (hash >>> 52);
    }

    /** The hashes of cells {@code first} to {@code last}. */
    public static HashRange hashes(int first, int last) {
        return new HashRange((long) first << 52, last == CELLS - 1 ? -1L : ((long) (last + 1) << 52) - 1);
    }

    /**
     * This report with at most {@code maxEntries} entries: while there are more, the two neighbouring entries whose
     * sum is the least busy (then the fewest objects) become one, so the busy parts of the space stay the finest.
     * Neighbours with a gap between them become one entry over the gap; a reader spreads an entry over the cells its
     * shard serves ({@link LoadMap}).
     */
    public LoadReport bounded(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("at least one entry, got " + maxEntries);
        }
        List<CellLoad> runs = new ArrayList<>(cells);
        while (runs.size() > maxEntries) {
            int best = 0;
            for (int i = 1; i + 1 < runs.size(); i++) {
                if (cheaper(runs, i, best)) {
                    best = i;
                }
            }
            CellLoad first = runs.get(best);
            CellLoad second = runs.remove(best + 1);
            runs.set(best, new CellLoad(first.first(), second.last(), first.busy() + second.busy(),
                    first.objects() + second.objects()));
        }
        return new LoadReport(window, busy, queueWait, objects, runs);
    }

    private static boolean cheaper(List<CellLoad> runs, int i, int than) {
        double mine = runs.get(i).busy() + runs.get(i + 1).busy();
        double theirs = runs.get(than).busy() + runs.get(than + 1).busy();
        return mine < theirs || mine == theirs
                && runs.get(i).objects() + runs.get(i + 1).objects() < runs.get(than).objects() + runs.get(than + 1).objects();
    }

    /** The annotation form; the window in whole seconds, at least 1 ({@link #parse} takes no window of 0 s). */
    public String format() {
        return String.format(Locale.ROOT, "window=%ds busy=%.4f wait=%.4f objects=%d cells=%s",
                Math.max(1, window.toSeconds()), busy,
                queueWait, objects, cells.stream()
                        .map(cell -> String.format(Locale.ROOT, "%d-%d:%.4f:%d", cell.first(), cell.last(), cell.busy(),
                                cell.objects()))
                        .collect(Collectors.joining(",")));
    }

    /**
     * Reads the annotation form.
     *
     * @throws IllegalArgumentException naming the part that is not as {@link #format()} writes it
     */
    public static LoadReport parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("the load report is empty");
        }
        Duration window = null;
        Double busy = null;
        Double wait = null;
        Long objects = null;
        List<CellLoad> cells = null;
        for (String word : text.strip().split("\\s+")) {
            int equals = word.indexOf('=');
            if (equals < 1) {
                throw new IllegalArgumentException("\"" + word + "\" is not name=value");
            }
            String value = word.substring(equals + 1);
            switch (word.substring(0, equals)) {
                case "window" -> window = Duration.ofSeconds(number(value.endsWith("s")
                        ? value.substring(0, value.length() - 1) : "not seconds: " + value, "window"));
                case "busy" -> busy = decimal(value, "busy");
                case "wait" -> wait = decimal(value, "wait");
                case "objects" -> objects = number(value, "objects");
                case "cells" -> cells = cells(value);
                default -> {
                    // a later version's word
                }
            }
        }
        if (window == null || busy == null || wait == null || objects == null || cells == null) {
            throw new IllegalArgumentException("the load report lacks one of window, busy, wait, objects, cells");
        }
        return new LoadReport(window, busy, wait, objects, cells);
    }

    private static List<CellLoad> cells(String text) {
        List<CellLoad> cells = new ArrayList<>();
        if (text.isEmpty()) {
            return cells;
        }
        for (String entry : text.split(",", -1)) {
            String[] parts = entry.split(":", -1);
            String[] bounds = parts[0].split("-", -1);
            if (parts.length != 3 || bounds.length != 2) {
                throw new IllegalArgumentException("\"" + entry + "\" is not first-last:busy:objects");
            }
            cells.add(new CellLoad((int) number(bounds[0], "a first cell"), (int) number(bounds[1], "a last cell"),
                    decimal(parts[1], "a busy time"), number(parts[2], "an object count")));
        }
        return cells;
    }

    private static long number(String text, String what) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " \"" + text + "\" is not a whole number");
        }
    }

    private static double decimal(String text, String what) {
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " \"" + text + "\" is not a number");
        }
    }

    static void requireRate(String what, double value) {
        if (!Double.isFinite(value) || value < 0) {
            throw new IllegalArgumentException(what + " " + value + " is not a finite number of at least 0");
        }
    }
}
