package dev.ringmaster.sharder.shell;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.RingSnapshot;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.XxHash64;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.membership.Membership;
import dev.ringmaster.sharder.membership.ShardInfo;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.StrategyBinding;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The {@code ring:*} commands of the Gogo shell: read-only views of what this replica knows, for an
 * operator at the sharder's own terminal. Every command reads the current snapshots once.
 */
public final class RingCommands {

    /** Gogo's service properties: the scope and the functions it offers. */
    public static final String SCOPE = "ring";
    public static final String[] FUNCTIONS = {"list", "shards", "explain", "strategies"};

    private final Supplier<List<ClusterRing>> rings;
    private final Function<String, Optional<ClusterRing>> ring;
    private final RingRegistry registry;
    private final Supplier<Membership> membership;
    private final Function<ClusterRing, Optional<ResourceInterpreter>> interpreter;
    private final BiFunction<String, String, Optional<ResolvedResource>> resolve;

    public RingCommands(Supplier<List<ClusterRing>> rings, Function<String, Optional<ClusterRing>> ring,
            RingRegistry registry, Supplier<Membership> membership,
            Function<ClusterRing, Optional<ResourceInterpreter>> interpreter,
            BiFunction<String, String, Optional<ResolvedResource>> resolve) {
        this.rings = rings;
        this.ring = ring;
        this.registry = registry;
        this.membership = membership;
        this.interpreter = interpreter;
        this.resolve = resolve;
    }

    /** {@code ring:list}: every ClusterRing with its strategy, shards and readiness. */
    public String list() {
        List<ClusterRing> all = rings.get();
        if (all.isEmpty()) {
            return "no ClusterRings";
        }
        Membership current = membership.get();
        StringBuilder out = new StringBuilder(String.format("%-30s %-20s %-9s %-6s %s%n",
                "RING", "STRATEGY", "AVAILABLE", "SHARDS", "READY"));
        all.stream().sorted((a, b) -> a.getMetadata().getName().compareTo(b.getMetadata().getName())).forEach(each -> {
            String name = each.getMetadata().getName();
            String strategy = registry.ring(name).map(RingRegistry.RingState::strategyName).orElse("?");
            out.append(String.format("%-30s %-20s %-9d %-6d %s%n", name, strategy,
                    current.availableShards(name).size(), current.shards(name).size(), readiness(each)));
        });
        return out.toString().stripTrailing();
    }

    /** {@code ring:shards <ring>}: the ring's shards, their state and weight. */
    public String shards(String ringName) {
        if (ring.apply(ringName).isEmpty()) {
            return "no ClusterRing " + ringName;
        }
        List<ShardInfo> shards = membership.get().shards(ringName);
        if (shards.isEmpty()) {
            return "ClusterRing " + ringName + " has no shard leases";
        }
        StringBuilder out = new StringBuilder(String.format("%-40s %-10s %-6s %s%n", "SHARD", "STATE", "WEIGHT",
                "AVAILABLE"));
        for (ShardInfo shard : shards) {
            out.append(String.format("%-40s %-10s %-6d %s%n", shard.name(), shard.state().label(), shard.weight(),
                    shard.isAvailable() ? "yes" : "no"));
        }
        return out.toString().stripTrailing();
    }

    /**
     * {@code ring:explain <ring> <group/Kind/namespace/name>}: the shard the ring's snapshot picks for
     * an object of a main resource, and how (resource, partition key, its hash, strategy, candidate
     * shards). The Kind is resolved to the ring's resource through API discovery.
     */
    public String explain(String ringName, String object) {
        Optional<ClusterRing> found = ring.apply(ringName);
        if (found.isEmpty()) {
            return "no ClusterRing " + ringName;
        }
        String[] parts = object.split("/", -1);
        if (parts.length != 4 || parts[1].isEmpty() || parts[3].isEmpty()) {
            return "name the object as group/Kind/namespace/name (empty group for the core group, empty namespace"
                    + " for a cluster-scoped object), e.g. /ConfigMap/default/settings or apps/Deployment/shop/web";
        }
        Optional<RingSnapshot> snapshot = registry.snapshot(ringName);
        if (snapshot.isEmpty()) {
            return "ClusterRing " + ringName + " has no snapshot: its strategy \""
                    + registry.ring(ringName).map(RingRegistry.RingState::strategyName).orElse("?")
                    + "\" is not deployed; objects stay where they are";
        }
        Optional<ResourceInterpreter> keys = interpreter.apply(found.get());
        if (keys.isEmpty()) {
            return "a resource interpreter of ClusterRing " + ringName + " is not deployed; objects stay where they are";
        }
        ObjectReference reference = ObjectReference.of(parts[0], "", parts[1], parts[2], parts[3]);
        Optional<String> resource = found.get().getSpec().rolesByResource().entrySet().stream()
                .filter(entry -> entry.getValue() == Role.MAIN && entry.getKey().getGroup().equals(parts[0]))
                .map(entry -> entry.getKey().getResource())
                .filter(candidate -> resolve.apply(parts[0], candidate).filter(r -> r.kind().equals(parts[1])).isPresent())
                .findFirst();
        if (resource.isEmpty()) {
            return parts[1] + (parts[0].isEmpty() ? "" : "." + parts[0]) + " is not a main resource of ClusterRing "
                    + ringName;
        }
        PartitionKey key = keys.get().keyFor(reference, new RingResource(parts[0], resource.get(), Role.MAIN));
        if (!(key instanceof PartitionKey.Key keyed)) {
            return "not assigned: " + key;
        }
        List<Shard> candidates = snapshot.get().shards().shards();
        String shard = snapshot.get().shardFor(keyed.value()).orElse("none (no available shard)");
        return String.join(System.lineSeparator(),
                "shard:      " + shard,
                "key:        " + keyed.value() + " (xxhash64 " + Long.toUnsignedString(XxHash64.hash(keyed.value()), 16) + ")",
                "resource:   " + resource.get() + (parts[0].isEmpty() ? "" : "." + parts[0]),
                "strategy:   " + snapshot.get().strategy(),
                "candidates: " + candidates.stream()
                        .map(candidate -> candidate.weight() == 1 ? candidate.name() : candidate.name() + " (weight "
                                + candidate.weight() + ")")
                        .collect(Collectors.joining(", ")));
    }

    /** {@code ring:strategies}: the strategies deployed, their settings, and the rings using each. */
    public String strategies() {
        Map<String, StrategyBinding> bound = new TreeMap<>(registry.inputs().strategies());
        String defaultStrategy = registry.inputs().defaultStrategy();
        Map<String, List<String>> ringsByStrategy = rings.get().stream()
                .map(each -> each.getMetadata().getName())
                .collect(Collectors.groupingBy(name -> registry.ring(name).map(RingRegistry.RingState::strategyName)
                        .orElse("?"), TreeMap::new, Collectors.toList()));
        StringBuilder out = new StringBuilder();
        bound.forEach((name, binding) -> out.append(name)
                .append(name.equals(defaultStrategy) ? " (default)" : "")
                .append(": rings ").append(ringsByStrategy.getOrDefault(name, List.of()))
                .append(", settings ").append(new TreeMap<>(binding.properties()))
                .append(System.lineSeparator()));
        if (!bound.containsKey(defaultStrategy)) {
            out.append(defaultStrategy).append(" (default): not deployed").append(System.lineSeparator());
        }
        return out.toString().stripTrailing();
    }

    private static String readiness(ClusterRing ring) {
        if (ring.getStatus() == null || ring.getStatus().getConditions() == null) {
            return "unknown";
        }
        return ring.getStatus().getConditions().stream().filter(condition -> "Ready".equals(condition.getType()))
                .findFirst().map(RingCommands::describe).orElse("unknown");
    }

    private static String describe(Condition ready) {
        return "True".equals(ready.getStatus()) ? "True" : ready.getStatus() + " (" + ready.getReason() + ")";
    }
}
