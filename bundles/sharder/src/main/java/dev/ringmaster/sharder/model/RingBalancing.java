package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import java.time.Duration;
import java.util.Objects;

/**
 * {@code spec.ranges.balancing} of a range-mode ring (Ringmaster extension, docs/design.md section 10): present, the
 * leader places the ranges with a placement policy by what the shards report their objects cost, instead of by
 * hash alone. The same settings as {@code spec.balancing} of a label-mode ring (section 10.2) have the leader weigh
 * the shards instead, with no policy.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RingBalancing {

    public static final String DEFAULT_POLICY = "load-aware";
    static final int DEFAULT_MAX_IMBALANCE_PERCENT = 10;
    static final int DEFAULT_MAX_MOVE_PERCENT = 10;
    static final int DEFAULT_INTERVAL_SECONDS = 30;
    static final int DEFAULT_STABILIZATION_SECONDS = 60;
    static final int MIN_INTERVAL_SECONDS = 5;
    static final int MAX_SECONDS = 3600;

    @JsonPropertyDescription("Name of the placement policy (a plug-in service), in range mode only. Omitted:"
            + " load-aware.")
    private String policy;

    @Min(1)
    @Max(1000)
    @JsonPropertyDescription("How much busier than the mean the busiest shard may be, in percent, before ranges move"
            + " (in label mode: weights change) for load. Omitted: 10.")
    private Integer maxImbalancePercent;

    @Min(1)
    @Max(100)
    @JsonPropertyDescription("The most a balancing step may move, in percent of the ring's objects. Omitted: 10.")
    private Integer maxMovePercent;

    @Min(MIN_INTERVAL_SECONDS)
    @Max(MAX_SECONDS)
    @JsonPropertyDescription("Seconds from one balancing step to the next at least: the shards report the load of"
            + " their new ranges or objects meanwhile. Omitted: 30.")
    private Integer intervalSeconds;

    @Min(0)
    @Max(MAX_SECONDS)
    @JsonPropertyDescription("Seconds the imbalance must last before a step acts on it. Omitted: 60.")
    private Integer stabilizationSeconds;

    public RingBalancing() {
    }

    public RingBalancing(String policy, Integer maxImbalancePercent, Integer maxMovePercent, Integer intervalSeconds,
            Integer stabilizationSeconds) {
        this.policy = policy;
        this.maxImbalancePercent = maxImbalancePercent;
        this.maxMovePercent = maxMovePercent;
        this.intervalSeconds = intervalSeconds;
        this.stabilizationSeconds = stabilizationSeconds;
    }

    public String getPolicy() {
        return policy;
    }

    public void setPolicy(String policy) {
        this.policy = policy;
    }

    public Integer getMaxImbalancePercent() {
        return maxImbalancePercent;
    }

    public void setMaxImbalancePercent(Integer maxImbalancePercent) {
        this.maxImbalancePercent = maxImbalancePercent;
    }

    public Integer getMaxMovePercent() {
        return maxMovePercent;
    }

    public void setMaxMovePercent(Integer maxMovePercent) {
        this.maxMovePercent = maxMovePercent;
    }

    public Integer getIntervalSeconds() {
        return intervalSeconds;
    }

    public void setIntervalSeconds(Integer intervalSeconds) {
        this.intervalSeconds = intervalSeconds;
    }

    public Integer getStabilizationSeconds() {
        return stabilizationSeconds;
    }

    public void setStabilizationSeconds(Integer stabilizationSeconds) {
        this.stabilizationSeconds = stabilizationSeconds;
    }

    /** The settings with their defaults, as one value; the spec must be valid ({@link RingValidation}). */
    public Settings settings() {
        return new Settings(policy == null || policy.isEmpty() ? DEFAULT_POLICY : policy,
                1 + Objects.requireNonNullElse(maxImbalancePercent, DEFAULT_MAX_IMBALANCE_PERCENT) / 100.0,
                Objects.requireNonNullElse(maxMovePercent, DEFAULT_MAX_MOVE_PERCENT) / 100.0,
                Duration.ofSeconds(Objects.requireNonNullElse(intervalSeconds, DEFAULT_INTERVAL_SECONDS)),
                Duration.ofSeconds(Objects.requireNonNullElse(stabilizationSeconds, DEFAULT_STABILIZATION_SECONDS)));
    }

    /**
     * A ring's balancing settings with their defaults.
     *
     * @param policy        the placement policy's name
     * @param maxImbalance  the busiest shard's load over the mean that is tolerated, e.g. 1.1
     * @param maxMoved      the share of the objects a step may move, e.g. 0.1
     * @param interval      the least time between two steps
     * @param stabilization how long an imbalance must last before a step acts on it
     */
    public record Settings(String policy, double maxImbalance, double maxMoved, Duration interval,
            Duration stabilization) {
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RingBalancing that && Objects.equals(policy, that.policy)
                && Objects.equals(maxImbalancePercent, that.maxImbalancePercent)
                && Objects.equals(maxMovePercent, that.maxMovePercent)
                && Objects.equals(intervalSeconds, that.intervalSeconds)
                && Objects.equals(stabilizationSeconds, that.stabilizationSeconds);
    }

    @Override
    public int hashCode() {
        return Objects.hash(policy, maxImbalancePercent, maxMovePercent, intervalSeconds, stabilizationSeconds);
    }

    @Override
    public String toString() {
        return "RingBalancing[policy=" + policy + ", maxImbalancePercent=" + maxImbalancePercent + ", maxMovePercent="
                + maxMovePercent + ", intervalSeconds=" + intervalSeconds + ", stabilizationSeconds="
                + stabilizationSeconds + "]";
    }
}
