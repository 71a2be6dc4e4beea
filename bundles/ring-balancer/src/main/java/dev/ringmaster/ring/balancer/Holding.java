package dev.ringmaster.ring.balancer;

import dev.ringmaster.ring.ranges.RangeSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.TreeMap;

/** What one shard holds while the balancer works: its pieces in hash order, their busy time and space. */
final class Holding {

    /** Least loaded first; then the least space, then the name. */
    static final Comparator<Holding> LEAST_LOADED = Comparator.comparingDouble(Holding::load)
            .thenComparingDouble(Holding::space).thenComparing(Holding::shard);
    /** Most loaded first; then the most space, then the name. */
    static final Comparator<Holding> MOST_LOADED = Comparator.comparingDouble(Holding::load).reversed()
            .thenComparing(Comparator.comparingDouble(Holding::space).reversed()).thenComparing(Holding::shard);

    private final String shard;
    private final TreeMap<Long, Piece> pieces = new TreeMap<>(Long::compareUnsigned);
    private double load;
    private double space;

    Holding(String shard) {
        this.shard = shard;
    }

    String shard() {
        return shard;
    }

    double load() {
        return load;
    }

    double space() {
        return space;
    }

    /** Its pieces in hash order (a copy: the caller may move them). */
    Collection<Piece> pieces() {
        return new ArrayList<>(pieces.values());
    }

    boolean isEmpty() {
        return pieces.isEmpty();
    }

    void add(Piece piece) {
        pieces.put(piece.first(), piece);
        load += piece.cost();
        space += piece.space();
    }

    void remove(Piece piece) {
        if (pieces.remove(piece.first()) == null) {
            throw new IllegalStateException(shard + " does not hold " + piece.range());
        }
        load -= piece.cost();
        space -= piece.space();
    }

    RangeSet ranges() {
        return RangeSet.of(pieces.values().stream().map(Piece::range).toList());
    }
}
