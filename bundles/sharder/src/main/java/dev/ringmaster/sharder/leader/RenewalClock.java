package dev.ringmaster.sharder.leader;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The elector's lock, noting until when each successful acquisition or renewal by this replica holds
 * the lease: the moment the request was sent plus the record's lease duration. Started before the
 * request, so the estimate errs early, never late.
 *
 * <p>It also enforces the renew deadline on a renewal that takes too long: fabric8's elector checks
 * its deadline only between attempts, so an attempt whose requests hang through an API server outage
 * and succeed once it is back renewed the term as if nothing happened (and the new term's grace for
 * shard Leases never applied: {@code ApiServerOutageRealIT} saw the sharder take every shard's Lease).
 * A renewal that completes later than the renew deadline after the previous one is therefore refused
 * (a {@link KubernetesClientException}, which the elector counts as a failed attempt): the elector
 * then stops leading, and the replica begins a new term.
 */
final class RenewalClock implements Lock {

    private final Lock lock;
    private final Clock clock;
    private final Duration renewDeadline;
    private final AtomicReference<Instant> heldUntil = new AtomicReference<>();
    /** When the last successful write of this term that held the lease was sent; null outside a term. */
    private final AtomicReference<Instant> renewed = new AtomicReference<>();

    RenewalClock(Lock lock, Clock clock, Duration renewDeadline) {
        this.lock = lock;
        this.clock = clock;
        this.renewDeadline = renewDeadline;
    }

    /** The term ended: the next write that holds the lease starts a new one and is not a renewal. */
    void termEnded() {
        renewed.set(null);
    }

    /** Until when the last successful write of the lease holds it, if this replica ever held it. */
    Optional<Instant> heldUntil() {
        return Optional.ofNullable(heldUntil.get());
    }

    Instant now() {
        return clock.instant();
    }

    @Override
    public LeaderElectionRecord get(KubernetesClient client) {
        return lock.get(client);
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
        Instant sent = clock.instant();
        lock.create(client, record);
        held(record, sent);
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
        Instant sent = clock.instant();
        Instant previous = renewed.get();
        lock.update(client, record);
        Instant done = clock.instant();
        if (previous != null && identity().equals(record.getHolderIdentity())
                && done.isAfter(previous.plus(renewDeadline))) {
            renewed.set(null);
            heldUntil.set(null);
            throw new KubernetesClientException("renewal of " + describe() + " completed at " + done
                    + ", later than the renew deadline (" + renewDeadline + ") after the renewal sent at " + previous
                    + ": not counted, so that leadership ends and a new term begins");
        }
        held(record, sent);
    }

    private void held(LeaderElectionRecord record, Instant sent) {
        boolean ours = identity().equals(record.getHolderIdentity());
        heldUntil.set(ours ? sent.plus(record.getLeaseDuration()) : null);
        renewed.set(ours ? sent : null);
    }

    @Override
    public String identity() {
        return lock.identity();
    }

    @Override
    public String describe() {
        return lock.describe();
    }
}
