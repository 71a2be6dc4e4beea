package dev.ringmaster.ring;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The wire contract with shards (docs/design.md section 1). These strings are shared with the reference
 * Go sharder, so shards written for either work with both; never change them.
 */
public final class RingContract {

    public static final String API_GROUP = "sharding.timebertt.dev";
    public static final String API_VERSION = "v1alpha1";
    public static final String CLUSTER_RING_KIND = "ClusterRing";

    /** Label on shard Leases naming their ClusterRing. */
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

    /** The shard label of every ring starts with this; the ring suffix follows ({@link #shardLabel}). */
    public static final String SHARD_LABEL_PREFIX = "shard.alpha.sharding.timebertt.dev/";
    /** The drain label of every ring starts with this; the ring suffix follows ({@link #drainLabel}). */
    public static final String DRAIN_LABEL_PREFIX = "drain.alpha.sharding.timebertt.dev/";
    /** The path of every ring's webhook starts with this; the ring name follows ({@link #webhookPath}). */
    public static final String WEBHOOK_PATH_PREFIX = "/webhooks/sharder/clusterring/";
    /**
     * The partitioning strategy of rings that name none: the reference sharder's consistent hashing, so
     * a migration from it at the defaults moves nothing (docs/migrating.md).
     */
    public static final String DEFAULT_STRATEGY = "consistent-hash";

    private static final int MAX_LABEL_NAME_LENGTH = 63;

    private RingContract() {
    }

    /**
     * The ring-specific suffix of label names: the first 63 characters of
     * {@code "clusterring-" + hex(sha256(ring))[0:8] + "-" + ring}.
     */
    public static String ringSuffix(String ring) {
        if (ring == null || ring.isEmpty()) {
            throw new IllegalArgumentException("ring name must not be empty");
        }
        String suffix = "clusterring-" + sha256Hex(ring).substring(0, 8) + "-" + ring;
        return suffix.length() > MAX_LABEL_NAME_LENGTH ? suffix.substring(0, MAX_LABEL_NAME_LENGTH) : suffix;
    }

    /** Label on sharded objects whose value is the name of the shard owning the object. */
    public static String shardLabel(String ring) {
        return SHARD_LABEL_PREFIX + ringSuffix(ring);
    }

    /** Label on sharded objects asking their shard to let go of them; only its presence counts. */
    public static String drainLabel(String ring) {
        return DRAIN_LABEL_PREFIX + ringSuffix(ring);
    }

    /** Name of the ring's MutatingWebhookConfiguration. */
    public static String webhookConfigurationName(String ring) {
        return "sharding-" + ringSuffix(ring);
    }

    /** HTTP path at which the sharder serves the ring's admission webhook. */
    public static String webhookPath(String ring) {
        return WEBHOOK_PATH_PREFIX + ring;
    }

    /** The ring name a webhook path addresses, or {@code null} if it is not a sharder webhook path. */
    public static String ringOfWebhookPath(String path) {
        if (path == null || !path.startsWith(WEBHOOK_PATH_PREFIX)) {
            return null;
        }
        String ring = path.substring(WEBHOOK_PATH_PREFIX.length());
        return ring.isEmpty() || ring.contains("/") ? null : ring;
    }

    /**
     * A partition key as the reference sharder's default resource interpreter forms it
     * (docs/design.md section 4): {@code group/Kind/namespace/name}, with an empty group for the core
     * group and an empty namespace for cluster-scoped objects, e.g. {@code /ConfigMap/default/foo}.
     */
    public static String partitionKey(String group, String kind, String namespace, String name) {
        return group + "/" + kind + "/" + namespace + "/" + name;
    }

    private static String sha256Hex(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM provides SHA-256", e);
        }
    }
}
