package dev.ringmaster.sharder.ranges;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.testing.apiserver.Fnv1a;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RangeReturnsTest {

    private static final RingKey RING = RingKey.clusterRing("shop");
    private static final RangeSet LOWER_HALF = RangeSet.parse("0x0000000000000000-0x8000000000000000");

    private final RangeReturns returns = new RangeReturns();

    @Test
    void claimsHoldTheObjectsWhoseKeyHashesIntoThem() {
        RangeReturns.Claims byUid = new RangeReturns.Claims(Optional.of(RangeKey.UID), LOWER_HALF);
        // the hash computed by the test's own FNV-1a (testing/real-apiserver), its top bit picks the half
        for (String uid : List.of("0b7c4a2e-1", "9f00d1c3-2", "a-uid", "another-uid")) {
            boolean lowerHalf = Fnv1a.fnv1a64(uid) >= 0;
            assertThat(byUid.hold(uid, "team")).as(uid).isEqualTo(lowerHalf);
        }
        boolean teamInLowerHalf = Fnv1a.fnv1a64("team") >= 0;
        assertThat(new RangeReturns.Claims(Optional.of(RangeKey.NAMESPACE), LOWER_HALF).hold("any", "team"))
                .isEqualTo(teamInLowerHalf);
        assertThat(new RangeReturns.Claims(Optional.empty(), LOWER_HALF).hold("any", "team"))
                .as("shards of different keys claim everything").isTrue();
        assertThat(new RangeReturns.Claims(Optional.empty(), RangeSet.EMPTY).hold("any", "team")).isFalse();
    }

    @Test
    void theRebalancerIsToldOfNewClaimsAndTheAssignerOfWhatWasLabelledOutsideThem() {
        List<RingKey> rebalanced = new ArrayList<>();
        List<RingKey> assigned = new ArrayList<>();
        returns.onClaims(rebalanced::add);
        returns.onLabelled(assigned::add);
        RangeReturns.Claims all = new RangeReturns.Claims(Optional.of(RangeKey.UID), RangeSet.ALL);
        RangeReturns.Claims half = new RangeReturns.Claims(Optional.of(RangeKey.UID), LOWER_HALF);

        returns.claimed(RING, all);
        returns.claimed(RING, all);
        assertThat(rebalanced).as("told once per change").containsExactly(RING);
        assertThat(returns.claims(RING)).contains(all);
        assertThat(returns.labelledOutside(RING, all)).isFalse();

        returns.labelled(RING, all);
        assertThat(assigned).containsExactly(RING);
        assertThat(returns.labelledOutside(RING, all)).isTrue();
        returns.claimed(RING, half);
        assertThat(returns.labelledOutside(RING, half)).as("a pass over the smaller claims is still to come").isFalse();

        returns.claimed(RING, new RangeReturns.Claims(Optional.of(RangeKey.UID), RangeSet.EMPTY));
        assertThat(returns.claims(RING)).as("nothing claimed: the return is over").isEmpty();
        assertThat(rebalanced).containsExactly(RING, RING, RING);
        returns.claimed(RING, new RangeReturns.Claims(Optional.of(RangeKey.UID), RangeSet.EMPTY));
        assertThat(rebalanced).as("a ring that claims nothing, again").hasSize(3);

        returns.claimed(RING, half);
        returns.forget(RING);
        assertThat(returns.claims(RING)).isEmpty();
    }
}
