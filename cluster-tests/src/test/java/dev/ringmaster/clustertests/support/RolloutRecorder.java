package dev.ringmaster.clustertests.support;

import dev.ringmaster.ring.RingContract;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * What happens to a ring's objects and shard Leases while it runs, seen through the API server as a
 * user would: every ConfigMap whose shard label changed or that got the drain label (a move), and
 * every time a shard's Lease passed from one process to another (a handover: the holder instance
 * annotation changed), with the times the shards wrote: when the old process stopped (its
 * {@code ringmaster.dev/restarting} annotation, absent if it did not stop cleanly) and when the new one
 * acquired the Lease ({@code acquireTime}).
 */
public final class RolloutRecorder implements AutoCloseable {

    /** A ConfigMap taken from its shard: by a drain, or by a new shard label. */
    public record Move(String object, String from, String to, boolean drained, Instant seen) {
    }

    /**
     * One shard identity passed from process {@code fromInstance} to {@code toInstance}.
     *
     * @param stopped  when the old process marked the Lease restarting; null if it did not
     * @param acquired when the new process acquired the Lease
     */
    public record Handover(String shard, String fromInstance, String toInstance, Instant stopped, Instant acquired) {

        /** How long the shard's objects had no running process: from the old one's stop to the new one's acquisition. */
        public Optional<Duration> gap() {
            return stopped == null ? Optional.empty() : Optional.of(Duration.between(stopped, acquired));
        }
    }

    private final Examples shards;
    private final SharedIndexInformer<ConfigMap> objects;
    private final SharedIndexInformer<Lease> leases;
    private final List<Move> moves = new ArrayList<>();
    private final List<Handover> handovers = new ArrayList<>();
    private final List<String> releases = new ArrayList<>();

    RolloutRecorder(Examples shards) {
        this.shards = shards;
        this.objects = shards.admin().configMaps().inNamespace(shards.objectsNamespace()).inform(onUpdate(this::moved), 0);
        this.leases = shards.admin().leases().inNamespace(shards.namespace())
                .withLabel(shards.kind().leaseLabel(), shards.ring()).inform(onUpdate(this::handedOver), 0);
    }

    /** An event handler that passes on updates only: adds and deletes neither move nor hand over anything. */
    private static <T> ResourceEventHandler<T> onUpdate(BiConsumer<T, T> updated) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
            }

            @Override
            public void onUpdate(T before, T after) {
                updated.accept(before, after);
            }

            @Override
            public void onDelete(T object, boolean unknown) {
            }
        };
    }

    private void moved(ConfigMap before, ConfigMap after) {
        String from = label(before, shards.shardLabel());
        String to = label(after, shards.shardLabel());
        boolean drained = label(before, shards.drainLabel()) == null && label(after, shards.drainLabel()) != null;
        if (from != null && (drained || !from.equals(to))) {
            synchronized (this) {
                moves.add(new Move(after.getMetadata().getName(), from, to, drained, Instant.now()));
            }
        }
    }

    private void handedOver(Lease before, Lease after) {
        String shard = after.getMetadata().getName();
        String holder = after.getSpec() == null ? null : after.getSpec().getHolderIdentity();
        String from = annotation(before, RingContract.INSTANCE_ANNOTATION);
        String to = annotation(after, RingContract.INSTANCE_ANNOTATION);
        synchronized (this) {
            if ((holder == null || holder.isEmpty()) && before.getSpec() != null
                    && shard.equals(before.getSpec().getHolderIdentity())) {
                releases.add(shard);
            }
            if (from != null && to != null && !from.equals(to) && shard.equals(holder)) {
                String stopped = annotation(before, RingContract.RESTARTING_ANNOTATION);
                handovers.add(new Handover(shard, from, to, stopped == null ? null : OffsetDateTime.parse(stopped).toInstant(),
                        after.getSpec().getAcquireTime().toInstant()));
            }
        }
    }

    public synchronized List<Move> moves() {
        return List.copyOf(moves);
    }

    public synchronized List<Handover> handovers() {
        return List.copyOf(handovers);
    }

    /** Shards whose process released the Lease (holder cleared): left for good. */
    public synchronized List<String> releases() {
        return List.copyOf(releases);
    }

    /**
     * Per handover with a clean stop: the gap, and how much of it the pod took to start (the new
     * process's container start minus the old one's stop), for the report.
     */
    public Map<String, String> gaps() {
        Map<String, String> report = new TreeMap<>();
        for (Handover handover : handovers()) {
            String gap = handover.gap().map(duration -> "gap %.1f s (pod restart %s)".formatted(duration.toMillis() / 1000.0,
                    startedAt(handover.toInstance()).map(time -> "%.1f s".formatted(
                            Duration.between(handover.stopped(), time).toMillis() / 1000.0)).orElse("?")))
                    .orElse("no clean stop, acquired " + handover.acquired());
            report.merge(handover.shard(), gap, (a, b) -> a + "; " + b);
        }
        return report;
    }

    /** The longest gap of any handover with a clean stop. */
    public Optional<Duration> longestGap() {
        return handovers().stream().map(Handover::gap).flatMap(Optional::stream).max(Duration::compareTo);
    }

    /** When the container of the pod with this UID started, if the pod is still there. */
    private Optional<Instant> startedAt(String podUid) {
        return shards.pods().stream().filter(pod -> podUid.equals(pod.getMetadata().getUid())).findFirst()
                .map(Pod::getStatus).map(status -> status.getContainerStatuses()).filter(statuses -> !statuses.isEmpty())
                .map(statuses -> statuses.get(0)).map(ContainerStatus::getState)
                .filter(state -> state.getRunning() != null && state.getRunning().getStartedAt() != null)
                .map(state -> OffsetDateTime.parse(state.getRunning().getStartedAt()).toInstant());
    }

    private static String label(HasMetadata object, String key) {
        return Examples.labels(object).get(key);
    }

    private static String annotation(HasMetadata object, String key) {
        Map<String, String> annotations = object.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(key);
    }

    @Override
    public void close() {
        objects.close();
        leases.close();
    }

    @Override
    public String toString() {
        return "moves " + moves().size() + " " + moves().stream().limit(5).toList() + ", handovers " + gaps() + ", releases "
                + releases();
    }
}
