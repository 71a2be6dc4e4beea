package dev.ringmaster.shard.client;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;

/** The rules of a shard Lease with stable identities, shared by {@link ShardLease} and {@link ShardPool}. */
final class LeaseRules {

    private LeaseRules() {
    }

    /** Why a Lease is not free for a shard, or null if it is. */
    enum Taken {
        /** Another holder, not expired. */
        OTHER_HOLDER,
        /** This shard's name, another instance, not marked restarting, not expired. */
        OTHER_INSTANCE
    }

    /**
     * Whether the Lease {@code lease} is free for the shard {@code name} running as {@code instance}
     * at {@code now}: no holder; or expired ({@code renewTime + leaseDurationSeconds} passed); or held
     * by this name and either without an instance annotation (a shard without stable identities), or
     * with this instance, or marked restarting. Returns null when free.
     */
    static Taken taken(Lease lease, String name, String instance, Instant now) {
        LeaseSpec spec = lease.getSpec();
        if (spec == null || spec.getHolderIdentity() == null || spec.getHolderIdentity().isEmpty()) {
            return null;
        }
        Instant renewed = spec.getRenewTime() == null ? Instant.EPOCH : spec.getRenewTime().toInstant();
        int seconds = spec.getLeaseDurationSeconds() == null ? 0 : spec.getLeaseDurationSeconds();
        if (!now.isBefore(renewed.plusSeconds(seconds))) {
            return null;
        }
        if (!name.equals(spec.getHolderIdentity())) {
            return Taken.OTHER_HOLDER;
        }
        String holderInstance = annotation(lease, RingContract.INSTANCE_ANNOTATION);
        if (holderInstance == null || holderInstance.equals(instance)
                || annotation(lease, RingContract.RESTARTING_ANNOTATION) != null) {
            return null;
        }
        return Taken.OTHER_INSTANCE;
    }

    /**
     * Whether this Lease names the shard {@code name} running as {@code instance} as its holder
     * (a Lease without an instance annotation counts as this instance's).
     */
    static boolean heldBy(Lease lease, String name, String instance) {
        if (lease == null || lease.getSpec() == null || !name.equals(lease.getSpec().getHolderIdentity())) {
            return false;
        }
        String holderInstance = annotation(lease, RingContract.INSTANCE_ANNOTATION);
        return holderInstance == null || holderInstance.equals(instance);
    }

    /** Whether the Lease is held by its own name, not marked restarting and not expired at {@code now}. */
    static boolean liveHolder(Lease lease, Instant now) {
        LeaseSpec spec = lease.getSpec();
        if (spec == null || !lease.getMetadata().getName().equals(spec.getHolderIdentity())
                || annotation(lease, RingContract.RESTARTING_ANNOTATION) != null || spec.getRenewTime() == null
                || spec.getLeaseDurationSeconds() == null) {
            return false;
        }
        return now.isBefore(spec.getRenewTime().toInstant().plusSeconds(spec.getLeaseDurationSeconds()));
    }

    /**
     * {@code base} held by {@code name} as {@code instance}, renewed at {@code now}: ring label, instance
     * annotation, optional weight, no restarting mark; other metadata kept. A new holder or a new instance
     * is a transition (acquire time now, transitions + 1).
     */
    static Lease held(Lease base, String name, String instance, RingKind kind, String ring, Integer weight,
                      Duration leaseDuration, Instant now) {
        LeaseSpec spec = base.getSpec();
        String holderInstance = annotation(base, RingContract.INSTANCE_ANNOTATION);
        boolean transition = spec == null || !name.equals(spec.getHolderIdentity())
                || (holderInstance != null && !holderInstance.equals(instance));
        LeaseBuilder lease = new LeaseBuilder(base);
        lease.editMetadata()
                .addToLabels(kind.leaseLabel(), ring)
                .addToAnnotations(RingContract.INSTANCE_ANNOTATION, instance)
                .removeFromAnnotations(RingContract.RESTARTING_ANNOTATION)
                .endMetadata();
        if (weight != null) {
            lease.editMetadata().addToAnnotations(RingContract.WEIGHT_ANNOTATION, String.valueOf(weight)).endMetadata();
        }
        LeaseBuilder.SpecNested<LeaseBuilder> edited = lease.editOrNewSpec()
                .withHolderIdentity(name)
                .withLeaseDurationSeconds((int) leaseDuration.toSeconds())
                .withRenewTime(utc(now));
        if (transition || spec.getAcquireTime() == null) {
            edited.withAcquireTime(utc(now));
        }
        if (transition && spec != null) {
            edited.withLeaseTransitions(spec.getLeaseTransitions() == null ? 1 : spec.getLeaseTransitions() + 1);
        }
        return edited.endSpec().build();
    }

    /** The value of an annotation, or null. */
    static String annotation(Lease lease, String key) {
        Map<String, String> annotations = lease.getMetadata() == null ? null : lease.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(key);
    }

    static ZonedDateTime utc(Instant instant) {
        return ZonedDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
