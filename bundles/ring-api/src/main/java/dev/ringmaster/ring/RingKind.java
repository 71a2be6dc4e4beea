package dev.ringmaster.ring;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The two kinds of ring the reference Go sharder has defined, and the wire contract of each
 * (docs/design.md section 1). Both live in {@code sharding.timebertt.dev/v1alpha1} and are
 * cluster-scoped; they differ in the strings that name a ring on objects, Leases and webhooks:
 *
 * <ul>
 *   <li>{@link #CLUSTER_RING}: the reference sharder up to v0.8.0 (and Ringmaster's sharder): labels
 *       carry a hashed suffix of the ring name ({@link #ringSuffix});</li>
 *   <li>{@link #CONTROLLER_RING}: the reference sharder from v0.9.0 on (v0.13.0 is current), which
 *       renamed the kind and uses the ring name itself as the suffix.</li>
 * </ul>
 *
 * These strings are shared with the reference sharder, so shards written for either work with both;
 * never change them. {@link RingContract}'s per-ring members are the ClusterRing contract and
 * delegate here.
 */
public enum RingKind {

    CLUSTER_RING(RingContract.CLUSTER_RING_KIND, "clusterrings", RingContract.RING_LABEL, RingContract.WEBHOOK_PATH_PREFIX, "sharding-"),
    CONTROLLER_RING("ControllerRing", "controllerrings", "alpha.sharding.timebertt.dev/controllerring",
            "/webhooks/sharder/controllerring/", "controllerring-");

    /** Label names are at most 63 characters after their prefix. */
    private static final int MAX_LABEL_NAME_LENGTH = 63;

    private final String kind;
    private final String plural;
    private final String leaseLabel;
    private final String webhookPathPrefix;
    private final String webhookConfigurationPrefix;

    RingKind(String kind, String plural, String leaseLabel, String webhookPathPrefix, String webhookConfigurationPrefix) {
        this.kind = kind;
        this.plural = plural;
        this.leaseLabel = leaseLabel;
        this.webhookPathPrefix = webhookPathPrefix;
        this.webhookConfigurationPrefix = webhookConfigurationPrefix;
    }

    /**
     * The kind whose Kind name is {@code name}, ignoring case ({@code ClusterRing}, {@code controllerring}).
     *
     * @throws IllegalArgumentException if no kind has that name
     */
    public static RingKind ofKind(String name) {
        for (RingKind ringKind : values()) {
            if (ringKind.kind.equalsIgnoreCase(name)) {
                return ringKind;
            }
        }
        throw new IllegalArgumentException("unknown ring kind '" + name + "': expected "
                + CLUSTER_RING.kind + " or " + CONTROLLER_RING.kind);
    }

    /** The Kind name, e.g. {@code ClusterRing}. */
    public String kind() {
        return kind;
    }

    /** The resource name (plural) of the kind, e.g. {@code clusterrings}. */
    public String plural() {
        return plural;
    }

    /** The Kind name in lower case, as command lines and paths spell it, e.g. {@code clusterring}. */
    public String lowerCaseKind() {
        return kind.toLowerCase(Locale.ROOT);
    }

    /** Label on shard Leases whose value names their ring. */
    public String leaseLabel() {
        return leaseLabel;
    }

    /**
     * The ring-specific suffix of the ring's label names. ClusterRing: the first 63 characters of
     * {@code "clusterring-" + hex(sha256(ring))[0:8] + "-" + ring}. ControllerRing: the ring name
     * (the API server keeps it at 63 characters or fewer).
     *
     * @throws IllegalArgumentException if {@code ring} is null or empty
     */
    public String ringSuffix(String ring) {
        if (ring == null || ring.isEmpty()) {
            throw new IllegalArgumentException("ring name must not be empty");
        }
        return switch (this) {
            case CLUSTER_RING -> {
                String suffix = "clusterring-" + sha256Hex(ring).substring(0, 8) + "-" + ring;
                yield suffix.length() > MAX_LABEL_NAME_LENGTH ? suffix.substring(0, MAX_LABEL_NAME_LENGTH) : suffix;
            }
            case CONTROLLER_RING -> ring;
        };
    }

    /** Label on sharded objects whose value is the name of the shard owning the object. */
    public String shardLabel(String ring) {
        return RingContract.SHARD_LABEL_PREFIX + ringSuffix(ring);
    }

    /** Label on sharded objects asking their shard to let go of them; only its presence counts. */
    public String drainLabel(String ring) {
        return RingContract.DRAIN_LABEL_PREFIX + ringSuffix(ring);
    }

    /** Name of the ring's MutatingWebhookConfiguration. */
    public String webhookConfigurationName(String ring) {
        return webhookConfigurationPrefix + ringSuffix(ring);
    }

    /** The path of every webhook of a ring of this kind starts with this; the ring name follows. */
    public String webhookPathPrefix() {
        return webhookPathPrefix;
    }

    /** HTTP path at which the sharder serves the ring's admission webhook. */
    public String webhookPath(String ring) {
        return webhookPathPrefix + ring;
    }

    /** The ring name a webhook path of this kind addresses, or {@code null} if it is none. */
    public String ringOfWebhookPath(String path) {
        if (path == null || !path.startsWith(webhookPathPrefix)) {
            return null;
        }
        String ring = path.substring(webhookPathPrefix.length());
        return ring.isEmpty() || ring.contains("/") ? null : ring;
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
