package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/** The sharder's report on a ring. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RingStatus {

    @JsonPropertyDescription("The generation of the ring the sharder last acted on.")
    private Long observedGeneration;
    /** Leases carrying the ring label. */
    @JsonPropertyDescription("Number of shard Leases of the ring.")
    private Integer shards;
    /** Shards in state ready, expired or uncertain. */
    @JsonPropertyDescription("Number of shards objects may be assigned to (ready, expired or uncertain).")
    private Integer availableShards;
    @JsonPropertyDescription("Autoscaling of the shards' workload (spec.autoscaling): current and desired shards.")
    private RingAutoscalingStatus autoscaling;
    @JsonPropertyDescription("Shard weights by load (spec.balancing, label mode), as the leader set them.")
    private RingBalancingStatus balancing;
    @JsonPropertyDescription("Conditions of the ring; Ready tells whether the sharder is sharding it.")
    private List<Condition> conditions = new ArrayList<>();

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    public Integer getShards() {
        return shards;
    }

    public void setShards(Integer shards) {
        this.shards = shards;
    }

    public Integer getAvailableShards() {
        return availableShards;
    }

    public void setAvailableShards(Integer availableShards) {
        this.availableShards = availableShards;
    }

    public RingAutoscalingStatus getAutoscaling() {
        return autoscaling;
    }

    public void setAutoscaling(RingAutoscalingStatus autoscaling) {
        this.autoscaling = autoscaling;
    }

    public RingBalancingStatus getBalancing() {
        return balancing;
    }

    public void setBalancing(RingBalancingStatus balancing) {
        this.balancing = balancing;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }
}
