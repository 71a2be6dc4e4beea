package dev.ringmaster.shard.client;

import static dev.ringmaster.ring.testing.PinnedContract.ASSIGNED;
import static dev.ringmaster.ring.testing.PinnedContract.RANGE_KEY;
import static dev.ringmaster.ring.testing.PinnedContract.SERVED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The shard's range handover, on a Lease held in memory (optimistic: an update with an old
 * resourceVersion is a 409), a direct executor and a scheduler whose delayed steps the test runs.
 * Annotation values are written out here.
 */
class ShardRangesTest {

    private static final String ALL = "0x0000000000000000-0x10000000000000000";
    private static final String LOWER = "0x0000000000000000-0x8000000000000000";
    private static final String QUARTER = "0x0000000000000000-0x4000000000000000";

    private final FakeLease lease = new FakeLease();
    private final Target target = new Target();
    private final List<Runnable> delayed = new ArrayList<>();
    private final ShardRanges ranges = new ShardRanges("shard-0", lease, l -> "shard-0".equals(l.getSpec().getHolderIdentity()),
            Runnable::run, (task, delay) -> delayed.add(task), Duration.ofMillis(200));

    ShardRangesTest() {
        ranges.register(target);
    }

    @Test
    void growthIsClaimedInServedBeforeItIsServed() {
        lease.edit(Map.of(ASSIGNED, LOWER, RANGE_KEY, "uid"));
        ranges.observe(lease.stored);

        assertThat(target.served).containsExactly(LOWER + " uid");
        assertThat(target.servedAnnotationAtServe).containsExactly(LOWER);
        assertThat(lease.annotation(SERVED)).isEqualTo(LOWER);
        assertThat(lease.updates).isEqualTo(1);

        lease.edit(Map.of(ASSIGNED, ALL));
        ranges.observe(lease.stored);
        assertThat(target.served).containsExactly(LOWER + " uid", ALL + " uid");
        assertThat(target.servedAnnotationAtServe).containsExactly(LOWER, ALL);
        assertThat(lease.annotation(SERVED)).isEqualTo(ALL);
        assertThat(delayed).isEmpty();
    }

    /** The sharder takes back a range between the shard's read and its claim: the claim fails, nothing of it is served. */
    @Test
    void aClaimThatConflictsServesNothingOfWhatWasTakenBack() {
        lease.edit(Map.of(ASSIGNED, LOWER, RANGE_KEY, "uid"));
        Lease seen = lease.stored;
        lease.edit(Map.of(ASSIGNED, QUARTER));
        ranges.observe(seen);

        assertThat(lease.conflicts).isEqualTo(1);
        assertThat(target.served).containsExactly(QUARTER + " uid");
        assertThat(lease.history).containsExactly(QUARTER);
    }

    @Test
    void aShrinkSwapsAtOnceButIsAcknowledgedOnlyWhenTheReconcilesOutsideEnded() {
        lease.edit(Map.of(ASSIGNED, ALL));
        ranges.observe(lease.stored);
        assertThat(lease.annotation(SERVED)).isEqualTo(ALL);

        target.busy = true;
        lease.edit(Map.of(ASSIGNED, LOWER));
        ranges.observe(lease.stored);
        assertThat(target.served).last().isEqualTo(LOWER + " uid");
        assertThat(target.busyAskedFor).last().isEqualTo(LOWER);
        assertThat(lease.annotation(SERVED)).isEqualTo(ALL);
        assertThat(delayed).hasSize(1);

        // still busy at the recheck: waits again, once
        runDelayed();
        ranges.observe(lease.stored); // a renewal meanwhile schedules no second recheck
        assertThat(lease.annotation(SERVED)).isEqualTo(ALL);
        assertThat(delayed).hasSize(1);

        target.busy = false;
        runDelayed();
        assertThat(lease.annotation(SERVED)).isEqualTo(LOWER);
        assertThat(target.served).containsExactly(ALL + " uid", LOWER + " uid");
    }

    @Test
    void aConflictReadsAgainAndDecidesOnTheNewAssignment() {
        lease.edit(Map.of(ASSIGNED, ALL, SERVED, ALL));
        Lease seen = lease.stored;
        ranges.observe(seen);
        assertThat(lease.updates).isZero();

        // the sharder shrinks to LOWER, the shard sees it, and before its write the sharder shrinks further
        lease.edit(Map.of(ASSIGNED, LOWER));
        Lease lower = lease.stored;
        lease.edit(Map.of(ASSIGNED, QUARTER));
        ranges.observe(lower);

        assertThat(lease.conflicts).isEqualTo(1);
        assertThat(target.served).containsExactly(ALL + " uid", LOWER + " uid", QUARTER + " uid");
        assertThat(lease.annotation(SERVED)).isEqualTo(QUARTER);
        assertThat(lease.annotation(ASSIGNED)).isEqualTo(QUARTER);
    }

    @Test
    void fencedItServesNothing() {
        lease.edit(Map.of(ASSIGNED, LOWER));
        ranges.observe(lease.stored);
        ranges.onLost();
        assertThat(target.served).containsExactly(LOWER + " uid", " uid");
        assertThat(ranges.serving()).isEqualTo(RangeSet.EMPTY);

        // held again: the next renewal serves the assignment again
        ranges.onAcquired();
        ranges.observe(lease.stored);
        assertThat(target.served).last().isEqualTo(LOWER + " uid");
    }

    @Test
    void aLeaseHeldByAnotherServesNothing() {
        lease.edit(Map.of(ASSIGNED, LOWER));
        ranges.observe(lease.stored);
        lease.stored = new LeaseBuilder(lease.stored).editSpec().withHolderIdentity("someone").endSpec().build();
        ranges.observe(lease.stored);
        assertThat(target.served).containsExactly(LOWER + " uid", " uid");
    }

    @Test
    void aKeyChangeHandsEverythingOverFirst() {
        lease.edit(Map.of(ASSIGNED, ALL, RANGE_KEY, "uid"));
        ranges.observe(lease.stored);
        int updates = lease.updates;

        target.busy = true;
        lease.edit(Map.of(ASSIGNED, ALL, RANGE_KEY, "namespace"));
        ranges.observe(lease.stored);
        assertThat(target.served).containsExactly(ALL + " uid", " uid");
        assertThat(lease.annotation(SERVED)).isEqualTo(ALL);

        target.busy = false;
        runDelayed();
        assertThat(target.served).containsExactly(ALL + " uid", " uid", ALL + " namespace");
        assertThat(lease.annotation(SERVED)).isEqualTo(ALL);
        assertThat(lease.updates).isEqualTo(updates + 2); // served "" first, then ALL of namespace
        assertThat(lease.history).containsSubsequence("", ALL);
    }

    @Test
    void anUnreadableAssignmentServesNothing() {
        lease.edit(Map.of(ASSIGNED, LOWER));
        ranges.observe(lease.stored);
        lease.edit(Map.of(ASSIGNED, "not a range"));
        ranges.observe(lease.stored);
        assertThat(target.served).last().isEqualTo(" uid");
        assertThat(lease.annotation(SERVED)).isEmpty();
    }

    /** The sharder grows the assignment between two renewals: the watch's version is acted on at once. */
    @Test
    void anAssignmentTheWatchDeliversIsServedWithoutWaitingForARenewal() {
        lease.edit(Map.of(ASSIGNED, LOWER, RANGE_KEY, "uid"));
        ranges.observe(lease.stored);
        lease.edit(Map.of(ASSIGNED, ALL));
        ranges.watched(lease.stored);

        assertThat(target.served).containsExactly(LOWER + " uid", ALL + " uid");
        assertThat(target.servedAnnotationAtServe).containsExactly(LOWER, ALL);
        assertThat(lease.annotation(SERVED)).isEqualTo(ALL);
    }

    /** A late event of the version that assigned more: older than what the shard knows, so not acted on. */
    @Test
    void anOlderVersionFromTheWatchIsIgnored() {
        lease.edit(Map.of(ASSIGNED, ALL, RANGE_KEY, "uid"));
        Lease assignedAll = lease.stored;
        ranges.observe(assignedAll);
        lease.edit(Map.of(ASSIGNED, LOWER));
        ranges.observe(lease.stored);
        int updates = lease.updates;

        ranges.watched(assignedAll);
        assertThat(target.served).containsExactly(ALL + " uid", LOWER + " uid");
        assertThat(lease.annotation(SERVED)).isEqualTo(LOWER);
        assertThat(lease.updates).isEqualTo(updates);
        assertThat(lease.conflicts).isZero();
    }

    /** A renewal changes nothing the shard decides on: a shrink waiting for its reconciles is not looked at again. */
    @Test
    void aRenewalTheWatchDeliversIsLeftToTheRenewalLoop() {
        lease.edit(Map.of(ASSIGNED, ALL, RANGE_KEY, "uid"));
        ranges.observe(lease.stored);
        target.busy = true;
        lease.edit(Map.of(ASSIGNED, LOWER));
        ranges.observe(lease.stored);
        int asked = target.busyAskedFor.size();

        lease.renew();
        ranges.watched(lease.stored);
        assertThat(target.busyAskedFor).hasSize(asked);
        assertThat(delayed).hasSize(1);
    }

    @Test
    void theWatchChangesNothingWhileTheLeaseIsNotHeld() {
        lease.edit(Map.of(ASSIGNED, LOWER, RANGE_KEY, "uid"));
        ranges.observe(lease.stored);
        ranges.onLost();
        lease.edit(Map.of(ASSIGNED, ALL));
        ranges.watched(lease.stored);

        assertThat(ranges.serving()).isEqualTo(RangeSet.EMPTY);
        assertThat(target.served).containsExactly(LOWER + " uid", " uid");
    }

    /** The sharder took the Lease (the shard was judged dead): the watch's version stops the serving before any renewal. */
    @Test
    void aLeaseTakenOverStopsTheServingWhenTheWatchDeliversIt() {
        lease.edit(Map.of(ASSIGNED, LOWER, RANGE_KEY, "uid"));
        ranges.observe(lease.stored);
        lease.stored = FakeLease.bump(new LeaseBuilder(lease.stored).editSpec().withHolderIdentity("shardlease-controller")
                .endSpec().build());
        ranges.watched(lease.stored);

        assertThat(target.served).containsExactly(LOWER + " uid", " uid");
    }

    private void runDelayed() {
        List<Runnable> due = new ArrayList<>(delayed);
        delayed.clear();
        due.forEach(Runnable::run);
    }

    private final class Target implements RangeTarget {
        final List<String> served = new ArrayList<>();
        final List<String> busyAskedFor = new ArrayList<>();
        /** The Lease's served-ranges each time the target is given ranges to serve. */
        final List<String> servedAnnotationAtServe = new ArrayList<>();
        boolean busy;

        @Override
        public void serve(RangeSet ranges, RangeKey key) {
            served.add(ranges + " " + key.specName());
            if (!ranges.isEmpty()) {
                servedAnnotationAtServe.add(lease.annotation(SERVED));
            }
        }

        @Override
        public boolean busyOutside(RangeSet ranges, RangeKey key) {
            busyAskedFor.add(ranges.toString());
            return busy;
        }
    }

    private static final class FakeLease implements ShardRanges.LeaseAccess {
        Lease stored = new LeaseBuilder().withNewMetadata().withName("shard-0").withNamespace("ns").withResourceVersion("1")
                .endMetadata().withNewSpec().withHolderIdentity("shard-0").endSpec().build();
        int updates;
        int conflicts;
        final List<String> history = new ArrayList<>();

        /** Another writer (the sharder) changes annotations. */
        void edit(Map<String, String> annotations) {
            stored = bump(new LeaseBuilder(stored).editMetadata().addToAnnotations(annotations).endMetadata().build());
        }

        String annotation(String key) {
            return stored.getMetadata().getAnnotations().get(key);
        }

        /** The shard renews: a new version with nothing else changed. */
        void renew() {
            stored = bump(new LeaseBuilder(stored).editSpec().withRenewTime(ZonedDateTime.now(ZoneOffset.UTC)).endSpec()
                    .build());
        }

        @Override
        public Lease read() {
            return stored;
        }

        @Override
        public Lease update(Lease lease) {
            if (!lease.getMetadata().getResourceVersion().equals(stored.getMetadata().getResourceVersion())) {
                conflicts++;
                throw new KubernetesClientException("conflict", 409, null);
            }
            updates++;
            stored = bump(lease);
            history.add(annotation(SERVED));
            return stored;
        }

        private static Lease bump(Lease lease) {
            UnaryOperator<String> next = rv -> String.valueOf(Long.parseLong(rv) + 1);
            return new LeaseBuilder(lease).editMetadata().withResourceVersion(next.apply(lease.getMetadata().getResourceVersion()))
                    .endMetadata().build();
        }
    }
}
