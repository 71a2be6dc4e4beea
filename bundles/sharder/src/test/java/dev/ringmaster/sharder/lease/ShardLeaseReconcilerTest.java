package dev.ringmaster.sharder.lease;

import static dev.ringmaster.sharder.testing.TestLeases.create;
import static dev.ringmaster.sharder.testing.TestLeases.get;
import static dev.ringmaster.sharder.testing.TestLeases.renew;
import static dev.ringmaster.sharder.testing.TestLeases.shardLease;
import static dev.ringmaster.sharder.testing.TestLeases.stateLabel;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.ShardStatus;
import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.runtime.Reconciler.Result;
import dev.ringmaster.sharder.testing.TestLeases;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One pass at a time against the CRUD mock server, with a clock that moves only when the test says.
 * The cache lookup reads the server, so every pass sees the Lease as it is now.
 */
@EnableCrudApiServer
class ShardLeaseReconcilerTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final int DURATION = 10;
    private static final String RING = "example";
    private static final RingKey KEY = RingKey.clusterRing(RING);
    private static final String SHARD = "shard-0";

    KubernetesClient client;
    KubernetesMockServer server;

    private final MutableClock clock = new MutableClock(T0);
    private final DefaultLeaseDetector defaultDetector = new DefaultLeaseDetector();
    private final AtomicReference<LeaseDetector> detector = new AtomicReference<>(defaultDetector);
    private String namespace;
    private LeaseKey key;
    private ShardLeaseReconciler reconciler;

    @BeforeEach
    void setUp() {
        namespace = TestLeases.newNamespace();
        key = new LeaseKey(namespace, SHARD);
        reconciler = new ShardLeaseReconciler(client, k -> get(client, k.namespace(), k.name()), detector::get, clock,
                () -> true);
    }

    @Test
    void walksThroughEveryStateAtTheTimesOfTheDetector() {
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION));

        passAt(T0, ShardState.READY, Duration.ofSeconds(10));
        passAt(T0.plusSeconds(9), ShardState.READY, Duration.ofSeconds(1));
        passAt(T0.plusSeconds(10), ShardState.EXPIRED, Duration.ofSeconds(10));
        passAt(T0.plusSeconds(19), ShardState.EXPIRED, Duration.ofSeconds(1));

        // uncertain: acquired in one write; dead until expired (doubled duration) + 1 min
        Lease before = get(client, namespace, SHARD);
        clock.set(T0.plusSeconds(20));
        assertThat(reconciler.reconcile(key)).isEqualTo(Result.requeueAfter(Duration.ofSeconds(20 + 60)));
        Lease acquired = get(client, namespace, SHARD);
        assertThat(acquired.getSpec().getHolderIdentity()).isEqualTo(RingContract.LEASE_CONTROLLER_HOLDER);
        assertThat(acquired.getSpec().getLeaseDurationSeconds()).isEqualTo(2 * DURATION);
        assertThat(acquired.getSpec().getAcquireTime().toInstant()).isEqualTo(T0.plusSeconds(20));
        assertThat(acquired.getSpec().getRenewTime().toInstant()).isEqualTo(T0.plusSeconds(20));
        assertThat(acquired.getSpec().getLeaseTransitions()).isEqualTo(1);
        assertThat(stateLabel(acquired)).isEqualTo("dead");
        assertThat(acquired.getMetadata().getLabels()).containsEntry(RingContract.RING_LABEL, RING);
        assertThat(before.getSpec().getHolderIdentity()).isEqualTo(SHARD);
        assertThat(reconciler.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.DEAD, 1));

        passAt(T0.plusSeconds(99), ShardState.DEAD, Duration.ofSeconds(1));

        clock.set(T0.plusSeconds(100));
        assertThat(reconciler.reconcile(key)).isEqualTo(Result.done());
        assertThat(get(client, namespace, SHARD)).isNull();
        assertThat(reconciler.membership()).isEqualTo(Membership.EMPTY);
    }

    @Test
    void aNewTermGivesEveryShardOneLeaseDurationFromItsStart() {
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION));
        // renewed last at T0 (say, before the API server went away); the term starts at T0 + 25 s,
        // when the detector alone would find the lease past its uncertain point
        reconciler.startTerm(T0.plusSeconds(25));
        passAt(T0.plusSeconds(25), ShardState.READY, Duration.ofSeconds(10));
        passAt(T0.plusSeconds(34), ShardState.READY, Duration.ofSeconds(1));
        passAt(T0.plusSeconds(35), ShardState.EXPIRED, Duration.ofSeconds(10));
        assertThat(get(client, namespace, SHARD).getSpec().getHolderIdentity()).isEqualTo(SHARD);

        // a renewal after the term started counts as it is
        renew(client, namespace, SHARD, T0.plusSeconds(36));
        passAt(T0.plusSeconds(36), ShardState.READY, Duration.ofSeconds(10));
    }

    @Test
    void afterTheTermTheRenewalsAloneCount() {
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION));
        reconciler.startTerm(T0.plusSeconds(15));
        reconciler.endTerm();
        passAt(T0.plusSeconds(15), ShardState.EXPIRED, Duration.ofSeconds(5));
    }

    @Test
    void requeuesExactlyWhenTheDetectorSaysTheStateWouldChange() {
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION));
        for (long second : new long[] {0, 3, 10, 17, 20, 50, 99}) {
            clock.set(T0.plusSeconds(second));
            Lease lease = get(client, namespace, SHARD);
            ShardStatus status = defaultDetector.detect(ShardLeaseReconciler.toRecord(lease), clock.instant());
            Result result = reconciler.reconcile(key);
            if (status.state() == ShardState.UNCERTAIN) {
                // acting on it changes the lease; the revisit is the acquired lease's
                status = defaultDetector.detect(ShardLeaseReconciler.toRecord(get(client, namespace, SHARD)),
                        clock.instant());
            }
            assertThat(result.requeueAfter()).as("after %ss", second)
                    .isEqualTo(Duration.between(clock.instant(), status.revisitAt()));
        }
    }

    @Test
    void writesTheStateLabelOnlyWhenItChanges() {
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION));
        passAt(T0, ShardState.READY, Duration.ofSeconds(10));
        String labelled = get(client, namespace, SHARD).getMetadata().getResourceVersion();

        passAt(T0.plusSeconds(1), ShardState.READY, Duration.ofSeconds(9));
        passAt(T0.plusSeconds(5), ShardState.READY, Duration.ofSeconds(5));
        assertThat(get(client, namespace, SHARD).getMetadata().getResourceVersion()).isEqualTo(labelled);

        passAt(T0.plusSeconds(12), ShardState.EXPIRED, Duration.ofSeconds(8));
        passAt(T0.plusSeconds(13), ShardState.EXPIRED, Duration.ofSeconds(7));
        // one label patch per change (the mock consumes request bodies, so only the count is visible)
        assertThat(requests("PATCH")).hasSize(2);
    }

    @Test
    void aShardRenewingDuringTheAcquisitionKeepsItsLease() {
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION));
        clock.set(T0.plusSeconds(25));
        // The pass classifies this copy as uncertain; the shard renews before the pass writes.
        Lease classified = get(client, namespace, SHARD);
        renew(client, namespace, SHARD, T0.plusSeconds(25));
        ShardLeaseReconciler racing = new ShardLeaseReconciler(client, k -> classified, detector::get, clock, () -> true);

        assertThat(racing.reconcile(key)).isEqualTo(Result.requeueAfter(ShardLeaseReconciler.RECHECK_AFTER_CONFLICT));

        Lease lease = get(client, namespace, SHARD);
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(SHARD);
        assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(DURATION);
        assertThat(lease.getSpec().getRenewTime().toInstant()).isEqualTo(T0.plusSeconds(25));
        assertThat(lease.getSpec().getLeaseTransitions()).isNull();
        // the one update was refused (the CRUD mock, like a real API server, answers 409 to a stale resourceVersion)
        assertThat(requests("PUT")).hasSize(1);
        assertThat(lease.getMetadata().getResourceVersion()).isNotEqualTo(classified.getMetadata().getResourceVersion());
        // still available: nothing is moved away from a shard that only lost a race
        assertThat(racing.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.UNCERTAIN, 1));

        // the next pass reads the renewed lease
        assertThat(reconciler.reconcile(key)).isEqualTo(Result.requeueAfter(Duration.ofSeconds(DURATION)));
        assertThat(reconciler.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.READY, 1));
    }

    @Test
    void deletesAnOrphanedLeaseOnConditionThatItIsUnchanged() {
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION).editSpec().withHolderIdentity(null).endSpec());

        passAt(T0.plusSeconds(69), ShardState.DEAD, Duration.ofSeconds(1));
        String classified = get(client, namespace, SHARD).getMetadata().getResourceVersion();
        clock.set(T0.plusSeconds(70));
        assertThat(reconciler.reconcile(key)).isEqualTo(Result.done());

        assertThat(get(client, namespace, SHARD)).isNull();
        assertThat(reconciler.membership()).isEqualTo(Membership.EMPTY);
        // The mock server ignores delete preconditions; a real one enforces them, so check they are sent.
        assertThat(requests("DELETE")).singleElement().extracting(RecordedRequest::getUtf8Body, STRING)
                .contains("\"preconditions\":{\"resourceVersion\":\"" + classified + "\"");
    }

    /** A follower classifies like the leader, so its webhook has the membership, but it never writes. */
    @Test
    void aFollowerObservesEveryStateAndWritesNothing() {
        ShardLeaseReconciler follower = new ShardLeaseReconciler(client, k -> get(client, k.namespace(), k.name()),
                detector::get, clock, () -> false);
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION)
                .editMetadata().addToAnnotations(RingContract.WEIGHT_ANNOTATION, "heavy").endMetadata());
        String created = get(client, namespace, SHARD).getMetadata().getResourceVersion();

        for (long second : new long[] {0, 10, 25}) {
            clock.set(T0.plusSeconds(second));
            follower.reconcile(key);
        }
        assertThat(follower.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.UNCERTAIN, 1));

        clearHolder();
        String released = get(client, namespace, SHARD).getMetadata().getResourceVersion();
        clock.set(T0.plusSeconds(200));
        follower.reconcile(key);
        assertThat(follower.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.ORPHANED, 1));

        Lease untouched = get(client, namespace, SHARD);
        assertThat(untouched.getMetadata().getResourceVersion()).isEqualTo(released).isNotEqualTo(created);
        assertThat(untouched.getMetadata().getLabels()).doesNotContainKey(RingContract.STATE_LABEL);
        assertThat(client.events().v1().events().inNamespace(namespace).list().getItems()).isEmpty();
    }

    private void clearHolder() {
        client.leases().inNamespace(namespace).withName(SHARD)
                .edit(lease -> new LeaseBuilder(lease).editSpec().withHolderIdentity(null).endSpec().build());
    }

    /**
     * The shard takes its orphaned lease back just before the delete: a real API server refuses the
     * delete with 409 because of the resourceVersion precondition. The CRUD mock does not enforce
     * preconditions, so this answer comes from the mock's expectations mode.
     */
    @Test
    void anOrphanedLeaseTakenBackByItsShardIsNotDeleted() {
        KubernetesMockServer strict = new KubernetesMockServer(false);
        strict.init();
        try (KubernetesClient strictClient = strict.createClient()) {
            Lease orphaned = shardLease(namespace, SHARD, RING, T0, DURATION)
                    .editMetadata().withResourceVersion("41").endMetadata()
                    .editSpec().withHolderIdentity("").endSpec()
                    .build();
            strict.expect().delete().withPath("/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases/" + SHARD)
                    .andReturn(409, new StatusBuilder().withStatus("Failure").withReason("Conflict").withCode(409)
                            .withMessage("Precondition failed: ResourceVersion in precondition: 41, "
                                    + "ResourceVersion in object meta: 42")
                            .build())
                    .once();
            ShardLeaseReconciler racing = new ShardLeaseReconciler(strictClient, k -> orphaned, detector::get, clock,
                    () -> true);
            clock.set(T0.plusSeconds(300));

            assertThat(racing.reconcile(key)).isEqualTo(Result.requeueAfter(ShardLeaseReconciler.RECHECK_AFTER_CONFLICT));
            assertThat(racing.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.ORPHANED, 1));
            assertThat(strict.getRequestCount()).isEqualTo(1);
        } finally {
            strict.destroy();
        }
    }

    @Test
    void aLeaseThatIsGoneIsForgotten() {
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION));
        reconciler.reconcile(key);
        assertThat(reconciler.membership().shards(KEY)).hasSize(1);

        client.leases().inNamespace(namespace).withName(SHARD).delete();

        assertThat(reconciler.reconcile(key)).isEqualTo(Result.done());
        assertThat(reconciler.membership()).isEqualTo(Membership.EMPTY);
    }

    /** The Lease label names the ring's kind; a Lease with both labels is a shard of both rings. */
    @Test
    void controllerRingLeasesAreShardsOfTheControllerRing() {
        create(client, new LeaseBuilder(shardLease(namespace, "shard-a", RING, T0, DURATION).build()).editMetadata()
                .removeFromLabels(RingContract.RING_LABEL)
                .addToLabels("alpha.sharding.timebertt.dev/controllerring", RING).endMetadata());
        create(client, new LeaseBuilder(shardLease(namespace, "shard-b", RING, T0, DURATION).build()).editMetadata()
                .addToLabels("alpha.sharding.timebertt.dev/controllerring", "other").endMetadata());
        reconciler.reconcile(new LeaseKey(namespace, "shard-a"));
        reconciler.reconcile(new LeaseKey(namespace, "shard-b"));

        assertThat(reconciler.membership()).isEqualTo(new Membership(Map.of(
                RingKey.controllerRing(RING), List.of(new ShardInfo("shard-a", ShardState.READY, 1)),
                KEY, List.of(new ShardInfo("shard-b", ShardState.READY, 1)),
                RingKey.controllerRing("other"), List.of(new ShardInfo("shard-b", ShardState.READY, 1)))));
    }

    @Test
    void membershipGroupsShardsByRingSortedByName() {
        for (String name : List.of("shard-b", "shard-a")) {
            create(client, shardLease(namespace, name, RING, T0, DURATION));
        }
        create(client, shardLease(namespace, "shard-c", "other", T0, DURATION)
                .editMetadata().addToAnnotations(RingContract.WEIGHT_ANNOTATION, "3").endMetadata());
        // the same shard name in a second namespace is a misconfiguration: the first namespace wins
        String later = namespace + "-later";
        create(client, shardLease(later, "shard-a", RING, T0, DURATION)
                .editMetadata().addToAnnotations(RingContract.WEIGHT_ANNOTATION, "9").endMetadata());
        for (LeaseKey lease : List.of(new LeaseKey(later, "shard-a"), new LeaseKey(namespace, "shard-b"),
                new LeaseKey(namespace, "shard-a"), new LeaseKey(namespace, "shard-c"))) {
            reconciler.reconcile(lease);
        }

        assertThat(reconciler.membership()).isEqualTo(new Membership(Map.of(
                KEY, List.of(new ShardInfo("shard-a", ShardState.READY, 1), new ShardInfo("shard-b", ShardState.READY, 1)),
                RingKey.clusterRing("other"), List.of(new ShardInfo("shard-c", ShardState.READY, 3)))));
    }

    @Test
    void anInvalidWeightCountsAsOneAndIsReportedOncePerValue() {
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION)
                .editMetadata().addToAnnotations(RingContract.WEIGHT_ANNOTATION, "heavy").endMetadata());

        reconciler.reconcile(key);
        reconciler.reconcile(key);
        assertThat(weight()).isEqualTo(1);
        assertThat(warnings()).singleElement().satisfies(event -> {
            assertThat(event.getType()).isEqualTo("Warning");
            assertThat(event.getReason()).isEqualTo("InvalidWeight");
            assertThat(event.getNote()).contains("ringmaster.dev/weight=\"heavy\"").contains("weight 1");
            assertThat(event.getRegarding().getKind()).isEqualTo("Lease");
            assertThat(event.getRegarding().getApiVersion()).isEqualTo("coordination.k8s.io/v1");
            assertThat(event.getRegarding().getName()).isEqualTo(SHARD);
            assertThat(event.getRegarding().getNamespace()).isEqualTo(namespace);
            assertThat(event.getReportingController()).isEqualTo(ShardLeaseReconciler.REPORTING_CONTROLLER);
            assertThat(event.getReportingInstance()).isNotBlank();
            assertThat(event.getAction()).isNotBlank();
            assertThat(event.getEventTime().getTime()).isEqualTo("2026-01-01T00:00:00.000000Z");
        });

        annotateWeight("0");
        reconciler.reconcile(key);
        reconciler.reconcile(key);
        assertThat(warnings()).hasSize(2);

        annotateWeight("5");
        reconciler.reconcile(key);
        assertThat(weight()).isEqualTo(5);

        annotateWeight("0");
        reconciler.reconcile(key);
        assertThat(weight()).isEqualTo(1);
        assertThat(warnings()).hasSize(3);
    }

    @Test
    void aValidOrMissingWeightIsTakenWithoutWarning() {
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION)
                .editMetadata().addToAnnotations(RingContract.WEIGHT_ANNOTATION, "1000").endMetadata());
        create(client, shardLease(namespace, "shard-1", RING, T0, DURATION));
        reconciler.reconcile(key);
        reconciler.reconcile(new LeaseKey(namespace, "shard-1"));

        assertThat(reconciler.membership().shards(KEY)).extracting(ShardInfo::weight).containsExactly(1000, 1);
        assertThat(warnings()).isEmpty();
    }

    @Test
    void theDetectorInForceIsAskedOnEveryPass() {
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION));
        passAt(T0, ShardState.READY, Duration.ofSeconds(10));

        // dead to the detector while it still renews its Lease: looked at again when the renewal runs out
        // (T0 + DURATION), not at the detector's 30 s, and its objects only drained (renewing)
        detector.set((lease, now) -> new ShardStatus(ShardState.DEAD, now.plusSeconds(30)));
        passAt(T0, ShardState.DEAD, Duration.ofSeconds(DURATION));
        assertThat(reconciler.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.DEAD, 1, false, true));

        // no detector bound: nothing is decided and nothing written
        detector.set(null);
        String resourceVersion = get(client, namespace, SHARD).getMetadata().getResourceVersion();
        assertThat(reconciler.reconcile(key)).isEqualTo(Result.done());
        assertThat(get(client, namespace, SHARD).getMetadata().getResourceVersion()).isEqualTo(resourceVersion);
        assertThat(reconciler.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.DEAD, 1, false, true));
    }

    /**
     * A shard stopped to restart (Lease still its own, marked restarting at T0 + 2 s): expired for the ring's
     * grace whatever the detector says, not acquired within it, and acquired (the mark removed) once it ran out.
     */
    @Test
    void aRestartingShardKeepsItsObjectsForTheGraceAndIsAcquiredAfterIt() {
        reconciler = withGraces(Map.of(KEY, Duration.ofSeconds(30)), () -> true);
        leaseMarkedRestarting("2026-01-01T00:00:02Z");

        // the detector says ready, then expired, then uncertain: the hold says expired until T0 + 32 s
        passAt(T0.plusSeconds(1), ShardState.EXPIRED, Duration.ofSeconds(31));
        assertThat(reconciler.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.EXPIRED, 1, true));
        passAt(T0.plusSeconds(25), ShardState.EXPIRED, Duration.ofSeconds(7));
        passAt(T0.plusSeconds(31), ShardState.EXPIRED, Duration.ofSeconds(1));
        assertThat(get(client, namespace, SHARD).getSpec().getHolderIdentity()).isEqualTo(SHARD);

        // the grace ran out without the shard back: uncertain by its renewals, so acquired, and dead
        clock.set(T0.plusSeconds(32));
        reconciler.reconcile(key);
        Lease acquired = get(client, namespace, SHARD);
        assertThat(acquired.getSpec().getHolderIdentity()).isEqualTo(RingContract.LEASE_CONTROLLER_HOLDER);
        assertThat(stateLabel(acquired)).isEqualTo("dead");
        assertThat(acquired.getMetadata().getAnnotations()).doesNotContainKey(RingContract.RESTARTING_ANNOTATION);
        assertThat(reconciler.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.DEAD, 1));
    }

    /** Its replacement takes the Lease and removes the mark: ready, and held no more. */
    @Test
    void aShardBackFromItsRestartIsReady() {
        reconciler = withGraces(Map.of(KEY, Duration.ofSeconds(30)), () -> true);
        leaseMarkedRestarting("2026-01-01T00:00:02Z");
        passAt(T0.plusSeconds(2), ShardState.EXPIRED, Duration.ofSeconds(30));

        client.leases().inNamespace(namespace).withName(SHARD).edit(lease -> new LeaseBuilder(lease)
                .editMetadata().removeFromAnnotations(RingContract.RESTARTING_ANNOTATION).endMetadata()
                .editSpec().withRenewTime(TestLeases.utc(T0.plusSeconds(20))).endSpec().build());
        passAt(T0.plusSeconds(20), ShardState.READY, Duration.ofSeconds(10));
        assertThat(reconciler.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.READY, 1));
    }

    /** A follower sees the same hold and writes nothing. */
    @Test
    void aFollowerHoldsARestartingShardToo() {
        ShardLeaseReconciler follower = withGraces(Map.of(KEY, Duration.ofSeconds(30)), () -> false);
        leaseMarkedRestarting("2026-01-01T00:00:02Z");
        String created = get(client, namespace, SHARD).getMetadata().getResourceVersion();

        clock.set(T0.plusSeconds(25));
        assertThat(follower.reconcile(key)).isEqualTo(Result.requeueAfter(Duration.ofSeconds(7)));
        assertThat(follower.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.EXPIRED, 1, true));
        clock.set(T0.plusSeconds(32));
        follower.reconcile(key);
        assertThat(follower.membership().shards(KEY)).containsExactly(new ShardInfo(SHARD, ShardState.UNCERTAIN, 1));
        assertThat(get(client, namespace, SHARD).getMetadata().getResourceVersion()).isEqualTo(created);
    }

    /** The hold overrides any detector, e.g. the pod-readiness one, which finds the restarting shard's pod gone. */
    @Test
    void theHoldOverridesTheDetectorInForce() {
        reconciler = withGraces(Map.of(KEY, Duration.ofSeconds(30)), () -> true);
        detector.set((lease, now) -> new ShardStatus(ShardState.DEAD, now.plusSeconds(60)));
        leaseMarkedRestarting("2026-01-01T00:00:02Z");
        passAt(T0.plusSeconds(2), ShardState.EXPIRED, Duration.ofSeconds(30));
        passAt(T0.plusSeconds(32), ShardState.DEAD, Duration.ofSeconds(60));
    }

    /** A grace of 0 is today's behaviour; a Lease of several rings has the largest grace, of no known ring the default. */
    @Test
    void theGraceIsTheLargestOfTheLeasesKnownRings() {
        leaseMarkedRestarting("2026-01-01T00:00:02Z");
        reconciler = withGraces(Map.of(KEY, Duration.ZERO), () -> false);
        clock.set(T0.plusSeconds(25));
        reconciler.reconcile(key);
        assertThat(reconciler.membership().shards(KEY)).extracting(ShardInfo::state).containsExactly(ShardState.UNCERTAIN);

        // no ring known: 60 s
        reconciler = withGraces(Map.of(), () -> false);
        clock.set(T0.plusSeconds(61));
        assertThat(reconciler.reconcile(key)).isEqualTo(Result.requeueAfter(Duration.ofSeconds(1)));
        assertThat(reconciler.membership().shards(KEY)).extracting(ShardInfo::state).containsExactly(ShardState.EXPIRED);

        // a ControllerRing of the same Lease with 100 s: the larger counts
        client.leases().inNamespace(namespace).withName(SHARD).edit(lease -> new LeaseBuilder(lease)
                .editMetadata().addToLabels("alpha.sharding.timebertt.dev/controllerring", RING).endMetadata().build());
        reconciler = withGraces(Map.of(KEY, Duration.ZERO, RingKey.controllerRing(RING), Duration.ofSeconds(100)),
                () -> false);
        clock.set(T0.plusSeconds(25));
        assertThat(reconciler.reconcile(key)).isEqualTo(Result.requeueAfter(Duration.ofSeconds(77)));
        assertThat(reconciler.membership().shards(RingKey.controllerRing(RING))).extracting(ShardInfo::state)
                .containsExactly(ShardState.EXPIRED);
    }

    @Test
    void anUnparseableRestartingTimeIsIgnoredAndReportedOncePerValue() {
        reconciler = withGraces(Map.of(KEY, Duration.ofSeconds(30)), () -> true);
        leaseMarkedRestarting("soon");
        passAt(T0.plusSeconds(1), ShardState.READY, Duration.ofSeconds(9));
        passAt(T0.plusSeconds(2), ShardState.READY, Duration.ofSeconds(8));
        assertThat(warnings("InvalidRestarting")).singleElement().satisfies(event -> {
            assertThat(event.getType()).isEqualTo("Warning");
            assertThat(event.getNote()).contains("ringmaster.dev/restarting=\"soon\"").contains("RFC 3339");
            assertThat(event.getRegarding().getName()).isEqualTo(SHARD);
        });

        client.leases().inNamespace(namespace).withName(SHARD).edit(lease -> {
            lease.getMetadata().getAnnotations().put(RingContract.RESTARTING_ANNOTATION, "later");
            return lease;
        });
        passAt(T0.plusSeconds(3), ShardState.READY, Duration.ofSeconds(7));
        passAt(T0.plusSeconds(4), ShardState.READY, Duration.ofSeconds(6));
        assertThat(warnings("InvalidRestarting")).hasSize(2);
    }

    private ShardLeaseReconciler withGraces(Map<RingKey, Duration> graces, BooleanSupplier writing) {
        return new ShardLeaseReconciler(client, k -> get(client, k.namespace(), k.name()), detector::get, clock, writing,
                ring -> Optional.ofNullable(graces.get(ring)));
    }

    /** Runs a pass at {@code at} and checks the verdict, the label and the requeue delay. */
    private void passAt(Instant at, ShardState state, Duration requeue) {
        clock.set(at);
        assertThat(reconciler.reconcile(key)).as("pass at %s", at).isEqualTo(Result.requeueAfter(requeue));
        assertThat(stateLabel(get(client, namespace, SHARD))).isEqualTo(state.label());
        assertThat(reconciler.membership().shards(KEY)).extracting(ShardInfo::state).containsExactly(state);
    }

    private int weight() {
        return reconciler.membership().shards(KEY).get(0).weight();
    }

    private void annotateWeight(String value) {
        client.leases().inNamespace(namespace).withName(SHARD).edit(lease -> {
            lease.getMetadata().getAnnotations().put(RingContract.WEIGHT_ANNOTATION, value);
            return lease;
        });
    }

    private List<Event> warnings() {
        return warnings("InvalidWeight");
    }

    private List<Event> warnings(String reason) {
        return client.events().v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(event -> reason.equals(event.getReason()))
                .toList();
    }

    /** The requests with this method the server received so far (drains the server's record). */
    private List<RecordedRequest> requests(String method) {
        List<RecordedRequest> matching = new ArrayList<>();
        try {
            for (RecordedRequest request = server.takeRequest(10, TimeUnit.MILLISECONDS); request != null;
                    request = server.takeRequest(10, TimeUnit.MILLISECONDS)) {
                if (request.getMethod().equals(method)) {
                    matching.add(request);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return matching;
    }

    /** The shard's Lease, renewed at T0 and still its own, marked restarting {@code at}. */
    private void leaseMarkedRestarting(String at) {
        create(client, shardLease(namespace, SHARD, RING, T0, DURATION)
                .editMetadata().addToAnnotations(RingContract.RESTARTING_ANNOTATION, at).endMetadata());
    }
}
