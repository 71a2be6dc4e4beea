package dev.ringmaster.flags;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/** The flags a command line gave, with their values, as {@link Flags#parse} read them. */
public final class Given {

    private final Map<String, List<String>> values;

    Given(Map<String, List<String>> values) {
        this.values = values;
    }

    /** Whether the flag was given. */
    public boolean has(String flag) {
        return values.containsKey(flag);
    }

    /** The flags given, in the order they were given first. */
    public Set<String> flags() {
        return Collections.unmodifiableSet(values.keySet());
    }

    /** The value of a valued flag, or of a flag with an optional value given with one; empty otherwise. */
    public Optional<String> value(String flag) {
        return values(flag).stream().findFirst();
    }

    /** Every value of a repeatable flag, in order; empty if it was not given. */
    public List<String> values(String flag) {
        return List.copyOf(values.getOrDefault(flag, List.of()));
    }

    /**
     * The flag's value as a whole number from {@code min} to {@code max}; empty if it was not given.
     *
     * @throws UsageException when the value is no such number
     */
    public OptionalInt number(String flag, int min, int max) throws UsageException {
        Optional<String> value = value(flag);
        return value.isEmpty() ? OptionalInt.empty() : OptionalInt.of(Flags.wholeNumber(flag, value.get(), min, max));
    }

    /**
     * The flag's value as a {@link Durations duration} ({@code 250ms}, {@code 10m}, {@code 0}); empty if it
     * was not given.
     *
     * @throws UsageException when the value is no duration
     */
    public Optional<Duration> duration(String flag) throws UsageException {
        Optional<String> value = value(flag);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Durations.parse(value.get()));
        } catch (IllegalArgumentException e) {
            throw new UsageException(flag + ": " + e.getMessage());
        }
    }
}
