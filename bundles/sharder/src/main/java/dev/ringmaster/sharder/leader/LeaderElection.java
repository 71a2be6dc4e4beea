package dev.ringmaster.sharder.leader;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Elects one leader among sharder replicas through a Lease; the controllers run only while this
 * replica leads. Losing the lease stops them at once, and the replica campaigns again as a standby
 * (fabric8's elector ends with the leadership it lost); closing releases the lease so a standby
 * takes over without waiting for it to expire.
 *
 * <p>{@link #mayWrite()} fences the leader's writes by its own clock: a successful renewal started
 * at {@code t} keeps the lease until {@code t + leaseDuration} at the latest, so after that moment a
 * standby may lead, and this replica must not write even if it has not noticed yet (a paused JVM, a
 * stalled renewal thread, a long rebalance pass).
 */
public final class LeaderElection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

    /** Lease timing; the defaults are client-go's and the reference sharder's: 15 s / 10 s / 2 s. */
    public record Timing(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
        public static final Timing DEFAULT = new Timing(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));

        public Timing {
            if (!(leaseDuration.compareTo(renewDeadline) > 0 && renewDeadline.compareTo(retryPeriod) > 0)) {
                throw new IllegalArgumentException("lease duration > renew deadline > retry period is required");
            }
        }
    }

    /** Short: with the controllers' grace, shutting down stays well within 10 s (docs/operating.md). */
    private static final Duration CANCEL_TIMEOUT = Duration.ofSeconds(3);

    private final KubernetesClient client;
    private final RenewalClock lock;
    private final Timing timing;
    private final Runnable startLeading;
    private final Runnable stopLeading;
    private final AtomicBoolean leading = new AtomicBoolean();
    private CompletableFuture<?> election;
    private boolean closed;

    /**
     * @param clock        tells how long a renewal holds the lease (see {@link #mayWrite()})
     * @param startLeading called when this replica becomes leader
     * @param stopLeading  called when it stops leading, by losing the lease or by {@link #close()}
     */
    public LeaderElection(KubernetesClient client, String namespace, String leaseName, String identity,
            Timing timing, Clock clock, Runnable startLeading, Runnable stopLeading) {
        this.client = client;
        this.lock = new RenewalClock(new LeaseLock(namespace, leaseName, identity), clock, timing.renewDeadline());
        this.timing = timing;
        this.startLeading = startLeading;
        this.stopLeading = stopLeading;
    }

    public synchronized void start() {
        if (closed) {
            return;
        }
        CompletableFuture<?> campaign = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName("ringmaster-sharder")
                .withLock(lock)
                .withLeaseDuration(timing.leaseDuration())
                .withRenewDeadline(timing.renewDeadline())
                .withRetryPeriod(timing.retryPeriod())
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(this::started, this::stopped,
                        leader -> LOG.info("sharder leader is now {}", leader)))
                .build()).build().start();
        election = campaign;
        // the campaign ends when leadership is lost (or the API server failed it): campaign again after
        // a retry period, off this callback's thread, unless close() ended it
        campaign.whenComplete((ignored, failure) -> CompletableFuture.runAsync(() -> campaignAgain(campaign),
                CompletableFuture.delayedExecutor(timing.retryPeriod().toMillis(), TimeUnit.MILLISECONDS)));
    }

    private synchronized void campaignAgain(CompletableFuture<?> ended) {
        if (!closed && election == ended) {
            LOG.info("{} campaigns again for the sharder's leader election", lock.identity());
            start();
        }
    }

    public boolean isLeader() {
        return leading.get();
    }

    /** Whether this replica leads and its lease is certainly still its own by its clock: a write is safe. */
    public boolean mayWrite() {
        return leading.get() && lock.heldUntil().map(until -> lock.now().isBefore(until)).orElse(false);
    }

    private void started() {
        leading.set(true);
        LOG.info("{} leads the sharder", lock.identity());
        startLeading.run();
    }

    private void stopped() {
        lock.termEnded();
        if (leading.getAndSet(false)) {
            LOG.info("{} stopped leading the sharder", lock.identity());
            stopLeading.run();
        }
    }

    /**
     * Stops campaigning; a leader stops its controllers, then releases the lease, so its successor
     * never writes at the same time.
     */
    @Override
    public synchronized void close() {
        closed = true;
        stopped();
        if (election != null) {
            CompletableFuture<?> cancelled = election;
            election = null;
            // fabric8 cancels (and releases) under the elector's lock, which a lease request in flight
            // holds; against an unreachable API server that request retries for a long time. The
            // controllers have stopped already, so wait a bounded time; the lease then simply expires.
            CompletableFuture<Void> cancelling = CompletableFuture.runAsync(() -> cancelled.cancel(true));
            try {
                cancelling.get(CANCEL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                LOG.warn("leader election lease not released within {} s (API server unreachable?); it expires"
                        + " on its own", CANCEL_TIMEOUT.toSeconds());
            } catch (ExecutionException e) {
                LOG.warn("releasing the leader election lease failed: {}", e.getCause().toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
