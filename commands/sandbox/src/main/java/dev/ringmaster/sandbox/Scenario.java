package dev.ringmaster.sandbox;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** What the sandbox does once every object is assigned and reconciled. */
enum Scenario {

    /** One more shard joins; the sharder drains the objects that now belong to it. */
    SCALE_OUT("scale-out", 1),
    /** The shard with the most objects stops gracefully (releases its Lease); its objects move at once. */
    SCALE_IN("scale-in", 2),
    /** The shard with the most objects dies without releasing its Lease; its objects move once the Lease has expired. */
    KILL_SHARD("kill-shard", 2),
    /** The sharder's default strategy changes from consistent-hash to rendezvous through its etc/ file. */
    SWAP_STRATEGY("swap-strategy", 1),
    /**
     * Range mode: the objects cost what a skewed distribution says, and once they are placed by hash the
     * ring gets {@code spec.ranges.balancing}; the leader moves ranges until the load is even.
     */
    BALANCE("balance", 2);

    private final String text;
    private final int minimumShards;

    Scenario(String text, int minimumShards) {
        this.text = text;
        this.minimumShards = minimumShards;
    }

    /** The scenario's name on the command line. */
    String text() {
        return text;
    }

    /** Shards the scenario needs at the start to end with every object on a running shard. */
    int minimumShards() {
        return minimumShards;
    }

    static Optional<Scenario> named(String text) {
        return Arrays.stream(values()).filter(scenario -> scenario.text.equals(text)).findFirst();
    }

    /** Whether the scenario makes sense for a range-mode ring, which has no strategy to swap. */
    boolean inRangeMode() {
        return this != SWAP_STRATEGY;
    }

    /** Whether the scenario makes sense for a label-mode ring: balancing by load moves hash ranges. */
    boolean inLabelMode() {
        return this != BALANCE;
    }

    /** The names, as the usage lists them: {@code scale-out|scale-in|...}. */
    static String names() {
        return Arrays.stream(values()).map(Scenario::text).collect(Collectors.joining("|"));
    }

    @Override
    public String toString() {
        return text;
    }
}
