package dev.ringmaster.itests.support;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The ConfigMaps of a ring over one namespace and the shard Leases there, as the API server has them
 * now: which shard holds what, whether the ring has settled, who holds a shard's Lease.
 */
public final class RingObjects {

    private final KubernetesClient admin;
    private final String ring;
    private final String namespace;
    private final String shardLabel;
    private final String drainLabel;
    private final String leaseLabel;
    private final RingKind kind;

    public RingObjects(KubernetesClient admin, String ring, String namespace) {
        this(admin, RingKind.CLUSTER_RING, ring, namespace);
    }

    /** The objects of a ring of the kind, by that kind's labels. */
    public RingObjects(KubernetesClient admin, RingKind kind, String ring, String namespace) {
        this.admin = admin;
        this.ring = ring;
        this.namespace = namespace;
        this.shardLabel = kind.shardLabel(ring);
        this.drainLabel = kind.drainLabel(ring);
        this.leaseLabel = kind.leaseLabel();
        this.kind = kind;
    }

    /** The ring object's Ready condition, empty while it has none. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> ready() {
        if (!(status().get("conditions") instanceof List<?> conditions)) {
            return Map.of();
        }
        return conditions.stream().map(condition -> (Map<String, Object>) condition)
                .filter(condition -> "Ready".equals(condition.get("type"))).findFirst().orElse(Map.of());
    }

    /** The ring object's status, empty while it has none. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> status() {
        GenericKubernetesResource object = admin.genericKubernetesResources("sharding.timebertt.dev/v1alpha1", kind.kind())
                .withName(ring).get();
        Object status = object == null ? null : object.getAdditionalProperties().get("status");
        return status instanceof Map<?, ?> fields ? (Map<String, Object>) fields : Map.of();
    }

    /**
     * Waits until exactly {@code shards} are labelled ready and the ring's status counts as many available
     * shards. The sharder labels a Lease ready before its ring view has the shard; an object created in
     * between is assigned without that shard and drained to it a moment later, so a test that creates
     * objects and then expects them settled waits for the view (the status is written from it).
     */
    public void awaitAvailable(Set<String> shards, Duration timeout, Supplier<String> context) {
        Waiting.until(timeout, () -> "shards " + shards + " ready and available in the ring's status; ready "
                + readyShards() + ", status " + status() + "\n" + context.get(),
                () -> readyShards().equals(shards) && status().get("availableShards") instanceof Number available
                        && available.intValue() == shards.size());
    }

    public List<ConfigMap> configMaps() {
        return admin.configMaps().inNamespace(namespace).list().getItems();
    }

    /** The shard of each object by name; {@code (none)} for unassigned ones. */
    public Map<String, String> placement() {
        return configMaps().stream().collect(Collectors.toMap(configMap -> configMap.getMetadata().getName(),
                configMap -> RealCluster.labels(configMap).getOrDefault(shardLabel, "(none)"), (a, b) -> a, TreeMap::new));
    }

    /** Objects per shard label value; {@code (none)} for unassigned ones. */
    public Map<String, Long> perShard() {
        return configMaps().stream().collect(Collectors.groupingBy(
                configMap -> RealCluster.labels(configMap).getOrDefault(shardLabel, "(none)"), TreeMap::new,
                Collectors.counting()));
    }

    /** All {@code objects} on one of {@code available}, each of them with some, none in drain or unassigned. */
    public boolean isSettledOn(Set<String> available, int objects) {
        List<ConfigMap> configMaps = configMaps();
        return configMaps.size() == objects && configMaps.stream().allMatch(configMap ->
                available.contains(RealCluster.labels(configMap).get(shardLabel))
                        && !RealCluster.labels(configMap).containsKey(drainLabel))
                && perShard().keySet().equals(available);
    }

    /**
     * Waits until {@link #isSettledOn} holds within {@code timeout}, then checks that it still does
     * throughout 2 s; a failure shows the objects per shard and {@code context} (logs).
     */
    public void awaitSettledOn(Set<String> available, int objects, Duration timeout, Supplier<String> context) {
        Waiting.until(timeout, () -> "every object on " + available + ", none draining; now " + perShard() + "\n"
                + context.get(), () -> isSettledOn(available, objects));
        try {
            Waiting.throughout(Duration.ofSeconds(2), "settled on " + available).until(() -> isSettledOn(available, objects));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("settled on " + available + ", then no longer; now " + perShard()
                    + (anyDraining() ? ", some draining" : "") + "; leases " + leaseStates() + "\n" + context.get(), e);
        }
    }

    /** The checksum controller's Secrets: one per ConfigMap once each has been reconciled. */
    public long checksumSecrets() {
        return admin.secrets().inNamespace(namespace).list().getItems().stream()
                .filter(secret -> secret.getMetadata().getName().startsWith("checksums-")).count();
    }

    /** Whether some object carries the drain label: a move is under way. */
    public boolean anyDraining() {
        return configMaps().stream().anyMatch(configMap -> RealCluster.labels(configMap).containsKey(drainLabel));
    }

    /** The shards whose Lease the sharder labelled ready. */
    public Set<String> readyShards() {
        return admin.leases().inNamespace(namespace).withLabel(leaseLabel, ring).list().getItems().stream()
                .filter(lease -> "ready".equals(RealCluster.labels(lease).get(RingContract.STATE_LABEL)))
                .map(lease -> lease.getMetadata().getName()).collect(Collectors.toSet());
    }

    /** Each shard Lease's state label and holder, for failure messages. */
    public Map<String, String> leaseStates() {
        return admin.leases().inNamespace(namespace).withLabel(leaseLabel, ring).list().getItems().stream()
                .collect(Collectors.toMap(lease -> lease.getMetadata().getName(), lease -> RealCluster.labels(lease)
                        .getOrDefault(RingContract.STATE_LABEL, "?") + " held by " + lease.getSpec().getHolderIdentity(),
                        (a, b) -> a, TreeMap::new));
    }

    public String stateOf(String shard) {
        return RealCluster.labels(lease(shard)).get(RingContract.STATE_LABEL);
    }

    /** The holder of the shard's Lease, empty if none. */
    public String holderOf(String shard) {
        String holder = lease(shard).getSpec().getHolderIdentity();
        return holder == null ? "" : holder;
    }

    private Lease lease(String shard) {
        return admin.leases().inNamespace(namespace).withName(shard).get();
    }
}
