package dev.ringmaster.shard.client;

import dev.ringmaster.ring.load.CellLoad;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What this shard's work costs, measured for its load report ({@link LoadReport}, the {@code ringmaster.dev/load}
 * annotation its Lease carries; README "Load reports"). Per cell of the {@value LoadReport#CELLS}-cell grid of the
 * hash space (the cell of an object is {@link LoadReport#cell} of its range key's hash) it sums the wall time of the
 * reconciles ({@link #reconciled}); over the shard it sums that busy time and the time keys waited in the queue before
 * their reconcile started ({@link #waited}); at each report it counts the objects the shard holds, from the stores
 * given to {@link #count}. {@link ShardedReconciler} and shard-josdk record here; another reconcile loop may too,
 * timing with {@link #now()}. Times come from a nanosecond ticker ({@link Sharding.Builder#ticker}). Thread-safe.
 */
public final class LoadMeter {

    /** The ranges served now and the key they hash. */
    record Served(RangeSet ranges, RangeKey key) {
    }

    /**
     * A label-mode shard's: its objects are anywhere in the space, and the cells of their uids' hashes tell the leader
     * which of them cost what (docs/design.md section 10.2).
     */
    static final Supplier<Served> LABEL_MODE = () -> new Served(RangeSet.ALL, RangeKey.UID);

    private final LongSupplier ticker;
    private final Supplier<Served> served;
    /** The object stores counted, each with how many times it was added; guarded by itself. */
    private final Map<Object, Counted> stores = new IdentityHashMap<>();

    private static final class Counted {
        final Supplier<? extends Collection<? extends HasMetadata>> objects;
        int times;

        Counted(Supplier<? extends Collection<? extends HasMetadata>> objects) {
            this.objects = objects;
        }
    }

    // the window since the last snapshot, guarded by "this"
    private long windowStart;
    private long[] cellBusy = new long[LoadReport.CELLS];
    private long busy;
    private long waitSum;
    private long waits;

    /**
     * @param ticker nanoseconds, as {@link System#nanoTime()}
     * @param served the ranges served now (range mode), or {@link #LABEL_MODE}
     */
    LoadMeter(LongSupplier ticker, Supplier<Served> served) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.served = Objects.requireNonNull(served, "served");
        this.windowStart = ticker.getAsLong();
    }

    /** The ticker's reading, in nanoseconds: time a reconcile with two readings. */
    public long now() {
        return ticker.getAsLong();
    }

    /** One reconcile of {@code object} took {@code nanos}: busy time of the shard and of the object's cell. */
    public void reconciled(HasMetadata object, long nanos) {
        if (nanos < 0) {
            return;
        }
        Served now = served.get();
        int cell = cell(object, now.key());
        synchronized (this) {
            busy += nanos;
            if (cell >= 0) {
                cellBusy[cell] += nanos;
            }
        }
    }

    /** A key waited {@code nanos} in the queue before its reconcile started. */
    public synchronized void waited(long nanos) {
        if (nanos >= 0) {
            waitSum += nanos;
            waits++;
        }
    }

    /**
     * Counts the objects {@code objects} supplies (the shard's own, e.g. its informer's store) in every report from
     * now on. {@code store} identifies them: a store added twice (two reconcilers of one informer) is counted once,
     * until {@link #uncount} was called as often as this.
     */
    public void count(Object store, Supplier<? extends Collection<? extends HasMetadata>> objects) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(objects, "objects");
        synchronized (stores) {
            stores.computeIfAbsent(store, ignored -> new Counted(objects)).times++;
        }
    }

    /** Undoes one {@link #count} of {@code store}; no effect if it is not counted. */
    public void uncount(Object store) {
        synchronized (stores) {
            Counted counted = stores.get(store);
            if (counted != null && --counted.times == 0) {
                stores.remove(store);
            }
        }
    }

    /**
     * The report of the window since the previous snapshot (or since this meter was made), and a new window from
     * now: busy time per second of the window, the mean queue wait, the objects counted now and an
     * entry for every run of cells the shard serves now (in label mode, the whole space) (runs of cells without busy time or objects as one entry),
     * at most {@value LoadReport#MAX_ENTRIES} entries. Busy time of cells no longer served is in the total only. A
     * reconcile counts in the window in which it ended.
     */
    LoadReport snapshot() {
        Served now = served.get();
        long[] cellObjects = new long[LoadReport.CELLS];
        long objects = 0;
        for (Supplier<? extends Collection<? extends HasMetadata>> store : stores()) {
            for (HasMetadata object : store.get()) {
                objects++;
                int cell = cell(object, now.key());
                if (cell >= 0) {
                    cellObjects[cell]++;
                }
            }
        }
        long window;
        long[] cells;
        long busyNanos;
        double wait;
        synchronized (this) {
            long end = ticker.getAsLong();
            window = Math.max(1, end - windowStart);
            windowStart = end;
            cells = cellBusy;
            cellBusy = new long[LoadReport.CELLS];
            busyNanos = busy;
            wait = waits == 0 ? 0 : waitSum / (double) waits / 1e9;
            busy = 0;
            waitSum = 0;
            waits = 0;
        }
        List<CellLoad> entries = entries(now.ranges(), cells, cellObjects, window);
        return new LoadReport(Duration.ofNanos(window), busyNanos / (double) window, wait, objects, entries)
                .bounded(LoadReport.MAX_ENTRIES);
    }

    private List<Supplier<? extends Collection<? extends HasMetadata>>> stores() {
        synchronized (stores) {
            return stores.values().stream().<Supplier<? extends Collection<? extends HasMetadata>>>map(c -> c.objects)
                    .toList();
        }
    }

    /** One entry per busy or populated cell of {@code ranges}, one per run of the other cells. */
    private static List<CellLoad> entries(RangeSet ranges, long[] busy, long[] objects, long window) {
        List<CellLoad> entries = new ArrayList<>();
        int emptyFrom = -1;
        int last = -1;
        for (HashRange range : ranges.ranges()) {
            // a range ending inside a cell and the next one starting in it share that cell
            for (int cell = Math.max(LoadReport.cell(range.first()), last + 1); cell <= LoadReport.cell(range.last()); cell++) {
                if (emptyFrom >= 0 && cell != last + 1) {
                    entries.add(new CellLoad(emptyFrom, last, 0, 0)); // a gap between runs ends an empty run
                    emptyFrom = -1;
                }
                if (busy[cell] == 0 && objects[cell] == 0) {
                    emptyFrom = emptyFrom < 0 ? cell : emptyFrom;
                } else {
                    if (emptyFrom >= 0) {
                        entries.add(new CellLoad(emptyFrom, cell - 1, 0, 0));
                        emptyFrom = -1;
                    }
                    entries.add(new CellLoad(cell, cell, busy[cell] / (double) window, objects[cell]));
                }
                last = cell;
            }
        }
        if (emptyFrom >= 0) {
            entries.add(new CellLoad(emptyFrom, last, 0, 0));
        }
        return entries;
    }

    /** The cell of {@code object} under {@code key}, or -1 if it has no key field to hash. */
    private static int cell(HasMetadata object, RangeKey key) {
        if (object == null || object.getMetadata() == null || key == RangeKey.UID && object.getMetadata().getUid() == null) {
            return -1;
        }
        return LoadReport.cell(key.hash(object.getMetadata().getUid(), object.getMetadata().getNamespace()));
    }
}
