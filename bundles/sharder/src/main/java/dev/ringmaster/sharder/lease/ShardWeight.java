package dev.ringmaster.sharder.lease;

import dev.ringmaster.ring.Shard;
import java.util.OptionalInt;
import java.util.regex.Pattern;

/** Parses the {@code ringmaster.dev/weight} annotation of a shard Lease. */
final class ShardWeight {

    static final int DEFAULT = 1;

    /** Plain decimal digits only: no sign, blanks or exponent, so what a user reads is what counts. */
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,10}");

    private ShardWeight() {
    }

    /** The weight the annotation value denotes, or empty if it is not an integer from 1 to {@link Shard#MAX_WEIGHT}. */
    static OptionalInt parse(String value) {
        if (value == null || !DIGITS.matcher(value).matches()) {
            return OptionalInt.empty();
        }
        long weight = Long.parseLong(value);
        return weight >= 1 && weight <= Shard.MAX_WEIGHT ? OptionalInt.of((int) weight) : OptionalInt.empty();
    }
}
