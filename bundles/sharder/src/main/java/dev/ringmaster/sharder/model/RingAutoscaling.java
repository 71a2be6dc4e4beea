package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import java.time.Duration;
import java.util.Objects;

/**
 * {@code spec.autoscaling} of a ring (Ringmaster extension, docs/design.md section 10.1): present, the leader sets the
 * replicas of the shards' workload from the load the shards report, as many shards as keep the mean busy time per
 * shard at the target.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.minShards) || self.maxShards >= self.minShards",
        message = "spec.autoscaling.maxShards must not be less than minShards")
public class RingAutoscaling {

    static final int DEFAULT_MIN_SHARDS = 1;
    public static final int MAX_SHARDS = 1000;
    static final int DEFAULT_TARGET_UTILIZATION_PERCENT = 60;
    static final int DEFAULT_SCALE_UP_STABILIZATION_SECONDS = 0;
    static final int DEFAULT_SCALE_DOWN_STABILIZATION_SECONDS = 300;
    static final int MAX_STABILIZATION_SECONDS = 3600;

    @Required
    @JsonPropertyDescription("The shards' workload whose replicas are set: any resource with a scale subresource"
            + " (a StatefulSet, a Deployment, a custom resource).")
    private ScaleTargetRef scaleTargetRef;

    @Min(1)
    @Max(MAX_SHARDS)
    @JsonPropertyDescription("The fewest shards. Omitted: 1.")
    private Integer minShards;

    @Required
    @Min(1)
    @Max(MAX_SHARDS)
    @JsonPropertyDescription("The most shards, at least minShards.")
    private Integer maxShards;

    @Min(1)
    @Max(100)
    @JsonPropertyDescription("The mean busy time per shard to keep, in percent of one second per second (the busy"
            + " seconds per second the shards report in ringmaster.dev/load). Omitted: 60.")
    private Integer targetUtilizationPercent;

    @Min(0)
    @Max(MAX_STABILIZATION_SECONDS)
    @JsonPropertyDescription("Seconds over which the lowest recommendation is taken when scaling up (as an HPA's"
            + " behavior.scaleUp.stabilizationWindowSeconds). Omitted: 0.")
    private Integer scaleUpStabilizationSeconds;

    @Min(0)
    @Max(MAX_STABILIZATION_SECONDS)
    @JsonPropertyDescription("Seconds over which the highest recommendation is taken when scaling down (as an HPA's"
            + " behavior.scaleDown.stabilizationWindowSeconds). Omitted: 300.")
    private Integer scaleDownStabilizationSeconds;

    public RingAutoscaling() {
    }

    public RingAutoscaling(ScaleTargetRef scaleTargetRef, Integer minShards, Integer maxShards,
            Integer targetUtilizationPercent, Integer scaleUpStabilizationSeconds, Integer scaleDownStabilizationSeconds) {
        this.scaleTargetRef = scaleTargetRef;
        this.minShards = minShards;
        this.maxShards = maxShards;
        this.targetUtilizationPercent = targetUtilizationPercent;
        this.scaleUpStabilizationSeconds = scaleUpStabilizationSeconds;
        this.scaleDownStabilizationSeconds = scaleDownStabilizationSeconds;
    }

    public ScaleTargetRef getScaleTargetRef() {
        return scaleTargetRef;
    }

    public void setScaleTargetRef(ScaleTargetRef scaleTargetRef) {
        this.scaleTargetRef = scaleTargetRef;
    }

    public Integer getMinShards() {
        return minShards;
    }

    public void setMinShards(Integer minShards) {
        this.minShards = minShards;
    }

    public Integer getMaxShards() {
        return maxShards;
    }

    public void setMaxShards(Integer maxShards) {
        this.maxShards = maxShards;
    }

    public Integer getTargetUtilizationPercent() {
        return targetUtilizationPercent;
    }

    public void setTargetUtilizationPercent(Integer targetUtilizationPercent) {
        this.targetUtilizationPercent = targetUtilizationPercent;
    }

    public Integer getScaleUpStabilizationSeconds() {
        return scaleUpStabilizationSeconds;
    }

    public void setScaleUpStabilizationSeconds(Integer scaleUpStabilizationSeconds) {
        this.scaleUpStabilizationSeconds = scaleUpStabilizationSeconds;
    }

    public Integer getScaleDownStabilizationSeconds() {
        return scaleDownStabilizationSeconds;
    }

    public void setScaleDownStabilizationSeconds(Integer scaleDownStabilizationSeconds) {
        this.scaleDownStabilizationSeconds = scaleDownStabilizationSeconds;
    }

    /** The settings with their defaults, as one value; the spec must be valid ({@link RingValidation}). */
    public Settings settings() {
        return new Settings(scaleTargetRef, Objects.requireNonNullElse(minShards, DEFAULT_MIN_SHARDS), maxShards,
                Objects.requireNonNullElse(targetUtilizationPercent, DEFAULT_TARGET_UTILIZATION_PERCENT) / 100.0,
                Duration.ofSeconds(Objects.requireNonNullElse(scaleUpStabilizationSeconds,
                        DEFAULT_SCALE_UP_STABILIZATION_SECONDS)),
                Duration.ofSeconds(Objects.requireNonNullElse(scaleDownStabilizationSeconds,
                        DEFAULT_SCALE_DOWN_STABILIZATION_SECONDS)));
    }

    /**
     * A ring's autoscaling settings with their defaults.
     *
     * @param target     the shards' workload
     * @param minShards  the fewest shards
     * @param maxShards  the most shards
     * @param targetBusy the mean busy seconds per second per shard to keep, e.g. 0.6
     * @param scaleUp    the scale-up stabilization window
     * @param scaleDown  the scale-down stabilization window
     */
    public record Settings(ScaleTargetRef target, int minShards, int maxShards, double targetBusy, Duration scaleUp,
            Duration scaleDown) {
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RingAutoscaling that && Objects.equals(scaleTargetRef, that.scaleTargetRef)
                && Objects.equals(minShards, that.minShards) && Objects.equals(maxShards, that.maxShards)
                && Objects.equals(targetUtilizationPercent, that.targetUtilizationPercent)
                && Objects.equals(scaleUpStabilizationSeconds, that.scaleUpStabilizationSeconds)
                && Objects.equals(scaleDownStabilizationSeconds, that.scaleDownStabilizationSeconds);
    }

    @Override
    public int hashCode() {
        return Objects.hash(scaleTargetRef, minShards, maxShards, targetUtilizationPercent, scaleUpStabilizationSeconds,
                scaleDownStabilizationSeconds);
    }

    @Override
    public String toString() {
        return "RingAutoscaling[scaleTargetRef=" + scaleTargetRef + ", minShards=" + minShards + ", maxShards="
                + maxShards + ", targetUtilizationPercent=" + targetUtilizationPercent + ", scaleUpStabilizationSeconds="
                + scaleUpStabilizationSeconds + ", scaleDownStabilizationSeconds=" + scaleDownStabilizationSeconds + "]";
    }
}
