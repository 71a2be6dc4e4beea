package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.testing.MutableClock;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Stable identities on the shard's Lease, against the CRUD mock server: the instance fence (when a
 * Lease of this shard's name is free for this instance), and what a graceful stop leaves behind (a
 * restart mark or a release). Driven one attempt at a time with a clock that moves only when told.
 */
@EnableKubernetesMockClient(crud = true)
class ShardIdentityTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String SHARD = "shard-0";
    private static final String INSTANCE = "ringmaster.dev/holder-instance";
    private static final String RESTARTING = "ringmaster.dev/restarting";
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    KubernetesMockServer server;

    private KubernetesClient client;
    private final MutableClock clock = new MutableClock(T0);
    private final List<String> events = new ArrayList<>();
    private ScheduledExecutorService executor;
    private String namespace;
    private final List<ShardLease> leases = new ArrayList<>();

    @BeforeEach
    void setUp() {
        client = server.createClient(builder -> builder.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig());
        executor = Executors.newScheduledThreadPool(2);
        namespace = "identity-test-" + NAMESPACES.incrementAndGet();
    }

    @AfterEach
    void tearDown() {
        leases.forEach(ShardLease::close);
        executor.shutdownNow();
        client.close();
    }

    private ShardLease lease(String instance, ShardDeparture departure) {
        ShardLease lease = Sharding.forRing("example").shard(SHARD).namespace(namespace).client(client)
                .clock(clock).executor(executor).instance(instance).departure(departure)
                .listener(new ShardLease.Listener() {
                    @Override
                    public void onAcquired() {
                        events.add(instance + " acquired");
                    }

                    @Override
                    public void onLost() {
                        events.add(instance + " lost");
                    }
                })
                .build().lease();
        leases.add(lease);
        return lease;
    }

    @Test
    void everyWriteCarriesTheInstance() {
        ShardLease lease = lease("uid-a", ShardDeparture.leave());

        lease.tick();
        assertThat(stored().getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-a");
        clock.advance(Duration.ofSeconds(2));
        lease.tick();

        assertThat(stored().getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-a");
        assertThat(stored().getSpec().getRenewTime().toInstant()).isEqualTo(Instant.parse("2026-01-01T00:00:02Z"));
        assertThat(lease.instance()).isEqualTo("uid-a");
    }

    @Test
    void anotherLiveInstanceOfTheSameNameIsWaitedFor() {
        ShardLease first = lease("uid-a", ShardDeparture.leave());
        ShardLease second = lease("uid-b", ShardDeparture.leave());
        first.tick();

        for (int second2 = 1; second2 <= 4; second2++) {
            clock.set(T0.plusSeconds(second2 * 2L));
            first.tick();
            second.tick();
        }

        assertThat(second.isHeld()).isFalse();
        assertThat(first.isHeld()).isTrue();
        assertThat(stored().getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-a");
        assertThat(events).containsExactly("uid-a acquired");
    }

    @Test
    void aRestartMarkFreesTheLeaseForTheNextInstanceAtOnce() {
        ShardLease first = lease("uid-a", ShardDeparture.restart());
        ShardLease second = lease("uid-b", ShardDeparture.leave());
        first.tick();
        clock.set(T0.plusSeconds(4));
        first.tick();
        clock.set(T0.plusSeconds(5));

        first.close();

        Lease marked = stored();
        assertThat(marked.getSpec().getHolderIdentity()).isEqualTo(SHARD);
        assertThat(marked.getSpec().getRenewTime().toInstant()).isEqualTo(Instant.parse("2026-01-01T00:00:04Z"));
        assertThat(marked.getSpec().getLeaseDurationSeconds()).isEqualTo(15);
        assertThat(marked.getMetadata().getAnnotations())
                .containsEntry(RESTARTING, "2026-01-01T00:00:05Z").containsEntry(INSTANCE, "uid-a");
        assertThat(events).containsExactly("uid-a acquired", "uid-a lost");

        clock.set(T0.plusSeconds(6));
        second.tick();

        Lease taken = stored();
        assertThat(second.isHeld()).isTrue();
        assertThat(taken.getSpec().getHolderIdentity()).isEqualTo(SHARD);
        assertThat(taken.getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-b").doesNotContainKey(RESTARTING);
        assertThat(taken.getSpec().getLeaseTransitions()).isEqualTo(1);
        assertThat(taken.getSpec().getAcquireTime().toInstant()).isEqualTo(Instant.parse("2026-01-01T00:00:06Z"));
        assertThat(taken.getSpec().getRenewTime().toInstant()).isEqualTo(Instant.parse("2026-01-01T00:00:06Z"));
        assertThat(events).containsExactly("uid-a acquired", "uid-a lost", "uid-b acquired");
    }

    @Test
    void theSameInstanceTakesItsOwnLeaseBackWithoutATransition() {
        create(held("uid-a", T0, Map.of()));
        ShardLease restartedContainer = lease("uid-a", ShardDeparture.leave());

        clock.set(T0.plusSeconds(3));
        restartedContainer.tick();

        assertThat(restartedContainer.isHeld()).isTrue();
        assertThat(stored().getSpec().getLeaseTransitions()).isNull();
        assertThat(stored().getSpec().getAcquireTime().toInstant()).isEqualTo(T0);
    }

    @Test
    void aLeaseWithoutAnInstanceIsThisShardsAsBefore() {
        create(held(null, T0, Map.of()));
        ShardLease lease = lease("uid-b", ShardDeparture.leave());

        clock.set(T0.plusSeconds(3));
        lease.tick();

        assertThat(lease.isHeld()).isTrue();
        assertThat(stored().getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-b");
    }

    @Test
    void anotherInstancesExpiredLeaseIsFree() {
        create(held("uid-a", T0, Map.of()));
        ShardLease lease = lease("uid-b", ShardDeparture.leave());

        clock.set(T0.plusSeconds(14));
        lease.tick();
        assertThat(lease.isHeld()).isFalse();
        clock.set(T0.plusSeconds(15));
        lease.tick();

        assertThat(lease.isHeld()).isTrue();
        assertThat(stored().getSpec().getLeaseTransitions()).isEqualTo(1);
        assertThat(stored().getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-b");
    }

    @Test
    void aLeaveReleasesTheLease() {
        ShardLease lease = lease("uid-a", ShardDeparture.leave());
        lease.tick();

        lease.close();

        assertThat(stored().getSpec().getHolderIdentity()).isEmpty();
        assertThat(stored().getSpec().getLeaseDurationSeconds()).isEqualTo(1);
        assertThat(stored().getMetadata().getAnnotations()).doesNotContainKey(RESTARTING);
        assertThat(events).containsExactly("uid-a acquired", "uid-a lost");
    }

    @Test
    void theDefaultDepartureIsALeave() {
        ShardLease lease = Sharding.forRing("example").shard(SHARD).namespace(namespace).client(client)
                .clock(clock).executor(executor).build().lease();
        leases.add(lease);
        lease.tick();

        lease.close();

        assertThat(stored().getSpec().getHolderIdentity()).isEmpty();
    }

    @Test
    void aDepartureThatFailsIsALeave() {
        ShardLease lease = lease("uid-a", (shard, now) -> {
            throw new IllegalStateException("no idea");
        });
        lease.start();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(lease::isHeld);

        lease.close();

        assertThat(stored().getSpec().getHolderIdentity()).isEmpty();
    }

    @Test
    void theDepartureIsAskedWhileTheLeaseIsStillHeld() {
        List<Boolean> heldWhenAsked = new ArrayList<>();
        ShardLease[] self = new ShardLease[1];
        self[0] = lease("uid-a", (shard, now) -> {
            heldWhenAsked.add(self[0].isHeld());
            return ShardDeparture.Decision.restart("test");
        });
        self[0].start();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(self[0]::isHeld);

        self[0].close();

        assertThat(heldWhenAsked).containsExactly(true);
        assertThat(stored().getMetadata().getAnnotations()).containsKey(RESTARTING);
    }

    @Test
    void noRestartMarkOnALeaseAnotherInstanceHoldsNow() {
        ShardLease lease = lease("uid-a", ShardDeparture.restart());
        lease.tick();
        // another instance took it (e.g. after this one hung past the lease's expiry)
        client.leases().inNamespace(namespace).withName(SHARD).edit(l -> new LeaseBuilder(l).editMetadata()
                .addToAnnotations(INSTANCE, "uid-b").endMetadata().build());
        clock.set(T0.plusSeconds(2));
        lease.tick();
        assertThat(lease.isHeld()).isFalse();

        lease.close();

        assertThat(stored().getSpec().getHolderIdentity()).isEqualTo(SHARD);
        assertThat(stored().getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-b").doesNotContainKey(RESTARTING);
    }

    @Test
    void theRestartMarkSurvivesAConflict() {
        ShardLease lease = lease("uid-a", ShardDeparture.restart());
        lease.tick();
        // the sharder writes its state label after the shard's last renewal
        client.leases().inNamespace(namespace).withName(SHARD).edit(l -> new LeaseBuilder(l).editMetadata()
                .addToLabels("alpha.sharding.timebertt.dev/state", "ready").endMetadata().build());
        clock.set(T0.plusSeconds(1));

        lease.close();

        Lease marked = stored();
        assertThat(marked.getMetadata().getAnnotations()).containsEntry(RESTARTING, "2026-01-01T00:00:01Z");
        assertThat(marked.getMetadata().getLabels()).containsEntry("alpha.sharding.timebertt.dev/state", "ready");
        assertThat(marked.getSpec().getRenewTime().toInstant()).isEqualTo(T0);
    }

    @Test
    void theInstanceDefaultsToThePodUid() {
        assertThat(Sharding.defaultInstance(Map.of("POD_UID", "0d5f1a7e-uid")::get)).isEqualTo("0d5f1a7e-uid");
        String processInstance = Sharding.defaultInstance(name -> null);
        assertThat(processInstance).matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        assertThat(Sharding.defaultInstance(name -> null)).as("one per process").isEqualTo(processInstance);
    }

    private Lease held(String instance, Instant renewed, Map<String, String> annotations) {
        LeaseBuilder lease = new LeaseBuilder().withNewMetadata().withName(SHARD).withNamespace(namespace)
                .addToAnnotations(annotations).endMetadata()
                .withNewSpec().withHolderIdentity(SHARD).withLeaseDurationSeconds(15)
                .withAcquireTime(utc(renewed)).withRenewTime(utc(renewed)).endSpec();
        if (instance != null) {
            lease.editMetadata().addToAnnotations(INSTANCE, instance).endMetadata();
        }
        return lease.build();
    }

    private void create(Lease lease) {
        client.leases().inNamespace(namespace).resource(lease).create();
    }

    private Lease stored() {
        return client.leases().inNamespace(namespace).withName(SHARD).get();
    }

    private static ZonedDateTime utc(Instant instant) {
        return ZonedDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
