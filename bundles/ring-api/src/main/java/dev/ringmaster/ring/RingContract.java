package dev.ringmaster.ring;

/**
 * The wire contract with shards (docs/design.md section 1). These strings are shared with the reference
 * Go sharder, so shards written for either work with both; never change them. The per-ring members are
 * the ClusterRing contract; {@link RingKind} holds the contract of each kind, ClusterRing and
 * ControllerRing.
 */
public final class RingContract {

    public static final String API_GROUP = "sharding.timebertt.dev";
    public static final String API_VERSION = "v1alpha1";
    public static final String CLUSTER_RING_KIND = "ClusterRing";

    /** Label on shard Leases naming their ClusterRing ({@link RingKind#leaseLabel}). */
    public static final String RING_LABEL = "alpha.sharding.timebertt.dev/clusterring";
    /** Label on shard Leases showing the sharder's view of the shard's state. */
    public static final String STATE_LABEL = "alpha.sharding.timebertt.dev/state";
    /** Holder identity the sharder uses when it acquires an uncertain shard lease. */
    public static final String LEASE_CONTROLLER_HOLDER = "shardlease-controller";
    /** Name of the webhook inside each ring's MutatingWebhookConfiguration. */
    public static final String WEBHOOK_NAME = "sharder.sharding.timebertt.dev";
    public static final String SYSTEM_NAMESPACE = "sharding-system";
    /** Ringmaster extension: annotation on a shard Lease carrying the shard's weight. */
    public static final String WEIGHT_ANNOTATION = "ringmaster.dev/weight";
    /**
     * Ringmaster extension: annotation on a shard Lease naming the process that holds it (its pod's UID,
     * else a random id per process). Two instances of one shard identity (a replacement pod started
     * while the old one still runs) then cannot both take the Lease: it is the fence between them.
     */
    public static final String INSTANCE_ANNOTATION = "ringmaster.dev/holder-instance";
    /**
     * Ringmaster extension: annotation a shard writes on its Lease, keeping itself the holder, when it
     * stops to be restarted (RFC 3339 time of the stop). The sharder keeps the shard's objects where they
     * are for the ring's restart grace from then; any instance of the shard may take the Lease at once.
     * A shard that leaves for good releases the Lease instead (holder cleared).
     */
    public static final String RESTARTING_ANNOTATION = "ringmaster.dev/restarting";
    /**
     * Ringmaster extension, range mode (docs/design.md section 9): annotation the sharder writes on a
     * shard's Lease, the ranges of the 64-bit FNV-1a space the shard is assigned
     * ({@code dev.ringmaster.ring.ranges.RangeSet} annotation form; empty: none). Only the sharder
     * writes it; it adds a range only when no other live shard is assigned or serves it.
     */
    public static final String ASSIGNED_RANGES_ANNOTATION = "ringmaster.dev/assigned-ranges";
    /** Ringmaster extension, range mode: the field the assigned ranges hash, {@code uid} or {@code namespace}. */
    public static final String RANGE_KEY_ANNOTATION = "ringmaster.dev/range-key";
    /**
     * Ringmaster extension, range mode: annotation a shard writes on its own Lease, the ranges it may be
     * reconciling now. It drops a range only after it stopped watching it and its reconciles of
     * objects in it ended; until then the range is not given to another shard.
     */
    public static final String SERVED_RANGES_ANNOTATION = "ringmaster.dev/served-ranges";

    /**
     * Ringmaster extension: annotation a shard writes on its own Lease with its renewals, what its work cost over
     * its last window ({@code dev.ringmaster.ring.load.LoadReport} annotation form). The leader's balancer reads it;
     * a shard that writes none is counted by its share of the space.
     */
    public static final String LOAD_ANNOTATION = "ringmaster.dev/load";

    /** The shard label of every ring starts with this; the ring suffix follows ({@link #shardLabel}). */
    public static final String SHARD_LABEL_PREFIX = "shard.alpha.sharding.timebertt.dev/";
    /** The drain label of every ring starts with this; the ring suffix follows ({@link #drainLabel}). */
    public static final String DRAIN_LABEL_PREFIX = "drain.alpha.sharding.timebertt.dev/";
    /** The path of every ClusterRing's webhook starts with this; the ring name follows ({@link #webhookPath}). */
    public static final String WEBHOOK_PATH_PREFIX = "/webhooks/sharder/clusterring/";
    /**
     * The partitioning strategy of rings that name none: the reference sharder's consistent hashing, so
     * a migration from it at the defaults moves nothing (docs/migrating.md).
     */
    public static final String DEFAULT_STRATEGY = "consistent-hash";

    private RingContract() {
    }

    /** The ClusterRing contract's ring suffix: {@link RingKind#ringSuffix} of {@link RingKind#CLUSTER_RING}. */
    public static String ringSuffix(String ring) {
        return RingKind.CLUSTER_RING.ringSuffix(ring);
    }

    /** A ClusterRing's shard label: {@link RingKind#shardLabel} of {@link RingKind#CLUSTER_RING}. */
    public static String shardLabel(String ring) {
        return RingKind.CLUSTER_RING.shardLabel(ring);
    }

    /** A ClusterRing's drain label: {@link RingKind#drainLabel} of {@link RingKind#CLUSTER_RING}. */
    public static String drainLabel(String ring) {
        return RingKind.CLUSTER_RING.drainLabel(ring);
    }

    /** Name of a ClusterRing's MutatingWebhookConfiguration: {@link RingKind#webhookConfigurationName}. */
    public static String webhookConfigurationName(String ring) {
        return RingKind.CLUSTER_RING.webhookConfigurationName(ring);
    }

    /** HTTP path of a ClusterRing's admission webhook: {@link RingKind#webhookPath}. */
    public static String webhookPath(String ring) {
        return RingKind.CLUSTER_RING.webhookPath(ring);
    }

    /** The ClusterRing a webhook path addresses, or {@code null}: {@link RingKind#ringOfWebhookPath}. */
    public static String ringOfWebhookPath(String path) {
        return RingKind.CLUSTER_RING.ringOfWebhookPath(path);
    }

    /**
     * A partition key as the reference sharder's default resource interpreter forms it
     * (docs/design.md section 4): {@code group/Kind/namespace/name}, with an empty group for the core
     * group and an empty namespace for cluster-scoped objects, e.g. {@code /ConfigMap/default/foo}.
     */
    public static String partitionKey(String group, String kind, String namespace, String name) {
        return group + "/" + kind + "/" + namespace + "/" + name;
    }
}
