package dev.ringmaster.shard.client;

import dev.ringmaster.ring.testing.MutableClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.testing.apiserver.SilentApiServer;
import dev.ringmaster.testing.apiserver.StandardError;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Clock;
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
 * The shard lease against the CRUD mock server. Most tests drive it one attempt at a time
 * ({@link ShardLease#tick()}) with a clock that moves only when the test says; one runs the real
 * background loop.
 */
class ShardLeaseTest extends MockServerTestBase {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String RING = "example";
    private static final String SHARD = "shard-0";

    private final MutableClock clock = new MutableClock(T0);
    private final List<String> events = new ArrayList<>();
    /** The clock's instant at each onLost call. */
    private final List<Instant> lostAt = new ArrayList<>();
    private ScheduledExecutorService executor;
    private ShardLease lease;

    @BeforeEach
    void setUp() {
        executor = Executors.newScheduledThreadPool(2);
        lease = builder().build().lease();
    }

    @AfterEach
    void tearDown() {
        lease.close();
        executor.shutdownNow();
    }

    private Sharding.Builder builder() {
        return Sharding.forRing(RING).shard(SHARD).namespace(namespace).client(client)
                .clock(clock).executor(executor).weight(3)
                .listener(new ShardLease.Listener() {
                    @Override
                    public void onAcquired() {
                        synchronized (events) {
                            events.add("acquired");
                        }
                    }

                    @Override
                    public void onLost() {
                        synchronized (events) {
                            events.add("lost");
                            lostAt.add(clock.instant());
                        }
                    }
                });
    }

    @Test
    void acquiresByCreatingTheLeaseAsTheContractSays() {
        lease.tick();

        Lease stored = stored();
        assertThat(stored.getMetadata().getLabels()).containsEntry(RingContract.RING_LABEL, RING);
        assertThat(stored.getMetadata().getAnnotations()).containsEntry(RingContract.WEIGHT_ANNOTATION, "3");
        assertThat(stored.getSpec().getHolderIdentity()).isEqualTo(SHARD);
        assertThat(stored.getSpec().getLeaseDurationSeconds()).isEqualTo(15);
        assertThat(stored.getSpec().getRenewTime().toInstant()).isEqualTo(T0);
        assertThat(stored.getSpec().getAcquireTime().toInstant()).isEqualTo(T0);
        assertThat(lease.isHeld()).isTrue();
        assertThat(events).containsExactly("acquired");
        assertThat(readyForTheSharder(stored, clock.instant())).isTrue();
    }

    /**
     * An attempt whose thread is interrupted (its executor shut down, as a killed shard's is) is no failure
     * to warn about: it was one whenever a request was in flight.
     */
    @Test
    void anAttemptCutOffByAnInterruptIsNoWarning() throws Exception {
        String logged;
        // an API server that takes the attempt's request and never answers it
        try (SilentApiServer silent = new SilentApiServer(client)) {
            ShardLease cutOff = builder().client(silent.client()).build().lease();
            Thread attempt = new Thread(cutOff::tick, "lease-attempt");
            attempt.start();
            logged = silent.loggedWhileCuttingOff(() -> {
                attempt.interrupt();
                attempt.join(10_000); // it logs, or not, before it ends
            });
            assertThat(attempt.isAlive()).isFalse();
        }
        assertThat(logged).doesNotContain("Shard lease");
    }

    @Test
    void aControllerRingShardLabelsItsLeaseWithTheControllerRing() {
        lease.close();
        lease = builder().ringKind(RingKind.CONTROLLER_RING).build().lease();

        lease.tick();
        clock.advance(Duration.ofSeconds(2));
        lease.tick();

        Lease stored = stored();
        assertThat(stored.getMetadata().getLabels())
                .containsOnly(Map.entry("alpha.sharding.timebertt.dev/controllerring", RING));
        assertThat(stored.getSpec().getHolderIdentity()).isEqualTo(SHARD);
        assertThat(stored.getSpec().getRenewTime().toInstant()).isEqualTo(T0.plusSeconds(2));
        assertThat(lease.isHeld()).isTrue();
    }

    /**
     * A label-mode shard restarted from range mode (the ring switched out of it) says it serves no ranges, so the
     * sharder labels its objects; the sharder's own annotations stay. (A range-mode shard's writes keep it: the range
     * mode tests, RangeInformerIT among them, read it back.)
     */
    @Test
    void aLabelModeShardRemovesTheServedRangesItsRangeModePredecessorLeft() {
        lease.tick();
        lease.close();
        client.leases().inNamespace(namespace).withName(SHARD).edit(l -> new LeaseBuilder(l).editMetadata()
                .addToAnnotations(RingContract.SERVED_RANGES_ANNOTATION, "0x0000000000000000-0x8000000000000000")
                .addToAnnotations(RingContract.ASSIGNED_RANGES_ANNOTATION, "").endMetadata().build());

        lease = builder().build().lease();
        lease.tick();

        assertThat(lease.isHeld()).isTrue();
        assertThat(stored().getMetadata().getAnnotations()).doesNotContainKey(RingContract.SERVED_RANGES_ANNOTATION)
                .containsEntry(RingContract.ASSIGNED_RANGES_ANNOTATION, "");
    }

    /**
     * A range-mode shard announces with the write that acquires its Lease that it serves ranges, none yet, so a ring
     * entering range mode never takes it for a shard of labels; what it serves later is left to its claims.
     */
    @Test
    void aRangeModeShardAnnouncesRangesWhenItAcquiresItsLease() {
        lease.servesRanges(); // as Sharding's range mode sets it
        lease.tick();
        assertThat(lease.isHeld()).isTrue();
        assertThat(stored().getMetadata().getAnnotations()).containsEntry(RingContract.SERVED_RANGES_ANNOTATION, "");

        client.leases().inNamespace(namespace).withName(SHARD).edit(l -> new LeaseBuilder(l).editMetadata()
                .addToAnnotations(RingContract.SERVED_RANGES_ANNOTATION, "0x0000000000000000-0x8000000000000000")
                .endMetadata().build());
        clock.advance(Duration.ofSeconds(2));
        lease.tick();
        assertThat(stored().getMetadata().getAnnotations()).as("a claim stays")
                .containsEntry(RingContract.SERVED_RANGES_ANNOTATION, "0x0000000000000000-0x8000000000000000");
    }

    @Test
    void renewsEveryAttemptAndKeepsMetadataWrittenByOthers() {
        lease.tick();
        // the sharder writes its state label (the lease now has a newer resourceVersion than ours)
        client.leases().inNamespace(namespace).withName(SHARD).edit(l -> new LeaseBuilder(l).editMetadata()
                .addToLabels(RingContract.STATE_LABEL, "ready").addToAnnotations("someone/else", "x").endMetadata().build());

        clock.advance(Duration.ofSeconds(2));
        lease.tick();
        clock.advance(Duration.ofSeconds(2));
        lease.tick();

        Lease stored = stored();
        assertThat(stored.getSpec().getRenewTime().toInstant()).isEqualTo(T0.plusSeconds(4));
        assertThat(stored.getSpec().getAcquireTime().toInstant()).isEqualTo(T0);
        assertThat(stored.getMetadata().getLabels())
                .containsEntry(RingContract.STATE_LABEL, "ready").containsEntry(RingContract.RING_LABEL, RING);
        assertThat(stored.getMetadata().getAnnotations()).containsEntry("someone/else", "x");
        assertThat(lease.isHeld()).isTrue();
        assertThat(events).containsExactly("acquired");
        assertThat(readyForTheSharder(stored, clock.instant())).isTrue();
    }

    @Test
    void releasesOnCloseAfterTellingTheListener() {
        lease.tick();

        lease.close();

        Lease stored = stored();
        assertThat(stored.getSpec().getHolderIdentity()).isEmpty();
        assertThat(readyForTheSharder(stored, clock.instant())).isFalse();
        assertThat(lease.isHeld()).isFalse();
        assertThat(events).containsExactly("acquired", "lost");
        lease.close(); // idempotent
        assertThat(events).containsExactly("acquired", "lost");
    }

    @Test
    void reacquiresAfterTheSharderTookItOnceTheDoubledDurationPassed() {
        lease.tick();
        // the shard hangs: no renewals; at the renew deadline it fences itself
        clock.advance(Duration.ofSeconds(10));
        assertThat(lease.isHeld()).isFalse();
        // at exp + duration the lease is uncertain and the sharder acquires it with a doubled duration
        Instant sharderAcquired = T0.plusSeconds(30);
        clock.set(sharderAcquired);
        client.leases().inNamespace(namespace).withName(SHARD).edit(l -> new LeaseBuilder(l)
                .editMetadata().addToLabels(RingContract.STATE_LABEL, "dead").endMetadata()
                .editSpec().withHolderIdentity(RingContract.LEASE_CONTROLLER_HOLDER).withLeaseDurationSeconds(30)
                .withAcquireTime(utc(sharderAcquired)).withRenewTime(utc(sharderAcquired)).endSpec().build());

        clock.set(sharderAcquired.plusSeconds(2));
        lease.tick();
        clock.set(sharderAcquired.plusSeconds(29));
        lease.tick();
        assertThat(lease.isHeld()).isFalse();
        assertThat(stored().getSpec().getHolderIdentity()).isEqualTo(RingContract.LEASE_CONTROLLER_HOLDER);

        clock.set(sharderAcquired.plusSeconds(30));
        lease.tick();

        Lease stored = stored();
        assertThat(lease.isHeld()).isTrue();
        assertThat(stored.getSpec().getHolderIdentity()).isEqualTo(SHARD);
        assertThat(stored.getSpec().getLeaseDurationSeconds()).isEqualTo(15);
        assertThat(stored.getSpec().getAcquireTime().toInstant()).isEqualTo(clock.instant());
        assertThat(stored.getSpec().getLeaseTransitions()).isEqualTo(1);
        assertThat(stored.getMetadata().getLabels()).containsEntry(RingContract.STATE_LABEL, "dead");
        assertThat(events).containsExactly("acquired", "lost", "acquired");
    }

    @Test
    void doesNotTakeALeaseSomeoneElseHoldsValidly() {
        client.leases().inNamespace(namespace).resource(new LeaseBuilder()
                .withNewMetadata().withName(SHARD).withNamespace(namespace).endMetadata()
                .withNewSpec().withHolderIdentity(RingContract.LEASE_CONTROLLER_HOLDER).withLeaseDurationSeconds(30)
                .withRenewTime(utc(T0)).endSpec().build()).create();

        lease.tick();

        assertThat(lease.isHeld()).isFalse();
        assertThat(stored().getSpec().getHolderIdentity()).isEqualTo(RingContract.LEASE_CONTROLLER_HOLDER);
        assertThat(events).isEmpty();
    }

    @Test
    void failingRenewalsFenceTheShardBeforeTheLeaseExpires() {
        lease.tick();
        server.expect().put().withPath("/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases/" + SHARD)
                .andReturn(500, "etcd unavailable").times(5);

        for (int second = 2; second <= 8; second += 2) {
            clock.set(T0.plusSeconds(second));
            lease.tick();
            assertThat(lease.isHeld()).as("held at +%ss", second).isTrue();
        }
        clock.set(T0.plusSeconds(10));
        lease.tick();

        assertThat(lease.isHeld()).isFalse();
        assertThat(events).containsExactly("acquired", "lost");
        Lease stored = stored();
        Instant expiry = stored.getSpec().getRenewTime().toInstant().plusSeconds(stored.getSpec().getLeaseDurationSeconds());
        assertThat(lostAt).singleElement().satisfies(at -> assertThat(at).isBefore(expiry));

        // the API server is back: the lease is still this shard's, so it is held again
        clock.set(T0.plusSeconds(12));
        lease.tick();
        assertThat(lease.isHeld()).isTrue();
        assertThat(stored().getSpec().getRenewTime().toInstant()).isEqualTo(T0.plusSeconds(12));
        assertThat(events).containsExactly("acquired", "lost", "acquired");
    }

    /**
     * A renewal that conflicts, re-reads and conflicts again (the sharder writing range assignments into
     * the Lease while it renews) is no warning: the next attempt renews.
     */
    @Test
    void aRenewalThatConflictsTwiceIsNoWarningAndTheNextOneRenews() throws Exception {
        lease.tick();
        server.expect().put().withPath("/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases/" + SHARD)
                .andReturn(409, "the object has been modified").times(2);
        clock.set(T0.plusSeconds(2));

        String logged = StandardError.loggedWhile(lease::tick);

        assertThat(logged).doesNotContain("WARN");
        assertThat(lease.isHeld()).isTrue();
        clock.set(T0.plusSeconds(4));
        lease.tick();
        assertThat(stored().getSpec().getRenewTime().toInstant()).isEqualTo(T0.plusSeconds(4));
        assertThat(events).containsExactly("acquired");
    }

    @Test
    void theDeadlineFencesEvenWithoutAnAttempt() {
        lease.tick();
        clock.set(T0.plusSeconds(9));
        assertThat(lease.isHeld()).isTrue();

        clock.set(T0.plusSeconds(10));
        lease.checkDeadline();

        assertThat(events).containsExactly("acquired", "lost");
        assertThat(lease.isHeld()).isFalse();
    }

    /**
     * The deadline check is a timer, and timers and clocks disagree by a little: one that runs a moment
     * before the deadline by the lease's clock must look again, not leave the shard believing it holds
     * its Lease until something else asks (a renewal hanging through an outage asks only when it returns).
     */
    @Test
    void aDeadlineCheckThatRunsEarlyLooksAgain() {
        lease.close();
        Clock lagging = Clock.offset(Clock.systemUTC(), Duration.ofMillis(-20));
        lease = builder().clock(lagging).leaseDuration(Duration.ofSeconds(2)).renewDeadline(Duration.ofSeconds(1))
                .retryPeriod(Duration.ofMillis(100)).build().lease();
        lease.tick(); // acquired now; nothing renews it after this, and nobody asks isHeld()

        await().atMost(Duration.ofSeconds(5)).until(() -> {
            synchronized (events) {
                return events.contains("lost");
            }
        });
        synchronized (events) {
            assertThat(events).containsExactly("acquired", "lost");
        }
    }

    @Test
    void lostAtOnceWhenSomeoneElseTakesTheLease() {
        lease.tick();
        client.leases().inNamespace(namespace).withName(SHARD).edit(l -> new LeaseBuilder(l)
                .editSpec().withHolderIdentity("intruder").endSpec().build());

        clock.advance(Duration.ofSeconds(2));
        lease.tick();

        assertThat(lease.isHeld()).isFalse();
        assertThat(events).containsExactly("acquired", "lost");
        assertThat(stored().getSpec().getHolderIdentity()).isEqualTo("intruder");
        lease.close();
        assertThat(stored().getSpec().getHolderIdentity()).as("not released: not ours").isEqualTo("intruder");
    }

    @Test
    void theBackgroundLoopAcquiresRenewsAndReleases() {
        lease.close();
        lease = builder().clock(Clock.systemUTC()).leaseDuration(Duration.ofSeconds(5))
                .renewDeadline(Duration.ofSeconds(4)).retryPeriod(Duration.ofMillis(50)).build().lease();

        lease.start();

        await().atMost(Duration.ofSeconds(10)).until(lease::isHeld);
        ZonedDateTime first = stored().getSpec().getRenewTime();
        await().atMost(Duration.ofSeconds(10)).until(() -> stored().getSpec().getRenewTime().isAfter(first));
        assertThat(lease.isHeld()).isTrue();

        lease.close();
        assertThat(stored().getSpec().getHolderIdentity()).isEmpty();
        synchronized (events) {
            assertThat(events).startsWith("acquired").endsWith("lost");
        }
    }

    /**
     * The load report rides on the renewals: none before the period passed since the first write, then one with
     * the first renewal at or after it (no extra request), the same value until the next is due.
     */
    @Test
    void theLoadReportIsWrittenWithTheFirstRenewalAfterEachPeriod() {
        Sharding sharding = withLoadReports(Duration.ofSeconds(10));
        LoadMeter meter = sharding.loadMeter();

        lease.tick();
        meter.reconciled(new ConfigMap(), Duration.ofSeconds(2).toNanos());
        for (int second = 2; second <= 8; second += 2) {
            clock.set(T0.plusSeconds(second));
            lease.tick();
            assertThat(storedLoad()).as("at +%ss", second).isNull();
        }
        assertThat(sharding.lastLoadReport()).isEmpty();

        clock.set(T0.plusSeconds(10));
        int requests = server.getRequestCount();
        lease.tick();
        assertThat(server.getRequestCount() - requests).as("the renewal alone").isEqualTo(1);
        String first = storedLoad();
        // 2 s busy in the 10 s since the meter was made; label mode: the whole space, no object in it
        assertThat(first).isEqualTo("window=10s busy=0.2000 wait=0.0000 objects=0 cells=0-4095:0.0000:0");
        assertThat(LoadReport.parse(first).busy()).isEqualTo(0.2);
        assertThat(sharding.lastLoadReport()).hasValueSatisfying(report -> assertThat(report.format()).isEqualTo(first));

        meter.reconciled(new ConfigMap(), Duration.ofSeconds(3).toNanos());
        for (int second = 12; second <= 18; second += 2) {
            clock.set(T0.plusSeconds(second));
            lease.tick();
            assertThat(storedLoad()).as("at +%ss", second).isEqualTo(first);
            assertThat(stored().getSpec().getRenewTime().toInstant()).isEqualTo(T0.plusSeconds(second));
        }

        clock.set(T0.plusSeconds(20));
        lease.tick();
        assertThat(storedLoad()).isEqualTo("window=10s busy=0.3000 wait=0.0000 objects=0 cells=0-4095:0.0000:0");
    }

    /**
     * A report whose write failed is the one the next write carries, not a new one: its window is not lost. Both a
     * renewal that conflicted (re-read and written again in the same attempt) and one that failed are retried so.
     */
    @Test
    void aReportWhoseWriteFailedIsWrittenByTheNextWrite() {
        Sharding sharding = withLoadReports(Duration.ofSeconds(10));
        lease.tick();
        sharding.loadMeter().reconciled(new ConfigMap(), Duration.ofSeconds(4).toNanos());
        clock.set(T0.plusSeconds(10));
        server.expect().put().withPath("/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases/" + SHARD)
                .andReturn(500, "etcd unavailable").once();
        lease.tick();
        assertThat(storedLoad()).isNull();

        clock.set(T0.plusSeconds(12));
        // the sharder writes the Lease meanwhile: the renewal conflicts, re-reads and writes again
        client.leases().inNamespace(namespace).withName(SHARD).edit(l -> new LeaseBuilder(l).editMetadata()
                .addToLabels(RingContract.STATE_LABEL, "ready").endMetadata().build());
        lease.tick();

        assertThat(storedLoad()).isEqualTo("window=10s busy=0.4000 wait=0.0000 objects=0 cells=0-4095:0.0000:0");
        assertThat(stored().getMetadata().getLabels()).containsEntry(RingContract.STATE_LABEL, "ready");
        assertThat(stored().getSpec().getRenewTime().toInstant()).isEqualTo(T0.plusSeconds(12));
    }

    /** A period of zero writes no report, and leaves one written by others alone. */
    @Test
    void aLoadReportPeriodOfZeroWritesNone() {
        Sharding sharding = withLoadReports(Duration.ZERO);
        sharding.loadMeter().reconciled(new ConfigMap(), Duration.ofSeconds(1).toNanos());
        for (int second = 0; second <= 30; second += 2) {
            clock.set(T0.plusSeconds(second));
            lease.tick();
            assertThat(storedLoad()).as("at +%ss", second).isNull();
        }
        String others = "window=15s busy=0.5000 wait=0.0000 objects=3 cells=";
        client.leases().inNamespace(namespace).withName(SHARD).edit(l -> new LeaseBuilder(l).editMetadata()
                .addToAnnotations(RingContract.LOAD_ANNOTATION, others).endMetadata().build());
        for (int second = 32; second <= 60; second += 2) {
            clock.set(T0.plusSeconds(second));
            lease.tick();
        }

        assertThat(storedLoad()).isEqualTo(others);
        assertThat(stored().getSpec().getRenewTime().toInstant()).isEqualTo(T0.plusSeconds(60));
        assertThat(sharding.lastLoadReport()).isEmpty();
    }

    /** Replaces the lease with one of a shard publishing every {@code period}, its meter's ticker the test clock. */
    private Sharding withLoadReports(Duration period) {
        lease.close();
        Sharding sharding = builder().loadReportPeriod(period)
                .ticker(() -> Duration.between(T0, clock.instant()).toNanos()).build();
        lease = sharding.lease();
        return sharding;
    }

    private String storedLoad() {
        Lease stored = stored();
        return stored == null || stored.getMetadata().getAnnotations() == null ? null
                : stored.getMetadata().getAnnotations().get(RingContract.LOAD_ANNOTATION);
    }

    private Lease stored() {
        return client.leases().inNamespace(namespace).withName(SHARD).get();
    }

    /** The sharder's rule for a ready shard (docs/design.md section 3), computed independently. */
    private static boolean readyForTheSharder(Lease lease, Instant now) {
        if (!lease.getMetadata().getName().equals(lease.getSpec().getHolderIdentity())
                || lease.getSpec().getRenewTime() == null || lease.getSpec().getLeaseDurationSeconds() == null) {
            return false;
        }
        return now.isBefore(lease.getSpec().getRenewTime().toInstant().plusSeconds(lease.getSpec().getLeaseDurationSeconds()));
    }

    private static ZonedDateTime utc(Instant instant) {
        return ZonedDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
