package dev.ringmaster.ring.ranges;

import java.util.Locale;

/**
 * The field a range-mode ring hashes. {@link #UID} spreads objects evenly but puts an owner and the
 * objects it controls in different shards; {@link #NAMESPACE} keeps a namespace (an owner and its
 * controlled objects with it) in one shard, as even as the namespaces are.
 */
public enum RangeKey {
    UID("object.metadata.uid"),
    NAMESPACE("object.metadata.namespace");

    private final String field;

    RangeKey(String field) {
        this.field = field;
    }

    /** The field as {@code shardRange} names it. */
    public String field() {
        return field;
    }

    /** The hash of an object with this uid and namespace (a cluster-scoped object's namespace is {@code ""}). */
    public long hash(String uid, String namespace) {
        return Fnv1a64.hash(this == UID ? uid : namespace == null ? "" : namespace);
    }

    /** {@code uid} or {@code namespace}, as a ring's {@code spec.ranges.key} spells it. */
    public String specName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The key a ring's {@code spec.ranges.key} names; {@link IllegalArgumentException} for any other word. */
    public static RangeKey ofSpec(String name) {
        for (RangeKey key : values()) {
            if (key.specName().equals(name)) {
                return key;
            }
        }
        throw new IllegalArgumentException("range key \"" + name + "\" is neither uid nor namespace");
    }
}
