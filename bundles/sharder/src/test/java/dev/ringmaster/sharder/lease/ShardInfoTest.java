package dev.ringmaster.sharder.lease;

import static dev.ringmaster.sharder.testing.TestLeases.shardLease;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.sharder.lease.ShardInfo.RangeClaim;
import dev.ringmaster.ring.ShardState;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A Lease judged for a reader beside the sharder (the ring survey of simulate --ring). */
class ShardInfoTest {

    private static final Instant T0 = Instant.parse("2026-11-26T09:00:00Z");
    private static final DefaultLeaseDetector DETECTOR = new DefaultLeaseDetector();

    @Test
    void theDetectorsVerdictAtTheTimeGivenWithTheWeightAnnotation() {
        var lease = shardLease("ns", "shard-0", "ring", T0, 10)
                .editMetadata().addToAnnotations(RingContract.WEIGHT_ANNOTATION, "3").endMetadata().build();
        assertThat(ShardInfo.judge(lease, DETECTOR, T0.plusSeconds(5))).isEqualTo(new ShardInfo("shard-0", ShardState.READY, 3));
        assertThat(ShardInfo.judge(lease, DETECTOR, T0.plusSeconds(15))).isEqualTo(new ShardInfo("shard-0", ShardState.EXPIRED, 3));
        assertThat(ShardInfo.judge(lease, DETECTOR, T0.plusSeconds(25))).isEqualTo(new ShardInfo("shard-0", ShardState.UNCERTAIN, 3));
    }

    @Test
    void anInvalidWeightCountsAsOneAndALeaseTheSharderHoldsIsDead() {
        var lease = shardLease("ns", "shard-0", "ring", T0, 10)
                .editMetadata().addToAnnotations(RingContract.WEIGHT_ANNOTATION, "heavy").endMetadata()
                .editSpec().withHolderIdentity(RingContract.LEASE_CONTROLLER_HOLDER).endSpec().build();
        assertThat(ShardInfo.judge(lease, DETECTOR, T0)).isEqualTo(new ShardInfo("shard-0", ShardState.DEAD, 1));
    }

    /** A served range, or an annotation that cannot be read (which may hide one), counts; none or an empty set does not. */
    @Test
    void itsLeaseSaysWhetherItServesLabelsNoRangesOrSomeAndUnreadableMayHideSome() {
        assertThat(judged(null)).isEqualTo(RangeClaim.UNANNOUNCED);
        assertThat(judged("")).isEqualTo(RangeClaim.NONE);
        assertThat(judged("0x0000000000000000-0x4000000000000000")).isEqualTo(RangeClaim.SOME);
        assertThat(judged("half of it")).isEqualTo(RangeClaim.SOME);
    }

    private static RangeClaim judged(String served) {
        var lease = shardLease("ns", "shard-0", "ring", T0, 10).build();
        if (served != null) {
            lease.getMetadata().getAnnotations().put(RingContract.SERVED_RANGES_ANNOTATION, served);
        }
        ShardInfo judged = ShardInfo.judge(lease, DETECTOR, T0);
        assertThat(judged.mayReconcileRanges()).isEqualTo(judged.ranges() == RangeClaim.SOME);
        assertThat(judged.mayReconcileLabels()).isEqualTo(judged.ranges() == RangeClaim.UNANNOUNCED);
        return judged.ranges();
    }
}
