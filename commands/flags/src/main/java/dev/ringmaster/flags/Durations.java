package dev.ringmaster.flags;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people and Go write them: a number and a unit, several in a row, such as {@code 250ms},
 * {@code 2s}, {@code 1.5s} or {@code 1m30s}; the units are {@code ns}, {@code us} (or {@code µs}),
 * {@code ms}, {@code s}, {@code m} and {@code h}, and {@code 0} alone is zero. The syntax of Go's
 * {@code time.ParseDuration} without a sign: a duration here is never negative. Used by flags such as
 * the examples' {@code --resync} and by values that are no flags (the examples' cost annotation).
 */
public final class Durations {

    private static final Pattern TERM = Pattern.compile("([0-9]*\\.?[0-9]*)(ns|us|µs|ms|s|m|h)");
    private static final Map<String, Long> NANOS_PER_UNIT = Map.of("ns", 1L, "us", 1_000L, "µs", 1_000L,
            "ms", 1_000_000L, "s", 1_000_000_000L, "m", 60_000_000_000L, "h", 3_600_000_000_000L);
    /** What a message shows after the value it could not read. */
    public static final String EXPECTED = "a duration such as 250ms, 2s or 1m30s";

    private Durations() {
    }

    /**
     * The duration {@code value} means; fractions below a nanosecond are dropped.
     *
     * @throws IllegalArgumentException if it is no such duration (its message quotes the value and says
     *     what was expected) or does not fit a {@code long} of nanoseconds
     */
    public static Duration parse(String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("'' is not " + EXPECTED);
        }
        if (value.equals("0")) {
            return Duration.ZERO;
        }
        Matcher term = TERM.matcher(value);
        BigDecimal nanos = BigDecimal.ZERO;
        int at = 0;
        while (at < value.length()) {
            term.region(at, value.length());
            if (!term.lookingAt() || !isNumber(term.group(1))) {
                throw new IllegalArgumentException("'" + value + "' is not " + EXPECTED);
            }
            nanos = nanos.add(new BigDecimal(term.group(1)).multiply(BigDecimal.valueOf(NANOS_PER_UNIT.get(term.group(2)))));
            at = term.end();
        }
        try {
            return Duration.ofNanos(nanos.setScale(0, RoundingMode.DOWN).longValueExact());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("'" + value + "' is too long a duration");
        }
    }

    /** At least one digit, and at most one point, not last: {@code 1}, {@code 1.5}, {@code .5}. */
    private static boolean isNumber(String number) {
        return number.chars().anyMatch(Character::isDigit) && !number.endsWith(".");
    }

    /**
     * The duration in the largest of {@code s}, {@code ms}, {@code us} and {@code ns} that holds it as a
     * whole number ({@code 2s}, {@code 250ms}, {@code 1500us}); {@link #parse} reads it back exactly.
     *
     * @throws IllegalArgumentException if it is negative
     */
    public static String format(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("a duration is never negative, got " + duration);
        }
        long nanos = duration.toNanos();
        if (nanos == 0) {
            return "0s";
        }
        for (String unit : new String[] {"s", "ms", "us"}) {
            long per = NANOS_PER_UNIT.get(unit);
            if (nanos % per == 0) {
                return nanos / per + unit;
            }
        }
        return nanos + "ns";
    }
}
