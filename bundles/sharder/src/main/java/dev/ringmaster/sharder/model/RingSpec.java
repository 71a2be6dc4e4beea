package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingResource.Role;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a ClusterRing shards and how. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.balancing) || !has(self.ranges)",
        message = "spec.balancing is for label mode: a range-mode ring is balanced with spec.ranges.balancing")
@ValidationRule(value = "!has(self.balancing) || !has(self.balancing.policy)",
        message = "spec.balancing.policy: label mode balances by shard weights, with no placement policy; omit it")
public class RingSpec {

    /** Namespace label the API server sets on every namespace to its name. */
    public static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";
    /** The restart grace of a ring that sets none ({@code spec.shardRestartGraceSeconds}). */
    public static final Duration DEFAULT_SHARD_RESTART_GRACE = Duration.ofSeconds(60);
    /** The largest restart grace a ring may set. */
    public static final int MAX_SHARD_RESTART_GRACE_SECONDS = 3600;

    /** The main resources of the sharded controller, each with the resources it controls. */
    @Required
    @Size(min = 1)
    @JsonPropertyDescription("The main resources of the sharded controller, each with the resources its objects control.")
    private List<RingResourceSpec> resources = new ArrayList<>();

    /** Namespaces whose objects are sharded; empty: all but kube-system and sharding-system. */
    @JsonPropertyDescription("Namespaces whose objects are sharded. Empty or omitted: all namespaces but kube-system"
            + " and sharding-system.")
    private LabelSelector namespaceSelector;

    /** Ringmaster extension: partitioning strategy by name; empty: the sharder's default. */
    @JsonPropertyDescription("Name of the partitioning strategy (Ringmaster extension). Empty or omitted: the"
            + " sharder's default strategy.")
    private String strategy;

    /** Ringmaster extension: how long a restarting shard keeps its objects; omitted: 60 s. */
    @Min(0)
    @Max(MAX_SHARD_RESTART_GRACE_SECONDS)
    @JsonPropertyDescription("Seconds a shard that stops to be restarted (its Lease annotated ringmaster.dev/restarting)"
            + " keeps its objects before they move (Ringmaster extension). 0: no such hold, the shard is judged by its"
            + " Lease alone. Omitted: 60.")
    private Integer shardRestartGraceSeconds;

    /** Ringmaster extension: present, the ring shards by hash ranges on the shard Leases (range mode). */
    @JsonPropertyDescription("Present: the ring shards by ranges of the hash space (range mode, Ringmaster extension):"
            + " the sharder publishes each shard's ranges on its Lease (ringmaster.dev/assigned-ranges) and labels no"
            + " object; the shards list and watch with a shardSelector (Kubernetes 1.36, KEP-5866). Omitted: objects"
            + " are labelled with their shard.")
    private RingRanges ranges;

    /** Ringmaster extension: present, the leader sizes the shards' workload by their reported load. */
    @JsonPropertyDescription("Present: the leader sets the replicas of the shards' workload (scaleTargetRef, through its"
            + " scale subresource) from the load the shards report on their Leases (ringmaster.dev/load), keeping the"
            + " mean busy time per shard at targetUtilizationPercent (Ringmaster extension). Omitted: the shard count is"
            + " left to others.")
    private RingAutoscaling autoscaling;

    /** Ringmaster extension: present, the leader weighs a label-mode ring's shards by their reported load. */
    @JsonPropertyDescription("Present, in label mode: the leader adjusts each shard's weight (status.balancing) from"
            + " the load the shards report on their Leases (ringmaster.dev/load), so that the busiest shard comes"
            + " within maxImbalancePercent of the mean; objects move through the drain handover (Ringmaster"
            + " extension). A range-mode ring uses spec.ranges.balancing instead. Omitted: the Leases' weights alone.")
    private RingBalancing balancing;

    public List<RingResourceSpec> getResources() {
        return resources;
    }

    public void setResources(List<RingResourceSpec> resources) {
        this.resources = resources;
    }

    public LabelSelector getNamespaceSelector() {
        return namespaceSelector;
    }

    public void setNamespaceSelector(LabelSelector namespaceSelector) {
        this.namespaceSelector = namespaceSelector;
    }

    public String getStrategy() {
        return strategy;
    }

    public void setStrategy(String strategy) {
        this.strategy = strategy;
    }

    public Integer getShardRestartGraceSeconds() {
        return shardRestartGraceSeconds;
    }

    public void setShardRestartGraceSeconds(Integer shardRestartGraceSeconds) {
        this.shardRestartGraceSeconds = shardRestartGraceSeconds;
    }

    public RingRanges getRanges() {
        return ranges;
    }

    public void setRanges(RingRanges ranges) {
        this.ranges = ranges;
    }

    public RingAutoscaling getAutoscaling() {
        return autoscaling;
    }

    public void setAutoscaling(RingAutoscaling autoscaling) {
        this.autoscaling = autoscaling;
    }

    public RingBalancing getBalancing() {
        return balancing;
    }

    public void setBalancing(RingBalancing balancing) {
        this.balancing = balancing;
    }

    /** Whether the ring shards by hash ranges ({@code spec.ranges} present). Not a bean getter. */
    public boolean rangeMode() {
        return ranges != null;
    }

    /**
     * The ring's restart grace (docs/design.md section 3): {@code spec.shardRestartGraceSeconds}, 60 s when it is
     * omitted, held to 0..{@value #MAX_SHARD_RESTART_GRACE_SECONDS} s (a value outside, which the CRD's schema
     * refuses, makes the ring invalid too). Not a bean getter, so neither Jackson nor the CRD generator sees it.
     */
    public Duration shardRestartGraceOrDefault() {
        if (shardRestartGraceSeconds == null) {
            return DEFAULT_SHARD_RESTART_GRACE;
        }
        return Duration.ofSeconds(Math.max(0, Math.min(MAX_SHARD_RESTART_GRACE_SECONDS, shardRestartGraceSeconds)));
    }

    /**
     * The namespaces whose objects the ring shards: the ring's selector, or when it is omitted or empty
     * the default that keeps the sharder out of kube-system and its own namespace (sharding objects
     * there could lock the cluster or the sharder out). Not a bean getter, so neither Jackson nor the
     * CRD generator sees it.
     */
    public LabelSelector namespaceSelectorOrDefault() {
        boolean empty = namespaceSelector == null
                || (isEmpty(namespaceSelector.getMatchLabels()) && isEmpty(namespaceSelector.getMatchExpressions()));
        if (!empty) {
            return namespaceSelector;
        }
        return new LabelSelectorBuilder()
                .addNewMatchExpression()
                .withKey(NAMESPACE_NAME_LABEL)
                .withOperator("NotIn")
                .withValues("kube-system", RingContract.SYSTEM_NAMESPACE)
                .endMatchExpression()
                .build();
    }

    /**
     * Every resource of the ring with its role: the main resources, and the resources they control
     * (a resource listed as both is main). Not a bean getter, so neither Jackson nor the CRD generator
     * sees it.
     */
    public Map<GroupResource, Role> rolesByResource() {
        Map<GroupResource, Role> roles = new LinkedHashMap<>();
        for (RingResourceSpec main : resources) {
            roles.put(new GroupResource(main.getGroup(), main.getResource()), Role.MAIN);
        }
        for (RingResourceSpec main : resources) {
            main.getControlledResources().forEach(controlled -> roles.putIfAbsent(controlled, Role.CONTROLLED));
        }
        return roles;
    }

    /**
     * The name of the resource interpreter for every resource of the ring, empty for the sharder's
     * default: a main resource's own, and for a controlled resource that of the (first) main resource
     * listing it, since its objects take their controller's key.
     */
    public Map<GroupResource, String> interpretersByResource() {
        Map<GroupResource, String> names = new LinkedHashMap<>();
        for (RingResourceSpec main : resources) {
            names.put(new GroupResource(main.getGroup(), main.getResource()),
                    main.getInterpreter() == null ? "" : main.getInterpreter());
        }
        for (RingResourceSpec main : resources) {
            main.getControlledResources().forEach(controlled -> names.putIfAbsent(controlled,
                    names.get(new GroupResource(main.getGroup(), main.getResource()))));
        }
        return names;
    }

    private static boolean isEmpty(Map<?, ?> map) {
        return map == null || map.isEmpty();
    }

    private static boolean isEmpty(List<?> list) {
        return list == null || list.isEmpty();
    }
}
