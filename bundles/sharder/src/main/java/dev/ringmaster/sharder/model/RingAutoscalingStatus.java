package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** {@code status.autoscaling}: what the leader's autoscaler last saw and decided (docs/design.md section 10.1). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RingAutoscalingStatus {

    @JsonPropertyDescription("The replicas of the scale target (spec.replicas of its scale subresource).")
    private Integer currentShards;

    @JsonPropertyDescription("The shards the autoscaler wants now: the stabilized recommendation.")
    private Integer desiredShards;

    @JsonPropertyDescription("When the autoscaler last changed the scale target's replicas.")
    private String lastScaleTime;

    @JsonPropertyDescription("Why nothing is decided, when nothing is (e.g. no shard reports its load).")
    private String message;

    public RingAutoscalingStatus() {
    }

    public RingAutoscalingStatus(Integer currentShards, Integer desiredShards, String lastScaleTime, String message) {
        this.currentShards = currentShards;
        this.desiredShards = desiredShards;
        this.lastScaleTime = lastScaleTime;
        this.message = message;
    }

    public Integer getCurrentShards() {
        return currentShards;
    }

    public void setCurrentShards(Integer currentShards) {
        this.currentShards = currentShards;
    }

    public Integer getDesiredShards() {
        return desiredShards;
    }

    public void setDesiredShards(Integer desiredShards) {
        this.desiredShards = desiredShards;
    }

    public String getLastScaleTime() {
        return lastScaleTime;
    }

    public void setLastScaleTime(String lastScaleTime) {
        this.lastScaleTime = lastScaleTime;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RingAutoscalingStatus that && Objects.equals(currentShards, that.currentShards)
                && Objects.equals(desiredShards, that.desiredShards) && Objects.equals(lastScaleTime, that.lastScaleTime)
                && Objects.equals(message, that.message);
    }

    @Override
    public int hashCode() {
        return Objects.hash(currentShards, desiredShards, lastScaleTime, message);
    }

    @Override
    public String toString() {
        return "RingAutoscalingStatus[currentShards=" + currentShards + ", desiredShards=" + desiredShards
                + ", lastScaleTime=" + lastScaleTime + ", message=" + message + "]";
    }
}
