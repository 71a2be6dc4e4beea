package dev.ringmaster.sharder.leader;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The elector's lock, noting until when each successful acquisition or renewal by this replica holds
 * the lease: the moment the request was sent plus the record's lease duration. Started before the
 * request, so the estimate errs early, never late.
 */
final class RenewalClock implements Lock {

    private final Lock lock;
    private final Clock clock;
    private final AtomicReference<Instant> heldUntil = new AtomicReference<>();

    RenewalClock(Lock lock, Clock clock) {
        this.lock = lock;
        this.clock = clock;
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
        lock.update(client, record);
        held(record, sent);
    }

    private void held(LeaderElectionRecord record, Instant sent) {
        heldUntil.set(identity().equals(record.getHolderIdentity()) ? sent.plus(record.getLeaseDuration()) : null);
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
