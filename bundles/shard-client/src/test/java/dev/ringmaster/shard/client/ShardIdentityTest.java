package dev.ringmaster.shard.client;

import static dev.ringmaster.ring.testing.PinnedContract.INSTANCE;
import static dev.ringmaster.ring.testing.PinnedContract.RESTARTING;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.testing.MutableClock;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Stable identities on the shard's Lease, against the CRUD mock server: the instance fence (when a
 * Lease of this shard's name is free for this instance), and what a graceful stop leaves behind (a
 * restart mark or a release). Driven one attempt at a time with a clock that moves only when told.
 */
class ShardIdentityTest extends MockServerTestBase {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String SHARD = "shard-0";

    private final MutableClock clock = new MutableClock(T0);
    private final List<String> events = new ArrayList<>();
    private ScheduledExecutorService executor;
    private final List<ShardLease> leases = new ArrayList<>();

    @BeforeEach
    void setUp() {
        executor = Executors.newScheduledThreadPool(2);
    }

    @AfterEach
    void tearDown() {
        leases.forEach(ShardLease::close);
        executor.shutdownNow();
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
            tickAt(first, second2 * 2L);
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
        tickAt(first, 4);
        clock.set(T0.plusSeconds(5));

        first.close();

        Lease marked = stored();
        assertThat(marked.getSpec().getHolderIdentity()).isEqualTo(SHARD);
        assertThat(marked.getSpec().getRenewTime().toInstant()).isEqualTo(Instant.parse("2026-01-01T00:00:04Z"));
        assertThat(marked.getSpec().getLeaseDurationSeconds()).isEqualTo(15);
        assertThat(marked.getMetadata().getAnnotations())
                .containsEntry(RESTARTING, "2026-01-01T00:00:05Z").containsEntry(INSTANCE, "uid-a");
        assertThat(events).containsExactly("uid-a acquired", "uid-a lost");

        tickAt(second, 6);

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
        ShardLease restartedContainer = after("uid-a", "uid-a");

        tickAt(restartedContainer, 3);

        assertThat(restartedContainer.isHeld()).isTrue();
        assertThat(stored().getSpec().getLeaseTransitions()).isNull();
        assertThat(stored().getSpec().getAcquireTime().toInstant()).isEqualTo(T0);
    }

    @Test
    void aLeaseWithoutAnInstanceIsThisShardsAsBefore() {
        ShardLease lease = after(null, "uid-b");

        tickAt(lease, 3);

        assertThat(lease.isHeld()).isTrue();
        assertThat(stored().getMetadata().getAnnotations()).containsEntry(INSTANCE, "uid-b");
    }

    @Test
    void anotherInstancesExpiredLeaseIsFree() {
        ShardLease lease = after("uid-a", "uid-b");

        tickAt(lease, 14);
        assertThat(lease.isHeld()).isFalse();
        tickAt(lease, 15);

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
        tickAt(lease, 2);
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

    /** {@code lease} renews or tries to acquire at T0 plus {@code seconds}. */
    private void tickAt(ShardLease lease, long seconds) {
        clock.set(T0.plusSeconds(seconds));
        lease.tick();
    }

    /**
     * The Lease as instance {@code previous} (null: a shard without instances) held it at T0, and the
     * lease of {@code instance} of the same shard, which leaves when it stops.
     */
    private ShardLease after(String previous, String instance) {
        create(held(previous, T0, Map.of()));
        return lease(instance, ShardDeparture.leave());
    }
}
