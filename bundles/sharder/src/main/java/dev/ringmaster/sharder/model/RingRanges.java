package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangePlacement;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/**
 * {@code spec.ranges} of a ring (Ringmaster extension, docs/design.md section 9): present, the ring shards by
 * ranges of the hash space, published on the shard Leases, and labels no object.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RingRanges {

    /** The CEL rule of {@code buckets}: CEL has no bit operations, so the powers of two are listed. */
    static final String POWER_OF_TWO_RULE = "self in [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]";

    /** Only the names the CRD generator lists as the key's enum. */
    @SuppressWarnings("unused")
    private enum KeyNames {
        uid, namespace
    }

    @SchemaFrom(type = KeyNames.class)
    @Default("uid")
    @ValidationRule(value = "self == oldSelf", message = "spec.ranges.key cannot be changed: shards report their served"
            + " ranges in the key they were assigned")
    @JsonPropertyDescription("The field whose 64-bit FNV-1a hash the ranges cut: uid (object.metadata.uid, spreads"
            + " objects evenly) or namespace (object.metadata.namespace, keeps a namespace on one shard). Omitted: uid.")
    private String key;

    @Min(1)
    @Max(RangePlacement.MAX_BUCKETS)
    @Default("64")
    @ValidationRule(value = POWER_OF_TWO_RULE, message = "spec.ranges.buckets must be a power of two from 1 to 4096")
    @JsonPropertyDescription("Number of equal buckets the hash space is cut into, each placed on one shard: a power of"
            + " two from 1 to 4096. Omitted: 64.")
    private Integer buckets;

    @JsonPropertyDescription("Present: the leader places the ranges by what the shards report their objects cost"
            + " (ringmaster.dev/load on their Leases), with a placement policy, and moves ranges from busy shards to idle"
            + " ones under a churn budget. Omitted: ranges are placed by hash alone.")
    private RingBalancing balancing;

    public RingRanges() {
    }

    public RingRanges(String key, Integer buckets) {
        this.key = key;
        this.buckets = buckets;
    }

    public String getKey() {
        return key;
    }

    public void setKey(String key) {
        this.key = key;
    }

    public Integer getBuckets() {
        return buckets;
    }

    public void setBuckets(Integer buckets) {
        this.buckets = buckets;
    }

    public RingBalancing getBalancing() {
        return balancing;
    }

    public void setBalancing(RingBalancing balancing) {
        this.balancing = balancing;
    }

    /** The key, {@code uid} when omitted; {@link IllegalArgumentException} for another word (see {@link RingValidation}). */
    public RangeKey keyOrDefault() {
        return key == null || key.isEmpty() ? RangeKey.UID : RangeKey.ofSpec(key);
    }

    /** The bucket count, {@value RangePlacement#DEFAULT_BUCKETS} when omitted (unchecked: see {@link RingValidation}). */
    public int bucketsOrDefault() {
        return buckets == null ? RangePlacement.DEFAULT_BUCKETS : buckets;
    }

    /** Whether {@code buckets} is a power of two from 1 to {@value RangePlacement#MAX_BUCKETS}. */
    public static boolean isValidBucketCount(int buckets) {
        return buckets >= 1 && buckets <= RangePlacement.MAX_BUCKETS && Integer.bitCount(buckets) == 1;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RingRanges that && Objects.equals(key, that.key) && Objects.equals(buckets, that.buckets)
                && Objects.equals(balancing, that.balancing);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, buckets, balancing);
    }

    @Override
    public String toString() {
        return "RingRanges[key=" + key + ", buckets=" + buckets + ", balancing=" + balancing + "]";
    }
}
