package dev.ringmaster.sharder.ranges;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.sharder.model.RingKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LabelHoldsTest {

    private static final RingKey RING = RingKey.clusterRing("shop");
    /** The first quarter of the space, written out: what a pass found held. */
    private static final RangeSet FIRST_QUARTER = RangeSet.parse("0x0000000000000000-0x4000000000000000");
    private static final RangeSet REST = RangeSet.parse("0x4000000000000000-0x10000000000000000");

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-29T12:00:00Z"));
    private final LabelHolds holds = new LabelHolds(clock);

    @Test
    void rangesAreFreeOnlyOutsideWhatAPassListedAQuietTimeAfterTheSwitchFoundHeld() {
        List<RingKey> told = new ArrayList<>();
        holds.onChange(told::add);
        assertThat(holds.free(RING, Set.of("label-0"))).as("no pass yet").isEqualTo(RangeSet.EMPTY);

        Instant first = holds.listingStarts(RING);
        holds.found(RING, Set.of("label-0"), FIRST_QUARTER, first);
        assertThat(told).containsExactly(RING);
        assertThat(holds.free(RING, Set.of("label-0"))).as("listed at the switch").isEqualTo(RangeSet.EMPTY);

        clock.advance(Duration.ofMillis(1999));
        holds.found(RING, Set.of("label-0"), FIRST_QUARTER, holds.listingStarts(RING));
        assertThat(holds.free(RING, Set.of("label-0"))).as("listed within the quiet time").isEqualTo(RangeSet.EMPTY);

        clock.advance(Duration.ofMillis(1));
        holds.found(RING, Set.of("label-0", "label-1"), FIRST_QUARTER, holds.listingStarts(RING));
        assertThat(holds.free(RING, Set.of("label-0"))).isEqualTo(REST);
        assertThat(holds.free(RING, Set.of("label-0", "label-1"))).isEqualTo(REST);
        assertThat(holds.free(RING, Set.of("label-0", "label-2"))).as("a label-mode shard the pass did not know")
                .isEqualTo(RangeSet.EMPTY);
        assertThat(holds.free(RingKey.controllerRing("shop"), Set.of("label-0"))).as("another ring").isEqualTo(RangeSet.EMPTY);

        holds.found(RING, Set.of("label-0"), RangeSet.EMPTY, holds.listingStarts(RING));
        assertThat(holds.free(RING, Set.of("label-0"))).as("nothing left with them").isEqualTo(RangeSet.ALL);
        assertThat(told).hasSize(4);
    }

    @Test
    void aRingThatLeftRangeModeStartsAfreshWhenItEntersAgain() {
        holds.listingStarts(RING);
        clock.advance(Duration.ofMinutes(5));
        holds.found(RING, Set.of("label-0"), RangeSet.EMPTY, holds.listingStarts(RING));
        assertThat(holds.free(RING, Set.of("label-0"))).isEqualTo(RangeSet.ALL);

        holds.forget(RING);
        assertThat(holds.free(RING, Set.of("label-0"))).isEqualTo(RangeSet.EMPTY);
        clock.advance(Duration.ofMinutes(5));
        holds.found(RING, Set.of("label-0"), RangeSet.EMPTY, holds.listingStarts(RING));
        assertThat(holds.free(RING, Set.of("label-0"))).as("the first listing after entering again")
                .isEqualTo(RangeSet.EMPTY);
    }
}
