package dev.ringmaster.testing.rings;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A ring as the API server has it now, for tests on a real server or cluster: the ring object's status,
 * which shard each of its ConfigMaps is on, the shard Leases and their states, and waits until the ring
 * is available or settled, whose failures say where the objects are and what the Leases are. The ring's
 * objects are the ConfigMaps of one namespace; its shard Leases live in another or the same.
 */
public class RingState {

    private final KubernetesClient client;
    private final RingKind kind;
    private final String ring;
    private final String objectsNamespace;
    private final String leaseNamespace;
    private final Waiting waiting;

    public RingState(KubernetesClient client, RingKind kind, String ring, String objectsNamespace,
            String leaseNamespace, Waiting waiting) {
        this.client = client;
        this.kind = kind;
        this.ring = ring;
        this.objectsNamespace = objectsNamespace;
        this.leaseNamespace = leaseNamespace;
        this.waiting = waiting;
    }

    public RingKind kind() {
        return kind;
    }

    public String ring() {
        return ring;
    }

    /** Namespace of the ring's ConfigMaps. */
    public String objectsNamespace() {
        return objectsNamespace;
    }

    public String shardLabel() {
        return kind.shardLabel(ring);
    }

    public String drainLabel() {
        return kind.drainLabel(ring);
    }

    /** The ring object's status, empty while it has none. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> status() {
        GenericKubernetesResource object = client.genericKubernetesResources(
                RingContract.API_GROUP + "/" + RingContract.API_VERSION, kind.kind()).withName(ring).get();
        Object status = object == null ? null : object.getAdditionalProperties().get("status");
        return status instanceof Map<?, ?> fields ? (Map<String, Object>) fields : Map.of();
    }

    /** The ring object's Ready condition (status, reason, message, …), empty while it has none. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> readyCondition() {
        if (!(status().get("conditions") instanceof List<?> conditions)) {
            return Map.of();
        }
        return conditions.stream().map(condition -> (Map<String, Object>) condition)
                .filter(condition -> "Ready".equals(condition.get("type"))).findFirst().orElse(Map.of());
    }

    /** Whether the ring object's Ready condition is True. */
    public boolean isReady() {
        return "True".equals(readyCondition().get("status"));
    }

    /** Waits until the ring object's Ready condition is True; a failure shows the condition and {@code context}. */
    public void awaitReady(Duration timeout, Supplier<String> context) {
        waiting.until(timeout, () -> kind.kind() + " " + ring + " Ready, got " + readyCondition() + "\n" + context.get(),
                this::isReady);
    }

    /** The ring's ConfigMaps: every ConfigMap of the objects' namespace. */
    public List<ConfigMap> configMaps() {
        return client.configMaps().inNamespace(objectsNamespace).list().getItems();
    }

    /** The shard of each object by name; {@code (none)} for unassigned ones. */
    public Map<String, String> placement() {
        return configMaps().stream().collect(Collectors.toMap(configMap -> configMap.getMetadata().getName(),
                this::shardOf, (a, b) -> a, TreeMap::new));
    }

    /** Objects per shard label value; {@code (none)} for unassigned ones. */
    public Map<String, Long> perShard() {
        return configMaps().stream().collect(Collectors.groupingBy(this::shardOf, TreeMap::new, Collectors.counting()));
    }

    private String shardOf(ConfigMap configMap) {
        return labels(configMap).getOrDefault(shardLabel(), "(none)");
    }

    /** Whether some object carries the drain label: a move is under way. */
    public boolean anyDraining() {
        return configMaps().stream().anyMatch(configMap -> labels(configMap).containsKey(drainLabel()));
    }

    /** Shard Leases of the ring, by name. */
    public Map<String, Lease> leases() {
        return client.leases().inNamespace(leaseNamespace).withLabel(kind.leaseLabel(), ring).list().getItems().stream()
                .collect(Collectors.toMap(lease -> lease.getMetadata().getName(), Function.identity(), (a, b) -> a,
                        TreeMap::new));
    }

    /** The shards whose Lease the sharder labelled {@code ready}. */
    public Set<String> readyShards() {
        return leases().values().stream().filter(lease -> "ready".equals(stateOf(lease)))
                .map(lease -> lease.getMetadata().getName()).collect(Collectors.toCollection(TreeSet::new));
    }

    /** Each shard Lease's state label, holder and last renewal, for failure messages. */
    public Map<String, String> leaseStates() {
        return leases().values().stream().collect(Collectors.toMap(lease -> lease.getMetadata().getName(),
                lease -> Objects.requireNonNullElse(stateOf(lease), "?") + " held by " + lease.getSpec().getHolderIdentity()
                        + " renewed " + lease.getSpec().getRenewTime(), (a, b) -> a, TreeMap::new));
    }

    /** The state label the sharder put on the shard's Lease, null if none. */
    public String stateOf(String shard) {
        return stateOf(lease(shard));
    }

    private static String stateOf(Lease lease) {
        return labels(lease).get(RingContract.STATE_LABEL);
    }

    /** The holder of the shard's Lease, empty if none. */
    public String holderOf(String shard) {
        return Objects.requireNonNullElse(lease(shard).getSpec().getHolderIdentity(), "");
    }

    private Lease lease(String shard) {
        return client.leases().inNamespace(leaseNamespace).withName(shard).get();
    }

    /**
     * Waits until exactly {@code shards} are labelled ready and the ring's status counts as many available
     * shards. The sharder labels a Lease ready before its ring view has the shard; an object created in
     * between is assigned without that shard and drained to it a moment later, so a test that creates
     * objects and then expects them settled waits for the view (the status is written from it).
     */
    public void awaitAvailable(Set<String> shards, Duration timeout, Supplier<String> context) {
        awaitAvailable(() -> "shards " + shards, shards::equals, timeout, context);
    }

    /** {@link #awaitAvailable(Set, Duration, Supplier)} for ready shards that {@code expected} accepts. */
    public void awaitAvailable(Supplier<String> expected, Predicate<Set<String>> isExpected, Duration timeout,
            Supplier<String> context) {
        waiting.until(timeout, () -> expected.get() + " ready and available in the ring's status; ready "
                + readyShards() + ", available in the status " + status().get("availableShards") + "\n" + context.get(),
                () -> {
                    Set<String> ready = readyShards();
                    return isExpected.test(ready) && status().get("availableShards") instanceof Number available
                            && available.intValue() == ready.size();
                });
    }

    /**
     * Why the ring's objects are not settled on {@code shards}; empty if they are: every ConfigMap labelled
     * with one of them and none with the drain label, and each of {@code shards} holding some (a shard that
     * just became ready has none until the leader's rebalance pass drains its share to it).
     */
    public List<String> unsettled(Set<String> shards) {
        List<String> problems = new ArrayList<>();
        List<ConfigMap> configMaps = configMaps();
        Set<String> holding = configMaps.stream().map(configMap -> labels(configMap).get(shardLabel()))
                .filter(Objects::nonNull).collect(Collectors.toSet());
        for (String shard : shards) {
            if (!holding.contains(shard)) {
                problems.add(shard + " has no objects yet");
            }
        }
        for (ConfigMap configMap : configMaps) {
            String name = configMap.getMetadata().getName();
            String shard = labels(configMap).get(shardLabel());
            if (shard == null) {
                problems.add(name + " unassigned");
            } else if (!shards.contains(shard)) {
                problems.add(name + " on " + shard + ", not an available shard");
            }
            if (labels(configMap).containsKey(drainLabel())) {
                problems.add(name + " in drain");
            }
        }
        return problems;
    }

    /**
     * Waits until {@code problems} (the caller's {@link #unsettled} and whatever else it needs) is empty and
     * stays so throughout {@code hold}, within {@code timeout}. A lapse starts the hold again: a rebalance pass
     * leaves a move it could not write (a conflict, the move budget) to the next pass, so between two passes a
     * ring can look settled and still have a drain to start. A failure says what was last not settled, the
     * objects per shard, whether some are in drain, the shard Leases' states and {@code context} (logs), so
     * that the next one tells a move from a shard dropping out of the ring.
     */
    public void awaitSettled(Set<String> shards, Duration timeout, Duration hold, Callable<List<String>> problems,
            Supplier<String> context) {
        waiting.steady(timeout, hold, () -> "settled on " + shards + "; now " + situation() + "\n" + context.get(),
                problems);
    }

    /** Objects per shard, whether some are in drain, and the shard Leases' states. */
    private String situation() {
        return "per shard " + perShard() + (anyDraining() ? ", some draining" : "") + "; leases " + leaseStates();
    }

    /** An object's labels, empty if it has none. */
    public static Map<String, String> labels(HasMetadata object) {
        return Objects.requireNonNullElse(object.getMetadata().getLabels(), Map.of());
    }
}
