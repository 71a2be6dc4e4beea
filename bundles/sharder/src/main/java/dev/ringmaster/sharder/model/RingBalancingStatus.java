package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.ringmaster.ring.Shard;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * {@code status.balancing} of a label-mode ring with {@code spec.balancing} (docs/design.md section 10.2): each shard's
 * weight as the leader adjusted it, in percent of its Lease's weight. It is placement state, not only a report: every
 * replica's webhook and rebalancer place with it, and a new leader goes on from it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RingBalancingStatus {

    /** A shard's weight in percent of its Lease's when the leader has not adjusted it. */
    public static final int NEUTRAL_PERCENT = 100;
    public static final int MIN_PERCENT = 20;
    public static final int MAX_PERCENT = 500;
    /**
     * Strategy weight per unit of Lease weight at {@value #NEUTRAL_PERCENT} percent: a finer unit than the Lease's, so
     * that a step of 10 percent is a whole weight. Rendezvous hashing places the same under any common unit;
     * consistent hashing gets ten times the tokens, which moves some keys once when balancing is switched on.
     */
    public static final int WEIGHT_UNIT = 10;

    @JsonPropertyDescription("Each shard's weight in percent of its Lease's (ringmaster.dev/weight), from 20 to 500, as the"
            + " leader adjusted it; a shard not listed: 100.")
    private Map<String, Integer> weightPercent;

    @JsonPropertyDescription("When the leader last changed a weight.")
    private String lastStepTime;

    public RingBalancingStatus() {
    }

    public RingBalancingStatus(Map<String, Integer> weightPercent, String lastStepTime) {
        this.weightPercent = weightPercent == null ? null : new TreeMap<>(weightPercent);
        this.lastStepTime = lastStepTime;
    }

    /**
     * The strategy weight of a shard whose Lease says {@code leaseWeight} at {@code percent} percent, held to the
     * percent bounds and to {@link Shard#MAX_WEIGHT}.
     */
    public static int strategyWeight(int leaseWeight, int percent) {
        int held = Math.max(MIN_PERCENT, Math.min(MAX_PERCENT, percent));
        long weight = Math.round(leaseWeight * (double) WEIGHT_UNIT * held / NEUTRAL_PERCENT);
        return (int) Math.max(1, Math.min(Shard.MAX_WEIGHT, weight));
    }

    /** The shard's percent: as listed, or {@value #NEUTRAL_PERCENT}. */
    public int percentOf(String shard) {
        return weightPercent == null ? NEUTRAL_PERCENT : weightPercent.getOrDefault(shard, NEUTRAL_PERCENT);
    }

    public Map<String, Integer> getWeightPercent() {
        return weightPercent;
    }

    public void setWeightPercent(Map<String, Integer> weightPercent) {
        this.weightPercent = weightPercent;
    }

    public String getLastStepTime() {
        return lastStepTime;
    }

    public void setLastStepTime(String lastStepTime) {
        this.lastStepTime = lastStepTime;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RingBalancingStatus that && Objects.equals(weightPercent, that.weightPercent)
                && Objects.equals(lastStepTime, that.lastStepTime);
    }

    @Override
    public int hashCode() {
        return Objects.hash(weightPercent, lastStepTime);
    }

    @Override
    public String toString() {
        return "RingBalancingStatus[weightPercent=" + weightPercent + ", lastStepTime=" + lastStepTime + "]";
    }
}
