package dev.ringmaster.sharder.testing;

import dev.ringmaster.ring.RingContract;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicInteger;

/** Shard leases as a shard (shard-client) writes them, and a namespace per test. */
public final class TestLeases {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private TestLeases() {
    }

    public static String newNamespace() {
        return "lease-test-" + NAMESPACES.incrementAndGet();
    }

    /** A lease of ring {@code ring} held by the shard itself, renewed at {@code renewed}. */
    public static LeaseBuilder shardLease(String namespace, String name, String ring, Instant renewed, int durationSeconds) {
        return new LeaseBuilder()
                .withNewMetadata()
                    .withNamespace(namespace)
                    .withName(name)
                    .addToLabels(RingContract.RING_LABEL, ring)
                .endMetadata()
                .withNewSpec()
                    .withHolderIdentity(name)
                    .withAcquireTime(utc(renewed))
                    .withRenewTime(utc(renewed))
                    .withLeaseDurationSeconds(durationSeconds)
                .endSpec();
    }

    public static Lease create(KubernetesClient client, LeaseBuilder lease) {
        Lease built = lease.build();
        return client.leases().inNamespace(built.getMetadata().getNamespace()).resource(built).create();
    }

    public static Lease get(KubernetesClient client, String namespace, String name) {
        return client.leases().inNamespace(namespace).withName(name).get();
    }

    /** The shard renews its lease at {@code at}, as shard-client does. */
    /**
     * Renews the Lease as its shard would: an update of what was read, read again after a 409 (the
     * sharder may patch the state label between the read and the update).
     */
    public static Lease renew(KubernetesClient client, String namespace, String name, Instant at) {
        for (int attempt = 1; ; attempt++) {
            try {
                return client.leases().inNamespace(namespace).withName(name).edit(lease -> new LeaseBuilder(lease)
                        .editSpec().withHolderIdentity(name).withRenewTime(utc(at)).endSpec()
                        .build());
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt == 5) {
                    throw e;
                }
            }
        }
    }

    public static ZonedDateTime utc(Instant instant) {
        return ZonedDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    public static String stateLabel(Lease lease) {
        return lease.getMetadata().getLabels().get(RingContract.STATE_LABEL);
    }
}
