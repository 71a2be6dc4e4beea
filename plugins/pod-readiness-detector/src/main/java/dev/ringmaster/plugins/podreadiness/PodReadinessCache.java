package dev.ringmaster.plugins.podreadiness;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The readiness of the Pods behind shard Leases, from Pod informers in the namespaces where shard
 * Leases live: either a fixed list of namespaces, watched from {@link #start()}, or (list empty) each
 * namespace of a Lease the detector is asked about, watched from the first question on. A label
 * selector narrows the Pods further. The informers keep only the Pods' keys (a reduced item store);
 * readiness is kept beside them as one flag per Pod.
 *
 * <p>{@link #readiness} only reads memory. It remembers what it answered per Pod, so that when a
 * watched Pod's readiness changes from what the sharder was last told, {@code onChange} runs (on an
 * informer thread; it must not block) and the sharder can judge its shards again.
 */
final class PodReadinessCache implements PodReadiness.Lookup, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PodReadinessCache.class);

    private record PodKey(String namespace, String name) {
    }

    private final KubernetesClient client;
    private final Set<String> fixedNamespaces;
    private final String podSelector;
    private final Executor starter;
    private final Runnable onChange;

    /** Pods in the cache: whether each is not Ready. */
    private final Map<PodKey, Boolean> notReady = new ConcurrentHashMap<>();
    /** Pods asked about: whether the last answer was NOT_READY. */
    private final Map<PodKey, Boolean> answeredNotReady = new ConcurrentHashMap<>();
    private final Set<String> requestedNamespaces = ConcurrentHashMap.newKeySet();
    private final Map<String, SharedIndexInformer<Pod>> informers = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param client      reads Pods
     * @param namespaces  the namespaces to watch; empty: those of the Leases asked about
     * @param podSelector label selector of the Pods to watch, empty for all
     * @param starter     starts informers, so that a question never waits for one
     * @param onChange    told when a Pod's readiness differs from the last answer about it
     */
    PodReadinessCache(KubernetesClient client, Set<String> namespaces, String podSelector, Executor starter,
            Runnable onChange) {
        this.client = Objects.requireNonNull(client, "client");
        this.fixedNamespaces = Set.copyOf(namespaces);
        this.podSelector = Objects.requireNonNullElse(podSelector, "").trim();
        this.starter = Objects.requireNonNull(starter, "starter");
        this.onChange = Objects.requireNonNull(onChange, "onChange");
    }

    /** Starts watching the configured namespaces, if any. */
    void start() {
        fixedNamespaces.forEach(this::watch);
    }

    @Override
    public PodReadiness readiness(String namespace, String name) {
        if (namespace == null || namespace.isEmpty() || closed) {
            return PodReadiness.UNKNOWN;
        }
        if (fixedNamespaces.isEmpty()) {
            watch(namespace);
        } else if (!fixedNamespaces.contains(namespace)) {
            return PodReadiness.UNKNOWN;
        }
        PodKey key = new PodKey(namespace, name);
        Boolean[] answer = new Boolean[1];
        // Atomic with the informer's check in update(): either that check sees this answer, or this
        // answer already reads the Pod's new state.
        answeredNotReady.compute(key, (k, last) -> {
            answer[0] = notReady.get(k);
            return Boolean.TRUE.equals(answer[0]);
        });
        return answer[0] == null ? PodReadiness.UNKNOWN
                : answer[0] ? PodReadiness.NOT_READY : PodReadiness.READY;
    }

    /** The namespaces watched now, sorted (for logs, the shell and tests). */
    Set<String> watchedNamespaces() {
        return new TreeSet<>(informers.keySet());
    }

    /** Whether every informer started so far has listed its namespace once. */
    boolean hasSynced() {
        return informers.values().stream().allMatch(SharedIndexInformer::hasSynced);
    }

    private void watch(String namespace) {
        if (!requestedNamespaces.add(namespace)) {
            return;
        }
        try {
            starter.execute(() -> {
                try {
                    startInformer(namespace);
                } catch (RuntimeException e) {
                    // e.g. a malformed podSelector; the Leases there are judged by the Lease alone
                    LOG.error("Cannot watch Pods in namespace {} for the pod-readiness detector", namespace, e);
                }
            });
        } catch (RejectedExecutionException e) {
            requestedNamespaces.remove(namespace); // closing
        }
    }

    private void startInformer(String namespace) {
        if (closed) {
            return;
        }
        FilterWatchListDeletable<Pod, PodList, PodResource> pods = client.pods().inNamespace(namespace);
        if (!podSelector.isEmpty()) {
            pods = pods.withLabelSelector(podSelector);
        }
        SharedIndexInformer<Pod> informer = pods.runnableInformer(0);
        // Keys and resourceVersions only: readiness lives in notReady, so no Pod spec is kept.
        informer.itemStore(new ReducedStateItemStore<>(ReducedStateItemStore.NAME_KEY_STATE, Pod.class,
                client.getKubernetesSerialization()));
        informer.addEventHandler(new ResourceEventHandler<Pod>() {
            @Override
            public void onAdd(Pod pod) {
                update(pod, isNotReady(pod));
            }

            @Override
            public void onUpdate(Pod oldPod, Pod pod) {
                update(pod, isNotReady(pod));
            }

            @Override
            public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
                update(pod, null);
            }
        });
        AtomicBoolean warned = new AtomicBoolean();
        informer.exceptionHandler((started, failure) -> {
            // e.g. no permission to watch Pods there: said once, then retried quietly with backoff
            if (warned.compareAndSet(false, true)) {
                LOG.warn("Watching Pods in namespace {} for the pod-readiness detector failed; retrying (until it"
                        + " works, the Leases there alone decide): {}", namespace, failure.toString());
            } else {
                LOG.debug("Watching Pods in namespace {} failed again: {}", namespace, failure.toString());
            }
            return true;
        });
        informers.put(namespace, informer);
        informer.start().whenComplete((done, failure) -> {
            if (failure == null) {
                LOG.info("Watching Pods{} in namespace {} for the pod-readiness detector",
                        podSelector.isEmpty() ? "" : " (" + podSelector + ")", namespace);
            }
        });
        if (closed) {
            informer.stop();
        }
    }

    /** Records a Pod's state; {@code podNotReady} null: the Pod is gone. */
    private void update(Pod pod, Boolean podNotReady) {
        PodKey key = new PodKey(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        if (podNotReady == null) {
            notReady.remove(key);
        } else {
            notReady.put(key, podNotReady);
        }
        boolean blocks = Boolean.TRUE.equals(podNotReady);
        boolean[] changed = new boolean[1];
        answeredNotReady.computeIfPresent(key, (k, last) -> {
            changed[0] = last != blocks;
            return last;
        });
        if (changed[0]) {
            LOG.debug("Pod {}/{} is {}", key.namespace(), key.name(),
                    podNotReady == null ? "gone" : podNotReady ? "not ready" : "ready");
            onChange.run();
        }
    }

    /** Not Ready unless the Pod reports the condition {@code Ready=True}. */
    static boolean isNotReady(Pod pod) {
        List<PodCondition> conditions = pod.getStatus() == null ? null : pod.getStatus().getConditions();
        if (conditions == null) {
            return true;
        }
        return conditions.stream()
                .filter(condition -> "Ready".equals(condition.getType()))
                .noneMatch(condition -> "True".equals(condition.getStatus()));
    }

    @Override
    public void close() {
        closed = true;
        informers.values().forEach(SharedIndexInformer::stop);
        informers.clear();
    }
}
