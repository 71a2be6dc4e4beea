package dev.ringmaster.sharder.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.testing.MutableClock;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

class RenewalClockTest {

    private static final Instant T0 = Instant.parse("2026-11-25T10:00:00Z");

    private final MutableClock clock = new MutableClock(T0);
    private boolean failWrites;
    private final RenewalClock lock = new RenewalClock(new Lock() {
        @Override
        public LeaderElectionRecord get(KubernetesClient client) {
            return null;
        }

        @Override
        public void create(KubernetesClient client, LeaderElectionRecord record) {
            write();
        }

        @Override
        public void update(KubernetesClient client, LeaderElectionRecord record) {
            write();
        }

        private void write() {
            // the request takes 3 s: the lease is held from when it was sent, not from when it returned
            clock.advance(Duration.ofSeconds(3));
            if (failWrites) {
                throw new KubernetesClientException("conflict");
            }
        }

        @Override
        public String identity() {
            return "replica-a";
        }

        @Override
        public String describe() {
            return "sharding-system/sharder";
        }
    }, clock, Duration.ofSeconds(10));

    @Test
    void aSuccessfulRenewalHoldsTheLeaseForItsDurationFromWhenItWasSent() {
        assertThat(lock.heldUntil()).isEmpty();
        lock.create(null, record("replica-a"));
        assertThat(lock.heldUntil()).contains(T0.plusSeconds(15));

        updateHoldsUntil(T0.plusSeconds(3 + 15));
    }

    @Test
    void aFailedRenewalHoldsNothingNewAndReleasingHoldsNothing() {
        lock.create(null, record("replica-a"));
        failWrites = true;
        assertThatThrownBy(() -> lock.update(null, record("replica-a"))).isInstanceOf(KubernetesClientException.class);
        assertThat(lock.heldUntil()).contains(T0.plusSeconds(15));

        failWrites = false;
        lock.update(null, record(""));
        assertThat(lock.heldUntil()).isEmpty();
    }

    @Test
    void aRenewalCompletingAfterTheRenewDeadlineIsRefusedAndTheNextTermStartsAfresh() {
        lock.create(null, record("replica-a")); // sent at T0, done at T0 + 3 s
        // the next attempt's requests hang through an outage of 20 s and succeed once it is over
        clock.advance(Duration.ofSeconds(20));
        assertThatThrownBy(() -> lock.update(null, record("replica-a")))
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("renew deadline");
        assertThat(lock.heldUntil()).isEmpty();

        // the elector stopped leading; acquiring again begins a new term, which is not refused
        Instant sent = clock.instant();
        updateHoldsUntil(sent.plusSeconds(15));
        // and renewals in time go on being counted
        updateHoldsUntil(sent.plusSeconds(3 + 15));
    }

    @Test
    void anAcquisitionAfterTheTermEndedIsNotARenewal() {
        lock.create(null, record("replica-a"));
        lock.termEnded();
        clock.advance(Duration.ofMinutes(5));
        Instant sent = clock.instant();
        updateHoldsUntil(sent.plusSeconds(15));
    }

    /** This replica writes the Lease again, a renewal or an acquisition: afterwards it holds it until {@code until}. */
    private void updateHoldsUntil(Instant until) {
        lock.update(null, record("replica-a"));
        assertThat(lock.heldUntil()).contains(until);
    }

    private static LeaderElectionRecord record(String holder) {
        ZonedDateTime now = ZonedDateTime.now();
        return new LeaderElectionRecord(holder, Duration.ofSeconds(15), now, now, 0);
    }
}
