package dev.ringmaster.ring.testing;

/**
 * The contract's Lease labels and annotations (docs/design.md sections 1, 3 and 9) as the tests of the
 * shard library and the sharder pin them: written out once here, not taken from the code under test.
 */
public final class PinnedContract {

    /** A shard Lease's ClusterRing label: its value is the ring's name. */
    public static final String RING_LABEL = "alpha.sharding.timebertt.dev/clusterring";
    /** A shard Lease's state, as the sharder labels it. */
    public static final String STATE_LABEL = "alpha.sharding.timebertt.dev/state";
    /** The instance of the shard holding the Lease. */
    public static final String INSTANCE = "ringmaster.dev/holder-instance";
    /** When the shard stopped to restart: its Lease is kept for the next instance. */
    public static final String RESTARTING = "ringmaster.dev/restarting";
    /** Range mode: the ranges the sharder assigned to the shard. */
    public static final String ASSIGNED = "ringmaster.dev/assigned-ranges";
    /** Range mode: the ranges the shard serves. */
    public static final String SERVED = "ringmaster.dev/served-ranges";
    /** Range mode: the key the ranges hash. */
    public static final String RANGE_KEY = "ringmaster.dev/range-key";

    private PinnedContract() {
    }
}
