package dev.ringmaster.ring.rendezvous;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FixedPointLog2Test {

    private static double negativeLog2(long h) {
        double fraction = (h >>> 1) * 2.0 / 0x1p64 + (h & 1) / 0x1p64;
        return -Math.log(fraction) / Math.log(2);
    }

    private static double fixedPoint(long h) {
        return FixedPointLog2.negativeLog2OfFraction(h) / (double) FixedPointLog2.ONE;
    }

    @Test
    void exactAtPowersOfTwo() {
        assertThat(FixedPointLog2.negativeLog2OfFraction(1L)).isEqualTo(64 * FixedPointLog2.ONE);
        assertThat(FixedPointLog2.negativeLog2OfFraction(Long.MIN_VALUE)).isEqualTo(FixedPointLog2.ONE);
        assertThat(FixedPointLog2.negativeLog2OfFraction(1L << 62)).isEqualTo(2 * FixedPointLog2.ONE);
    }

    @Test
    void closeToTheRealLogarithmAndAlwaysPositive() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 100_000; i++) {
            long h = random.nextLong() | 1L;
            assertThat(fixedPoint(h)).isCloseTo(negativeLog2(h), within(1.8e-7));
        }
        assertThat(FixedPointLog2.negativeLog2OfFraction(-1L)).isPositive();
    }
}
