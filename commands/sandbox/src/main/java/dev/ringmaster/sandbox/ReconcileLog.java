package dev.ringmaster.sandbox;

import dev.ringmaster.examples.checksum.ReconcileLine;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Collects the reconcile lines of every shard ({@code reconcile shard=S object=NS/NAME start=MS end=MS})
 * and counts the pairs of reconciles of one object by two different shards whose closed intervals
 * {@code [start, end]} overlap: the sharding contract says there must be none. All shards run in this
 * JVM and take their times from its clock, so their intervals are comparable. Thread-safe.
 */
public final class ReconcileLog implements Consumer<String> {

    private final Map<String, List<ReconcileLine>> byObject = new HashMap<>();
    private long reconciles;
    private long overlaps;
    private long unreadable;
    private String firstOverlap;

    /** Takes one line as a shard prints it; a line that is no reconcile line is counted as unreadable. */
    @Override
    public void accept(String text) {
        Optional<ReconcileLine> line = ReconcileLine.parse(text);
        if (line.isPresent()) {
            add(line.get());
        } else {
            synchronized (this) {
                unreadable++;
            }
        }
    }

    /** Adds a reconcile, counting every earlier reconcile of the same object by another shard that it overlaps. */
    synchronized void add(ReconcileLine line) {
        List<ReconcileLine> earlier = byObject.computeIfAbsent(line.object(), object -> new ArrayList<>());
        for (ReconcileLine other : earlier) {
            if (overlapsAcrossShards(line, other)) {
                overlaps++;
                if (firstOverlap == null) {
                    firstOverlap = other + " / " + line;
                }
            }
        }
        earlier.add(line);
        reconciles++;
    }

    /** Pairs of reconciles of one object by different shards at overlapping times, so far. */
    synchronized long overlaps() {
        return overlaps;
    }

    /** Reconciles so far, by every shard. */
    synchronized long reconciles() {
        return reconciles;
    }

    /** Lines that were no reconcile lines. */
    synchronized long unreadable() {
        return unreadable;
    }

    /** The first overlapping pair, as two reconcile lines, for the error message. */
    synchronized Optional<String> firstOverlap() {
        return Optional.ofNullable(firstOverlap);
    }

    /** The shards that reconciled the object {@code namespace/name}. */
    synchronized List<String> shardsThatReconciled(String object) {
        return byObject.getOrDefault(object, List.of()).stream().map(ReconcileLine::shard).distinct().toList();
    }

    /** The shard of the latest reconcile (by start) of the object {@code namespace/name}; empty if none. */
    synchronized Optional<String> lastReconciler(String object) {
        return byObject.getOrDefault(object, List.of()).stream()
                .max(java.util.Comparator.comparingLong(ReconcileLine::start)).map(ReconcileLine::shard);
    }

    /** Counts the overlapping pairs of a set of reconciles, as {@link #add} does one by one. */
    public static long countOverlaps(Collection<ReconcileLine> lines) {
        List<ReconcileLine> all = List.copyOf(lines);
        long count = 0;
        for (int i = 0; i < all.size(); i++) {
            for (int j = i + 1; j < all.size(); j++) {
                if (overlapsAcrossShards(all.get(i), all.get(j))) {
                    count++;
                }
            }
        }
        return count;
    }

    private static boolean overlapsAcrossShards(ReconcileLine a, ReconcileLine b) {
        return !a.shard().equals(b.shard()) && a.overlaps(b);
    }
}
