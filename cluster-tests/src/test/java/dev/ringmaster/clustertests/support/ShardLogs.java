package dev.ringmaster.clustertests.support;

import dev.ringmaster.examples.checksum.ReconcileLine;
import dev.ringmaster.kubernetes.client.EventHandlers;
import dev.ringmaster.sandbox.ReconcileLog;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.LogWatch;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;

/**
 * Every line every shard pod printed, for the whole run: also of pods that were deleted since and of
 * containers that restarted. A pod informer sees each shard pod as it appears; every container
 * instance (by its containerID) is followed ({@code kubectl logs -f}, fabric8's {@code watchLog}) from
 * the moment it runs, which reads its log from its first line and ends when the container ends, so a
 * pod deleted later has already given everything. An instance the informer only saw after it ended is
 * read once it has ended ({@code --previous} after a restart). {@link #reconciles()} first reads the log
 * of every container running now once more, so lines still in flight are counted too.
 *
 * <p>Lines are kept as a set: an instance read twice (followed, and then read again) counts once,
 * and a reconcile line (shard, object, start and end to the millisecond) does not repeat. Each line's
 * shard is tagged with its container instance ({@code shard@containerId}): with stable identities a
 * replacement pod is the same shard as the pod it replaces, and the two processes must not reconcile
 * one object at overlapping times either. Raw logs go
 * to {@code target/cluster/logs/}, one file per container instance.
 */
public final class ShardLogs implements AutoCloseable {

    private final KubernetesClient client;
    private final String namespace;
    private final Map<String, String> selector;
    private final Path folder;
    private final ExecutorService readers = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "shard-logs");
        thread.setDaemon(true);
        return thread;
    });
    private final Set<String> followed = ConcurrentHashMap.newKeySet();
    private final Set<String> readAfterEnd = ConcurrentHashMap.newKeySet();
    private final Set<ReconcileLine> reconciles = new LinkedHashSet<>();
    private final List<LogWatch> watches = new ArrayList<>();
    private final SharedIndexInformer<Pod> informer;

    public ShardLogs(KubernetesClient client, String namespace, Map<String, String> selector, Path folder) {
        this.client = client;
        this.namespace = namespace;
        this.selector = Map.copyOf(selector);
        this.folder = folder;
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.informer = client.pods().inNamespace(namespace).withLabels(selector)
                .inform(EventHandlers.handler(this::look, this::look), 0);
    }

    private void look(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return;
        }
        String name = pod.getMetadata().getName();
        for (ContainerStatus status : pod.getStatus().getContainerStatuses()) {
            String container = status.getName();
            if (status.getState() != null && status.getState().getRunning() != null && status.getContainerID() != null
                    && followed.add(status.getContainerID())) {
                follow(name, container, status.getContainerID());
            }
            if (status.getState() != null && status.getState().getTerminated() != null) {
                String id = status.getState().getTerminated().getContainerID();
                if (id != null && readAfterEnd.add(id)) {
                    readers.execute(() -> readOnce(name, container, id, false));
                }
            }
            if (status.getLastState() != null && status.getLastState().getTerminated() != null) {
                String id = status.getLastState().getTerminated().getContainerID();
                if (id != null && readAfterEnd.add(id)) {
                    readers.execute(() -> readOnce(name, container, id, true));
                }
            }
        }
    }

    private void follow(String pod, String container, String containerId) {
        readers.execute(() -> {
            try (LogWatch watch = client.pods().inNamespace(namespace).withName(pod).inContainer(container).watchLog()) {
                synchronized (watches) {
                    watches.add(watch);
                }
                try (BufferedReader reader = new BufferedReader(new InputStreamReader(watch.getOutput(), StandardCharsets.UTF_8));
                        Writer raw = rawLog(pod, container, containerId)) {
                    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                        take(line, containerId);
                        raw.write(line);
                        raw.write('\n');
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the pod went away while being followed: what was read is kept, readOnce covers the rest
            }
        });
    }

    private void readOnce(String pod, String container, String containerId, boolean previous) {
        readOnce(pod, container, containerId, previous, true);
    }

    private void readOnce(String pod, String container, String containerId, boolean previous, boolean keepRaw) {
        try {
            var logs = client.pods().inNamespace(namespace).withName(pod).inContainer(container);
            String log = previous ? logs.terminated().getLog() : logs.getLog();
            if (log != null) {
                log.lines().forEach(line -> take(line, containerId));
                if (keepRaw) {
                    try (Writer raw = rawLog(pod, container, containerId + (previous ? "-previous" : "-ended"))) {
                        raw.write(log);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone: nothing more to read
        }
    }

    private Writer rawLog(String pod, String container, String containerId) throws IOException {
        String id = containerId.substring(containerId.lastIndexOf('/') + 1);
        String suffix = id.contains("-") ? id.substring(id.indexOf('-')) : "";
        return Files.newBufferedWriter(folder.resolve(pod + "_" + container + "_" + id.substring(0, Math.min(12, id.length()))
                + suffix + ".log"), StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private void take(String line, String containerId) {
        Optional<ReconcileLine> reconcile = ReconcileLine.parse(line);
        if (reconcile.isPresent()) {
            ReconcileLine read = reconcile.get();
            String instance = containerId.substring(containerId.lastIndexOf('/') + 1);
            ReconcileLine tagged = new ReconcileLine(read.shard() + "@" + instance.substring(0, Math.min(12, instance.length())),
                    read.namespace(), read.name(), read.start(), read.end());
            synchronized (reconciles) {
                reconciles.add(tagged);
            }
        }
    }

    /** Every reconcile of every shard pod so far, after reading the logs of the running containers once more. */
    public List<ReconcileLine> reconciles() {
        for (Pod pod : client.pods().inNamespace(namespace).withLabels(selector).list().getItems()) {
            for (ContainerStatus status : Optional.ofNullable(pod.getStatus().getContainerStatuses()).orElse(List.of())) {
                if (status.getContainerID() != null) {
                    readOnce(pod.getMetadata().getName(), status.getName(), status.getContainerID(), false, false);
                }
            }
        }
        synchronized (reconciles) {
            return List.copyOf(reconciles);
        }
    }

    /** The overlaps among {@code lines}: pairs of reconciles of one object by two shards at overlapping times. */
    public static long overlaps(List<ReconcileLine> lines) {
        return ReconcileLog.countOverlaps(lines);
    }

    /** The first overlapping pair among {@code lines}, for a failure message. */
    public static Optional<String> firstOverlap(List<ReconcileLine> lines) {
        for (int i = 0; i < lines.size(); i++) {
            for (int j = i + 1; j < lines.size(); j++) {
                ReconcileLine a = lines.get(i);
                ReconcileLine b = lines.get(j);
                if (!a.shard().equals(b.shard()) && a.overlaps(b)) {
                    return Optional.of(a + "\n" + b);
                }
            }
        }
        return Optional.empty();
    }

    /** The shards that printed reconcile lines (by identity, every instance together), with how many. */
    public static Map<String, Long> perShard(List<ReconcileLine> lines) {
        return lines.stream().collect(Collectors.groupingBy(line -> line.shard().replaceFirst("@.*$", ""), TreeMap::new,
                Collectors.counting()));
    }

    @Override
    public void close() {
        informer.close();
        synchronized (watches) {
            watches.forEach(LogWatch::close);
        }
        readers.shutdownNow();
    }
}
