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
    }, clock);

    @Test
    void aSuccessfulRenewalHoldsTheLeaseForItsDurationFromWhenItWasSent() {
        assertThat(lock.heldUntil()).isEmpty();
        lock.create(null, record("replica-a"));
        assertThat(lock.heldUntil()).contains(T0.plusSeconds(15));

        lock.update(null, record("replica-a"));
        assertThat(lock.heldUntil()).contains(T0.plusSeconds(3 + 15));
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

    private static LeaderElectionRecord record(String holder) {
        ZonedDateTime now = ZonedDateTime.now();
        return new LeaderElectionRecord(holder, Duration.ofSeconds(15), now, now, 0);
    }
}
