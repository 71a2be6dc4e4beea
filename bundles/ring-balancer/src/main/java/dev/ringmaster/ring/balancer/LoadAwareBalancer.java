package dev.ringmaster.ring.balancer;

import dev.ringmaster.ring.load.LoadMap;
import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.ring.spi.Placement;
import dev.ringmaster.ring.spi.PlacementRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The load-aware placement: a pure function of its request, iterating shards by name and pieces by hash, so the
 * same request always gives the same placement. docs/strategies.md ("load-aware") describes the rules; in short:
 *
 * <ol>
 * <li>ranges no requested shard holds are cut into buckets and given, busiest bucket first, each to the least
 * loaded shard;</li>
 * <li>a shard that held nothing takes pieces from the most loaded shards while each move lowers the busier of
 * the two;</li>
 * <li>on a load step above the tolerated imbalance, the hottest shards hand pieces to the coldest, pair by pair,
 * cutting pieces on the cell grid where no whole one helps, within the step's share of objects.</li>
 * </ol>
 */
final class LoadAwareBalancer {

    /** Slack for sums of shares compared with the step's budget. */
    private static final double EPSILON = 1e-9;

    private final PlacementRequest request;
    private final LoadMap load;
    private final Grid grid;
    private final double totalObjects;
    private final Map<String, Holding> holdings = new TreeMap<>();
    /** What moved, by rule, in the order it moved. */
    private final List<Move> placed = new ArrayList<>();
    private final List<Move> joined = new ArrayList<>();
    private final List<Move> balanced = new ArrayList<>();

    private LoadAwareBalancer(PlacementRequest request) {
        this.request = request;
        this.load = request.load();
        this.grid = new Grid(request.buckets());
        this.totalObjects = load.objects(RangeSet.ALL);
    }

    /** @throws IllegalArgumentException for a bucket count that is not a power of two from 1 to 4096 */
    static Placement place(PlacementRequest request) {
        return new LoadAwareBalancer(request).run();
    }

    private record Move(String from, String to, Piece piece) {
    }

    private Placement run() {
        TreeSet<String> shards = new TreeSet<>(request.shards());
        if (shards.isEmpty()) {
            return new Placement(Map.of(), 1.0, 1.0, 0.0, "no shards: nothing placed");
        }
        // where the ranges are: a hash two requested shards hold goes to the first by name
        Map<String, RangeSet> before = new TreeMap<>();
        RangeSet held = RangeSet.EMPTY;
        for (String shard : shards) {
            RangeSet mine = Grid.minus(request.current().getOrDefault(shard, RangeSet.EMPTY), held);
            before.put(shard, mine);
            held = held.union(mine);
            Holding holding = new Holding(shard);
            grid.cut(mine).forEach(range -> holding.add(Piece.of(range, load)));
            holdings.put(shard, holding);
        }
        double imbalanceBefore = load.imbalance(before);

        placeOrphans(held.complement());
        fillJoiners(shards.stream().filter(shard -> before.get(shard).isEmpty()).toList());
        double imbalanceNow = imbalance();
        boolean stepped = request.loadStep() && imbalanceNow > request.maxImbalance();
        if (stepped) {
            balance();
        }

        Map<String, RangeSet> after = new TreeMap<>();
        holdings.forEach((shard, holding) -> after.put(shard, holding.ranges()));
        double imbalanceAfter = load.imbalance(after);
        double moved = share(moved(after));
        return new Placement(after, imbalanceBefore, imbalanceAfter, moved,
                reason(imbalanceBefore, imbalanceNow, imbalanceAfter, stepped));
    }

    /** Rule 1: each bucket's part without a shard, busiest first, to the least loaded shard. */
    private void placeOrphans(RangeSet orphans) {
        Map<Integer, List<Piece>> byBucket = new TreeMap<>();
        for (HashRange range : grid.cut(orphans)) {
            byBucket.computeIfAbsent(grid.bucket(range.first()), bucket -> new ArrayList<>()).add(Piece.of(range, load));
        }
        List<List<Piece>> parts = new ArrayList<>(byBucket.values());
        // stable: equally busy parts keep hash order
        parts.sort(Comparator.comparingDouble(LoadAwareBalancer::cost).reversed());
        for (List<Piece> part : parts) {
            Holding least = holdings.values().stream().min(Holding.LEAST_LOADED).orElseThrow();
            for (Piece piece : part) {
                least.add(piece);
                placed.add(new Move(null, least.shard(), piece));
            }
        }
    }

    private static double cost(List<Piece> pieces) {
        double sum = 0;
        for (Piece piece : pieces) {
            sum += piece.cost();
        }
        return sum;
    }

    /**
     * Rule 2: while the least loaded joiner can take a piece from a shard that held something and end below that
     * shard's load, it takes the one that leaves the busier of the two least busy, from the busiest such shard.
     */
    private void fillJoiners(List<String> joiners) {
        if (joiners.isEmpty()) {
            return;
        }
        List<Holding> givers = holdings.values().stream().filter(holding -> !joiners.contains(holding.shard())).toList();
        while (true) {
            Holding taker = joiners.stream().map(holdings::get).min(Holding.LEAST_LOADED).orElseThrow();
            Move move = null;
            for (Holding giver : givers.stream().sorted(Holding.MOST_LOADED).toList()) {
                Piece piece = best(giver, taker, Double.POSITIVE_INFINITY);
                if (piece != null) {
                    move = new Move(giver.shard(), taker.shard(), piece);
                    break;
                }
            }
            if (move == null) {
                return;
            }
            apply(move);
            joined.add(move);
        }
    }

    /**
     * Rule 3: the hottest shard with the coldest, the second with the second coldest, and so on, each shard in one
     * pair; within a pair pieces go from hot to cold until the hot one is within the tolerance, no piece helps even
     * cut on the cell grid, or the step's share of objects is spent.
     */
    private void balance() {
        List<Holding> order = holdings.values().stream().sorted(Holding.MOST_LOADED).toList();
        double limit = request.maxImbalance() * totalLoad() / order.size();
        double budget = request.maxMovedFraction();
        for (int i = 0; i < order.size() / 2 && budget > EPSILON; i++) {
            Holding hot = order.get(i);
            Holding cold = order.get(order.size() - 1 - i);
            if (hot.load() <= limit) {
                return;
            }
            while (hot.load() > limit && budget > EPSILON) {
                Piece piece = best(hot, cold, budget);
                if (piece != null) {
                    Move move = new Move(hot.shard(), cold.shard(), piece);
                    apply(move);
                    balanced.add(move);
                    budget -= weight(piece);
                    continue;
                }
                Piece hottest = hottestWide(hot);
                if (hottest == null) {
                    break;
                }
                hot.remove(hottest);
                for (Piece half : hottest.halve(load)) {
                    hot.add(half);
                }
            }
        }
    }

    /** The busiest piece of {@code holding} that spans more than one cell, the first in hash order; null if none. */
    private static Piece hottestWide(Holding holding) {
        Piece hottest = null;
        for (Piece piece : holding.pieces()) {
            if (piece.wide() && (hottest == null || piece.cost() > hottest.cost())) {
                hottest = piece;
            }
        }
        return hottest;
    }

    /**
     * The piece of {@code from} whose busy time is nearest half the gap to {@code to}, among those that lower the
     * busier of the two (to's load plus the piece stays below from's) and fit in {@code budget}; then the one with
     * the fewest objects, then the first in hash order. Null if none.
     */
    private Piece best(Holding from, Holding to, double budget) {
        double half = (from.load() - to.load()) / 2;
        Piece best = null;
        for (Piece piece : from.pieces()) {
            if (piece.cost() > 0 && to.load() + piece.cost() < from.load() && weight(piece) <= budget + EPSILON
                    && (best == null || Math.abs(piece.cost() - half) < Math.abs(best.cost() - half)
                    || Math.abs(piece.cost() - half) == Math.abs(best.cost() - half) && piece.objects() < best.objects())) {
                best = piece;
            }
        }
        return best;
    }

    private void apply(Move move) {
        holdings.get(move.from()).remove(move.piece());
        holdings.get(move.to()).add(move.piece());
    }

    /** A piece's share of the ring's objects, or of its space when no objects are known. */
    private double weight(Piece piece) {
        return totalObjects > 0 ? piece.objects() / totalObjects : piece.space();
    }

    /** The share of objects (of space when none are known) of {@code hashes}. */
    private double share(RangeSet hashes) {
        return totalObjects > 0 ? load.objects(hashes) / totalObjects : hashes.fraction();
    }

    private double totalLoad() {
        double total = 0;
        for (Holding holding : holdings.values()) {
            total += holding.load();
        }
        return total;
    }

    private double imbalance() {
        Map<String, RangeSet> now = new TreeMap<>();
        holdings.forEach((shard, holding) -> now.put(shard, holding.ranges()));
        return load.imbalance(now);
    }

    /**
     * The hashes that change hands: held by some shard in the request's {@code current} (requested or not) and
     * placed on a shard that did not hold them there. Hashes nobody held are placed, not moved.
     */
    private RangeSet moved(Map<String, RangeSet> after) {
        RangeSet anywhere = RangeSet.EMPTY;
        for (RangeSet ranges : new TreeMap<>(request.current()).values()) {
            anywhere = anywhere.union(ranges);
        }
        List<HashRange> gained = new ArrayList<>();
        after.forEach((shard, ranges) ->
                gained.addAll(Grid.minus(ranges, request.current().getOrDefault(shard, RangeSet.EMPTY)).ranges()));
        return Grid.intersect(RangeSet.of(gained), anywhere);
    }

    private String reason(double before, double now, double after, boolean stepped) {
        List<String> parts = new ArrayList<>();
        if (!placed.isEmpty()) {
            parts.add("placed " + count(placed) + " without a shard on " + String.join(", ", receivers(placed)));
        }
        if (!joined.isEmpty()) {
            parts.add(String.join(", ", receivers(joined)) + " took " + count(joined) + " from "
                    + String.join(", ", givers(joined)));
        }
        if (!balanced.isEmpty()) {
            double share = 0;
            for (Move move : balanced) {
                share += weight(move.piece());
            }
            parts.add(String.format(Locale.ROOT, "moved %s (%.1f%% of %s) from %s", count(balanced), 100 * share,
                    totalObjects > 0 ? "objects" : "the space", String.join(", ", pairs(balanced))));
        }
        String figures = String.format(Locale.ROOT, "imbalance %.2f", now);
        String tolerance = String.format(Locale.ROOT, "%.2f", request.maxImbalance());
        if (parts.isEmpty()) {
            if (now <= request.maxImbalance()) {
                return "balanced: " + figures + " within " + tolerance;
            }
            return (stepped ? "no move helps within the step's share: " : "unchanged until a load step: ") + figures + " above " + tolerance;
        }
        return String.join("; ", parts) + String.format(Locale.ROOT, ": imbalance %.2f → %.2f", before, after)
                + (stepped || after <= request.maxImbalance() ? "" : " (above " + tolerance + " until a load step)");
    }

    /** "N range(s)": the ranges the moved pieces make once adjacent ones of one shard merge. */
    private static String count(List<Move> moves) {
        Map<String, List<HashRange>> byPair = new TreeMap<>();
        for (Move move : moves) {
            byPair.computeIfAbsent(move.from() + ">" + move.to(), pair -> new ArrayList<>()).add(move.piece().range());
        }
        int ranges = byPair.values().stream().mapToInt(list -> RangeSet.of(list).ranges().size()).sum();
        return ranges + (ranges == 1 ? " range" : " ranges");
    }

    private static TreeSet<String> receivers(List<Move> moves) {
        return moves.stream().map(Move::to).collect(Collectors.toCollection(TreeSet::new));
    }

    private static TreeSet<String> givers(List<Move> moves) {
        return moves.stream().map(Move::from).collect(Collectors.toCollection(TreeSet::new));
    }

    /** "hot to cold" for each pair, in the order the pairs moved. */
    private static List<String> pairs(List<Move> moves) {
        Map<String, Boolean> pairs = new LinkedHashMap<>();
        moves.forEach(move -> pairs.put(move.from() + " to " + move.to(), true));
        return new ArrayList<>(pairs.keySet());
    }
}
