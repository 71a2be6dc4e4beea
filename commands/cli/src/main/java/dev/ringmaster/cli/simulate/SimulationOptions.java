package dev.ringmaster.cli.simulate;

import dev.ringmaster.cli.workload.CostDistribution;
import dev.ringmaster.flags.Flags;
import dev.ringmaster.flags.Given;
import dev.ringmaster.flags.UsageException;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangePlacement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Options of {@code ringmaster simulate}. The fleet is {@code shard-0 … shard-(N-1)}; added shards
 * continue the numbering, removed ones are the highest numbers.
 */
record SimulationOptions(
        String strategy, int shards, int objects, int added, int removed, Map<String, Integer> weights,
        OptionalInt tokensPerShard, boolean json, Optional<RangeModeStrategy> ranges, Optional<CostDistribution> costs) {

    static final String USAGE = """
            usage: ringmaster simulate --strategy NAME --shards N --objects K
                     [--add M | --remove M] [--weights shard-0=2,shard-3=4] [--tokens T] [--costs SPEC] [--json]
                   ringmaster simulate --ranges B [--range-key uid|namespace] --shards N --objects K
                     [--add M | --remove M] [--costs SPEC] [--json]
                   ringmaster simulate --ring KIND/NAME --strategy NAME [--kubeconfig FILE]
                     [--current-strategy NAME] [--tokens T] [--json]

              --strategy NAME   partitioning strategy service to simulate (see the list on error)
              --shards N        fleet before the change: shard-0 … shard-(N-1)
              --objects K       objects keyed /ConfigMap/ns-(i mod 100)/obj-i
              --add M           add shard-N … shard-(N+M-1)
              --remove M        remove the M highest-numbered shards
              --weights LIST    shard weights (default 1), comma-separated NAME=WEIGHT
              --tokens T        tokens per shard, for strategies with a tokensPerShard setting
                                (with --ring: for the candidate strategy only)
              --json            print one JSON object instead of the table
              --ranges B        a range-mode ring (server-side ranges, docs/design.md section 9)
                                with B buckets (a power of two up to 4096), in place of --strategy;
                                simulated objects get name-based UUIDs as uids
              --range-key KEY   the field ranges hash: uid (default) or namespace (100 namespaces)
              --costs SPEC      what reconciling each object costs, and the load per shard (the sum
                                of its objects' costs, in objects of mean cost) beside the counts:
                                equal, zipf:S (rank k costs 1/k^S, ranks shuffled), hot:P:F (P% of
                                the objects at F times the cost), namespace-half[:M] (equal costs,
                                half the objects in ns-0, the others over ns-1 … ns-M, default 99);
                                drawn with a fixed seed, so runs repeat; at most 1000000 objects

            A live preview of a strategy change against a cluster, read-only:
              --ring KIND/NAME  clusterring/NAME or controllerring/NAME: its shards (their Leases,
                                judged as the sharder judges them), its objects (keyed as the
                                sharder keys them) and its strategy are read from the cluster
              --kubeconfig FILE the cluster (default: $KUBECONFIG, ~/.kube/config or in-cluster)
              --current-strategy NAME
                                the strategy in force (default: the one the ring's Ready condition
                                names; else spec.strategy; else consistent-hash)

            Exit codes: 0 done; 1 the ring could not be read (API server unreachable, access
            forbidden, no such ring); 2 bad arguments or an unknown strategy.""";

    private static final int MAX_SHARDS = 10_000;
    private static final int MAX_OBJECTS = 100_000_000;
    /** With {@code --costs} every object's cost is held at once. */
    static final int MAX_OBJECTS_WITH_COSTS = 1_000_000;
    static final String COSTS = "--costs";
    /** The seed of the costs (and namespaces) {@code --costs} draws: fixed, so that runs repeat. */
    static final long COSTS_SEED = 1;
    /** The simulated objects' namespaces, {@code ns-0 … ns-99}. */
    static final int NAMESPACES = 100;
    // the consistent-hash strategy's upper bound
    private static final int MAX_TOKENS_PER_SHARD = 10_000;

    /** The flags of both forms: over a synthetic fleet, and with {@code --ring} over a ring in a cluster. */
    static final Flags FLAGS = Flags.of()
            .valued("--strategy", "--shards", "--objects", "--add", "--remove", "--weights", "--tokens", "--ranges",
                    "--range-key", RingPreviewOptions.RING, "--kubeconfig", "--current-strategy", COSTS)
            .switches("--json");

    /** The options of a simulation over a synthetic fleet: the flags given without {@code --ring}. */
    static SimulationOptions of(Given given) throws UsageException {
        for (String flag : List.of("--kubeconfig", "--current-strategy")) {
            if (given.has(flag)) {
                throw new UsageException(flag + " needs " + RingPreviewOptions.RING);
            }
        }
        String strategy = given.value("--strategy").orElse(null);
        OptionalInt shards = given.number("--shards", 1, MAX_SHARDS);
        OptionalInt objects = given.number("--objects", 1, MAX_OBJECTS);
        OptionalInt added = given.number("--add", 1, MAX_SHARDS);
        OptionalInt removed = given.number("--remove", 1, MAX_SHARDS);
        Map<String, Integer> weights = given.has("--weights") ? weights(given.value("--weights").get()) : Map.of();
        OptionalInt tokens = tokensPerShard(given);
        OptionalInt buckets = given.number("--ranges", 1, RangePlacement.MAX_BUCKETS);
        RangeKey rangeKey = given.has("--range-key") ? rangeKey(given.value("--range-key").get()) : null;
        Optional<RangeModeStrategy> ranges = rangeMode(buckets, rangeKey, strategy, weights, tokens);
        if (ranges.isPresent()) {
            strategy = ranges.get().displayName();
        }
        if (strategy == null || shards.isEmpty() || objects.isEmpty()) {
            throw new UsageException("--strategy (or --ranges), --shards and --objects are required");
        }
        if (added.isPresent() && removed.isPresent()) {
            throw new UsageException("--add and --remove cannot be combined");
        }
        if (removed.orElse(0) >= shards.getAsInt()) {
            throw new UsageException("--remove " + removed.getAsInt() + " would leave no shard of " + shards.getAsInt());
        }
        Optional<CostDistribution> costs = costs(given.value(COSTS), objects.getAsInt());
        var options = new SimulationOptions(strategy, shards.getAsInt(), objects.getAsInt(), added.orElse(0),
                removed.orElse(0), weights, tokens, given.has("--json"), ranges, costs);
        options.checkWeightsNameFleetShards();
        return options;
    }

    /** The fleet before the change. */
    List<Shard> shardsBefore() {
        return fleet(shards);
    }

    /** The fleet after the change. */
    List<Shard> shardsAfter() {
        return fleet(shards + added - removed);
    }

    private List<Shard> fleet(int size) {
        List<Shard> fleet = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            String name = shardName(i);
            fleet.add(new Shard(name, weights.getOrDefault(name, 1)));
        }
        return fleet;
    }

    static String shardName(int index) {
        return "shard-" + index;
    }

    /** The key of object {@code index} without {@code --costs}, in namespace {@code ns-(index mod 100)}. */
    static String objectKey(int index) {
        return objectKey(index, index % NAMESPACES);
    }

    /** The key of object {@code index} in namespace {@code ns-<namespace>}. */
    static String objectKey(int index, int namespace) {
        return RingContract.partitionKey("", "ConfigMap", "ns-" + namespace, "obj-" + index);
    }

    /**
     * The namespace of each object: {@code index mod 100}, or where {@code --costs namespace-half} puts
     * it. Empty without {@code --costs} (then {@link #objectKey(int)} says it; no array is held).
     */
    Optional<int[]> namespaces() {
        return costs.map(distribution -> distribution.namespaces(COSTS_SEED, objects, NAMESPACES));
    }

    /** The relative cost of each object (mean 1); empty without {@code --costs}. */
    Optional<double[]> objectCosts() {
        return costs.map(distribution -> distribution.costs(COSTS_SEED, objects));
    }

    private void checkWeightsNameFleetShards() throws UsageException {
        List<String> fleet = fleet(shards + added).stream().map(Shard::name).toList();
        for (String name : weights.keySet()) {
            if (!fleet.contains(name)) {
                throw new UsageException("--weights names " + name + ", which is not in the fleet shard-0 … "
                        + fleet.get(fleet.size() - 1));
            }
        }
    }

    /** The range-mode ring {@code --ranges} asks for, which replaces a strategy and has no weights or tokens. */
    private static Optional<RangeModeStrategy> rangeMode(OptionalInt buckets, RangeKey key, String strategy,
            Map<String, Integer> weights, OptionalInt tokens) throws UsageException {
        if (buckets.isEmpty()) {
            if (key != null) {
                throw new UsageException("--range-key needs --ranges");
            }
            return Optional.empty();
        }
        if (Integer.bitCount(buckets.getAsInt()) != 1) {
            throw new UsageException("--ranges must be a power of two, got " + buckets.getAsInt());
        }
        if (strategy != null || !weights.isEmpty() || tokens.isPresent()) {
            throw new UsageException("--ranges replaces --strategy and takes no --weights or --tokens");
        }
        return Optional.of(new RangeModeStrategy(buckets.getAsInt(), key == null ? RangeKey.UID : key));
    }

    private static Optional<CostDistribution> costs(Optional<String> spec, int objects) throws UsageException {
        if (spec.isEmpty()) {
            return Optional.empty();
        }
        CostDistribution costs;
        try {
            costs = CostDistribution.parse(spec.get());
        } catch (IllegalArgumentException e) {
            throw new UsageException(COSTS + " " + e.getMessage());
        }
        if (objects > MAX_OBJECTS_WITH_COSTS) {
            throw new UsageException(COSTS + " takes at most " + MAX_OBJECTS_WITH_COSTS + " --objects, not " + objects);
        }
        return Optional.of(costs);
    }

    private static RangeKey rangeKey(String value) throws UsageException {
        try {
            return RangeKey.ofSpec(value);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--range-key: " + e.getMessage());
        }
    }

    /** {@code --tokens}, for either form. */
    static OptionalInt tokensPerShard(Given given) throws UsageException {
        return given.number("--tokens", 1, MAX_TOKENS_PER_SHARD);
    }

    private static Map<String, Integer> weights(String list) throws UsageException {
        Map<String, Integer> weights = new HashMap<>();
        for (String entry : list.split(",", -1)) {
            int equals = entry.indexOf('=');
            if (equals <= 0 || equals == entry.length() - 1) {
                throw new UsageException("--weights entries are NAME=WEIGHT, got '" + entry + "'");
            }
            String name = entry.substring(0, equals);
            int weight = Flags.wholeNumber("--weights " + name, entry.substring(equals + 1), 1, Shard.MAX_WEIGHT);
            if (weights.put(name, weight) != null) {
                throw new UsageException("--weights names " + name + " twice");
            }
        }
        return Map.copyOf(weights);
    }
}
