package dev.ringmaster.sharder.app;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.XxHash64;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingObject;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.ring.StrategyBinding;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * The {@code ring:*} commands of the Gogo shell: read-only views of what this replica knows, for an
 * operator at the sharder's own terminal. Every command reads the current ring views once.
 *
 * <p>A ring is named {@code kind/name} ({@code controllerring/web}, {@code ClusterRing/web}) or by its
 * name alone when no ring of the other kind has it.
 */
public final class RingCommands {

    /** Gogo's service properties: the scope and the functions it offers. */
    public static final String SCOPE = "ring";
    public static final String[] FUNCTIONS = {"list", "shards", "explain", "strategies"};

    private final RingRegistry registry;
    private final BiFunction<String, String, Optional<ResolvedResource>> resolve;

    /**
     * @param registry every ring's current view
     * @param resolve  the served resource of a group and plural name (API discovery), for its Kind
     */
    public RingCommands(RingRegistry registry, BiFunction<String, String, Optional<ResolvedResource>> resolve) {
        this.registry = registry;
        this.resolve = resolve;
    }

    /** {@code ring:list}: every ring of both kinds with its strategy, shards and readiness. */
    public String list() {
        Collection<RingView> all = registry.views();
        if (all.isEmpty()) {
            return "no ClusterRings or ControllerRings";
        }
        StringBuilder out = new StringBuilder(String.format("%-15s %-30s %-20s %-9s %-6s %s%n",
                "KIND", "RING", "STRATEGY", "AVAILABLE", "SHARDS", "READY"));
        all.forEach(view -> out.append(String.format("%-15s %-30s %-20s %-9d %-6d %s%n", view.kind().kind(), view.name(),
                view.strategyName(), view.availableShards().size(), view.shards().size(), readiness(view.ring()))));
        return out.toString().stripTrailing();
    }

    /** {@code ring:shards <ring>}: the ring's shards, their state and weight. */
    public String shards(String ringName) {
        Lookup found = lookup(ringName);
        if (found.view().isEmpty()) {
            return found.failure();
        }
        RingView view = found.view().get();
        List<ShardInfo> shards = view.shards();
        if (shards.isEmpty()) {
            return view.key() + " has no shard leases";
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
     * {@code ring:explain <ring> <group/Kind/namespace/name>}: the shard the ring's view picks for
     * an object of a main resource, and how (resource, partition key, its hash, strategy, candidate
     * shards). The Kind is resolved to the ring's resource through API discovery.
     */
    public String explain(String ringName, String object) {
        Lookup found = lookup(ringName);
        if (found.view().isEmpty()) {
            return found.failure();
        }
        RingView view = found.view().get();
        String[] parts = object.split("/", -1);
        if (parts.length != 4 || parts[1].isEmpty() || parts[3].isEmpty()) {
            return "name the object as group/Kind/namespace/name (empty group for the core group, empty namespace"
                    + " for a cluster-scoped object), e.g. /ConfigMap/default/settings or apps/Deployment/shop/web";
        }
        Optional<RingView.Blocker> blocker = view.blocker();
        if (blocker.isPresent()) {
            return view.key() + " is not Ready (" + blocker.get().reason() + "): "
                    + blocker.get().message();
        }
        Optional<RingResource> resource = view.resources().values().stream()
                .filter(candidate -> candidate.role() == Role.MAIN && candidate.group().equals(parts[0]))
                .filter(candidate -> resolve.apply(parts[0], candidate.resource())
                        .filter(served -> served.kind().equals(parts[1])).isPresent())
                .findFirst();
        if (resource.isEmpty()) {
            return parts[1] + (parts[0].isEmpty() ? "" : "." + parts[0]) + " is not a main resource of " + view.key();
        }
        PartitionKey key = view.keyFor(ObjectReference.of(parts[0], "", parts[1], parts[2], parts[3]), resource.get());
        if (!(key instanceof PartitionKey.Key keyed)) {
            return "not assigned: " + key;
        }
        List<Shard> candidates = view.availableShards();
        String shard = view.shardFor(key).orElse("none (no available shard)");
        return String.join(System.lineSeparator(),
                "shard:      " + shard,
                "key:        " + keyed.value() + " (xxhash64 " + Long.toUnsignedString(XxHash64.hash(keyed.value()), 16) + ")",
                "resource:   " + resource.get().resource() + (parts[0].isEmpty() ? "" : "." + parts[0]),
                "strategy:   " + view.strategyName(),
                "candidates: " + candidates.stream()
                        .map(candidate -> candidate.weight() == 1 ? candidate.name() : candidate.name() + " (weight "
                                + candidate.weight() + ")")
                        .collect(Collectors.joining(", ")));
    }

    /** {@code ring:strategies}: the strategies deployed, their settings, and the rings using each. */
    public String strategies() {
        Map<String, StrategyBinding> bound = new TreeMap<>(registry.inputs().strategies());
        String defaultStrategy = registry.inputs().defaultStrategy();
        Map<String, List<String>> ringsByStrategy = registry.views().stream().collect(Collectors.groupingBy(
                RingView::strategyName, TreeMap::new, Collectors.mapping(view -> view.key().toString(), Collectors.toList())));
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

    /** A ring's view, or why there is none. */
    private record Lookup(Optional<RingView> view, String failure) {
    }

    /** The ring {@code kind/name} or, when only one kind has a ring of that name, {@code name}. */
    private Lookup lookup(String ring) {
        int slash = ring.indexOf('/');
        if (slash >= 0) {
            RingKind kind;
            try {
                kind = RingKind.ofKind(ring.substring(0, slash));
            } catch (IllegalArgumentException e) {
                return new Lookup(Optional.empty(), e.getMessage());
            }
            RingKey key = new RingKey(kind, ring.substring(slash + 1));
            return new Lookup(registry.view(key), "no " + key);
        }
        List<RingView> named = registry.views().stream().filter(view -> view.name().equals(ring)).toList();
        return switch (named.size()) {
            case 0 -> new Lookup(Optional.empty(), "no ClusterRing or ControllerRing " + ring);
            case 1 -> new Lookup(Optional.of(named.get(0)), "");
            default -> new Lookup(Optional.empty(), "both a ClusterRing and a ControllerRing are named " + ring
                    + ": say clusterring/" + ring + " or controllerring/" + ring);
        };
    }

    private static String readiness(RingObject ring) {
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
