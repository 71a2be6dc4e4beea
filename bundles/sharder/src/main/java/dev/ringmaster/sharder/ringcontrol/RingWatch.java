package dev.ringmaster.sharder.ringcontrol;

import dev.ringmaster.kubernetes.client.EventHandlers;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.sharder.model.RingObject;
import dev.ringmaster.sharder.ring.RingRegistry;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every replica's watch of the ring objects of one kind: each change puts the rings of that kind, as
 * now cached, into the ring registry, which compiles their views. The webhook answers from those
 * views on each replica, and the leader's controllers follow the registry's changes. The sharder runs
 * one watch per kind ({@link #ofEveryKind}).
 *
 * <p>A kind whose CRD is not installed (a user who applied only one of the two) is not watched: an
 * informer would fail its listing again and again, each time with a stack trace. The watch says so
 * once, looks again every {@code recheck} (one list request of one object), and starts watching when
 * the CRD appears; it keeps looking while it watches (a watch whose CRD was removed may stay silent),
 * and if the CRD is removed, the kind's rings are dropped and that is said once too. The other kind is
 * served meanwhile, each watch being on its own.
 */
public final class RingWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RingWatch.class);
    /** How often the watch asks the API server whether its kind is served (its CRD installed). */
    public static final Duration CRD_RECHECK = Duration.ofSeconds(10);
    /** How soon a probe that could not tell (API server unreachable) is repeated. */
    static final Duration PROBE_RETRY = Duration.ofSeconds(2);

    /** What this watch knows of its kind, replaced whole (on the watch's own thread only). */
    private record State(SharedIndexInformer<? extends RingObject> informer, boolean reportedMissing,
            boolean reportedUnreachable) {

        static final State INITIAL = new State(null, false, false);

        boolean served() {
            return informer != null;
        }
    }

    private final KubernetesClient client;
    private final RingKind kind;
    private final Class<? extends RingObject> type;
    private final RingRegistry registry;
    private final Duration recheck;
    private final Runnable servedChanged;
    /** Probes, starts and stops the informer: one thread, so state changes never race. */
    private final ScheduledExecutorService worker;
    private volatile State state = State.INITIAL;
    /** The informer whose first complete list is in the registry. */
    private volatile SharedIndexInformer<? extends RingObject> listed;

    /**
     * @param servedChanged told (on the watch's thread) when {@link #served()} changes
     * @param recheck       how often a kind whose CRD is missing is looked for again
     */
    public RingWatch(KubernetesClient client, RingRegistry registry, Class<? extends RingObject> type,
            Duration recheck, Runnable servedChanged) {
        this.client = Objects.requireNonNull(client, "client");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.type = Objects.requireNonNull(type, "type");
        this.recheck = Objects.requireNonNull(recheck, "recheck");
        this.servedChanged = Objects.requireNonNull(servedChanged, "servedChanged");
        this.kind = RingKind.ofKind(HasMetadata.getKind(type));
        this.worker = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ring-watch-" + kind.lowerCaseKind());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** A watch of each ring kind, looking for a missing CRD every {@link #CRD_RECHECK}. */
    public static List<RingWatch> ofEveryKind(KubernetesClient client, RingRegistry registry,
            Runnable servedChanged) {
        return Arrays.stream(RingKind.values()).map(kind -> new RingWatch(client, registry,
                RingObject.typeOf(kind), CRD_RECHECK, servedChanged)).toList();
    }

    public RingKind kind() {
        return kind;
    }

    /** Whether the API server serves this kind (its CRD is installed) and the rings of it are watched. */
    public boolean served() {
        return state.served();
    }

    public void start() {
        run(this::probe, Duration.ZERO);
    }

    /**
     * Why the registry may not hold every ring of this kind yet: not known whether the kind is served, or
     * served and not listed yet. Empty once it does (a kind whose CRD is missing has no rings to hold).
     */
    public Optional<String> notSynced() {
        State current = state;
        if (!current.served() && !current.reportedMissing()) { // no probe could tell yet
            return Optional.of("not known yet whether " + kind.kind() + "s are served");
        }
        SharedIndexInformer<? extends RingObject> informer = current.informer();
        return informer == null || informer == listed ? Optional.empty()
                : Optional.of(kind.kind() + "s not listed yet");
    }

    /**
     * Watches the kind if the API server serves it, and stops watching it if it no longer does (a watch
     * whose CRD was removed may stay silent); says once that it is not served. Looks again every
     * {@code recheck}: one small list request.
     */
    private void probe() {
        State current = state;
        try {
            client.resources(type).list(new ListOptionsBuilder().withLimit(1L).build());
        } catch (KubernetesClientException e) {
            if (!notServed(e)) {
                // cannot tell; a kind already watched rides this out in its informer
                if (!current.served() && !current.reportedUnreachable()) {
                    LOG.warn("Cannot tell whether {}s are served, trying again every {} s: {}", kind.kind(),
                            PROBE_RETRY.toSeconds(), e.toString());
                }
                state = new State(current.informer(), current.reportedMissing(), !current.served());
                run(this::probe, current.served() ? recheck : PROBE_RETRY);
                return;
            }
            if (current.served()) {
                lost(current.informer());
            } else {
                if (!current.reportedMissing()) {
                    LOG.warn("{}s are not served: the CRD {} is not installed; serving the other ring kinds,"
                            + " and looking for it every {} s", kind.kind(), crdName(), recheck.toSeconds());
                }
                state = new State(null, true, false);
            }
            run(this::probe, recheck);
            return;
        }
        if (!current.served()) {
            if (current.reportedMissing()) {
                LOG.info("{}s are served now (the CRD {} is installed): watching them", kind.kind(), crdName());
            }
            SharedIndexInformer<? extends RingObject> informer = informer();
            state = new State(informer, false, false); // before its first event, which publishes only its own
            informer.start().thenRun(() -> {
                publish(informer); // no event at all when there are no rings
                listed = informer;
            });
            servedChanged.run();
        }
        run(this::probe, recheck);
    }

    private SharedIndexInformer<? extends RingObject> informer() {
        SharedIndexInformer<? extends RingObject> informer = client.resources(type).runnableInformer(0);
        informer.exceptionHandler((started, failure) -> {
            if (notServed(failure)) {
                run(() -> lost(informer), Duration.ZERO); // the CRD was removed
                return false;
            }
            // an API server that is briefly away must not leave the replica without rings
            LOG.warn("Watching {}s failed, retrying: {}", kind.kind(), failure.toString());
            return true;
        });
        informer.addEventHandler(EventHandlers.<RingObject>onEveryEvent(ring -> publish(informer)));
        return informer;
    }

    /** The CRD went away while watched: its rings are gone; the next probe looks for it again. */
    private void lost(SharedIndexInformer<? extends RingObject> informer) {
        if (state.informer() != informer) {
            return;
        }
        informer.close();
        LOG.warn("{}s are not served any more: the CRD {} was removed; looking for it every {} s", kind.kind(),
                crdName(), recheck.toSeconds());
        state = new State(null, true, false);
        registry.update(inputs -> inputs.withRings(kind, List.of()));
        servedChanged.run();
    }

    private void publish(SharedIndexInformer<? extends RingObject> informer) {
        if (state.informer() == informer) {
            registry.update(inputs -> inputs.withRings(kind, informer.getStore().list()));
        }
    }

    private void run(Runnable task, Duration delay) {
        try {
            worker.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // closing: nothing more to watch
        }
    }

    /** Whether the failure, or one of its causes, is the API server saying it does not serve the kind. */
    private static boolean notServed(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof KubernetesClientException e && e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                return true;
            }
        }
        return false;
    }

    private String crdName() {
        return HasMetadata.getPlural(type) + "." + HasMetadata.getGroup(type);
    }

    @Override
    public void close() {
        worker.shutdownNow();
        try {
            worker.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        SharedIndexInformer<? extends RingObject> informer = state.informer();
        if (informer != null) {
            informer.close();
        }
    }
}
