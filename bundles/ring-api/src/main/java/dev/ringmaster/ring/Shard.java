package dev.ringmaster.ring;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A member of a ring: an instance of the sharded controller, named like its Lease.
 *
 * @param name   the shard (and Lease) name, never empty
 * @param weight relative capacity, from {@code 1} to {@value #MAX_WEIGHT}
 */
public record Shard(String name, int weight) implements Comparable<Shard> {

    /** Upper bound that keeps token counts and fixed-point scores of the strategies in range. */
    public static final int MAX_WEIGHT = 1000;

    public Shard {
        Objects.requireNonNull(name, "shard name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("shard name must not be empty");
        }
        if (weight < 1 || weight > MAX_WEIGHT) {
            throw new IllegalArgumentException(
                    "weight of shard " + name + " must be between 1 and " + MAX_WEIGHT + ", got " + weight);
        }
    }

    /** A shard of weight 1. */
    public static Shard of(String name) {
        return new Shard(name, 1);
    }

    /**
     * The shards sorted by name, so a strategy's result cannot depend on input order.
     *
     * @throws IllegalArgumentException if two shards share a name
     */
    public static List<Shard> sortedByName(Collection<Shard> shards) {
        List<Shard> sorted = shards.stream().sorted().toList();
        for (int i = 1; i < sorted.size(); i++) {
            if (sorted.get(i).name.equals(sorted.get(i - 1).name)) {
                throw new IllegalArgumentException("shard " + sorted.get(i).name + " is listed twice");
            }
        }
        return sorted;
    }

    @Override
    public int compareTo(Shard other) {
        return name.compareTo(other.name);
    }
}
