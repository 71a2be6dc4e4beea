package dev.ringmaster.clustertests.support;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The installed sharder: its Deployment's pods in {@code sharding-system}, the leader election Lease
 * {@code sharding-system/sharder} (its holder is the leader's pod name: the sharder's identity
 * defaults to {@code $HOSTNAME}), the PodDisruptionBudget, and recorders of how these change during a
 * scenario.
 */
public final class Sharder {

    public static final String NAMESPACE = SharderInstall.NAMESPACE;
    /** The label of the ConfigMaps the sharder applies (DeliveryComponent.LABEL). */
    public static final String DELIVERY_LABEL = "ringmaster.dev/delivery";
    public static final Map<String, String> SELECTOR =
            Map.of("app.kubernetes.io/name", "ringmaster", "app.kubernetes.io/component", "sharder");

    private final NodeCluster cluster;

    public Sharder(NodeCluster cluster) {
        this.cluster = cluster;
    }

    private KubernetesClient admin() {
        return cluster.admin();
    }

    public List<Pod> pods() {
        return admin().pods().inNamespace(NAMESPACE).withLabels(SELECTOR).list().getItems();
    }

    public Set<String> podNames() {
        return pods().stream().map(pod -> pod.getMetadata().getName()).collect(Collectors.toCollection(TreeSet::new));
    }

    public Optional<Pod> pod(String name) {
        return Optional.ofNullable(admin().pods().inNamespace(NAMESPACE).withName(name).get());
    }

    /** The holder of the leader election Lease, if someone holds it. */
    public Optional<String> leader() {
        Lease lease = admin().leases().inNamespace(NAMESPACE).withName("sharder").get();
        return Optional.ofNullable(lease).map(held -> held.getSpec().getHolderIdentity()).filter(holder -> !holder.isBlank());
    }

    /** The leader, once one of the sharder's pods holds the Lease. */
    public String awaitLeader(Duration timeout) {
        return Waiting.value(timeout, () -> "a sharder pod holds the Lease sharding-system/sharder; holder "
                + leader() + ", pods " + podNames(), () -> leader().filter(podNames()::contains));
    }

    /**
     * Waits until every Ready sharder pod has applied every delivery ConfigMap as it is now: an Event on
     * the ConfigMap at its resourceVersion, reported by the pod (docs/operating.md).
     */
    public void awaitDelivered(Duration timeout) {
        Waiting.until(timeout, () -> "every sharder pod " + podNames() + " reports the delivery ConfigMaps applied: "
                + undelivered() + "\n" + diagnostics(), () -> undelivered().isEmpty());
    }

    /** {@code pod: configmap@resourceVersion} for each delivery ConfigMap a Ready pod has not reported yet. */
    public List<String> undelivered() {
        List<Event> events = admin().v1().events().inNamespace(NAMESPACE).list().getItems();
        List<String> missing = new ArrayList<>();
        for (ConfigMap configMap : admin().configMaps().inNamespace(NAMESPACE).withLabel(DELIVERY_LABEL).list().getItems()) {
            for (Pod pod : pods()) {
                String name = pod.getMetadata().getName();
                boolean reported = events.stream().anyMatch(event -> name.equals(event.getReportingInstance())
                        && configMap.getMetadata().getName().equals(event.getInvolvedObject().getName())
                        && configMap.getMetadata().getResourceVersion().equals(event.getInvolvedObject().getResourceVersion()));
                if (Examples.ready(pod) && pod.getMetadata().getDeletionTimestamp() == null && !reported) {
                    missing.add(name + ": " + configMap.getMetadata().getName() + "@" + configMap.getMetadata().getResourceVersion());
                }
            }
        }
        return missing;
    }

    /** The Events a pod wrote about a delivery ConfigMap, oldest first: {@code reason: message}. */
    public List<String> deliveryEvents(String pod, String configMap) {
        return admin().v1().events().inNamespace(NAMESPACE).list().getItems().stream()
                .filter(event -> pod.equals(event.getReportingInstance())
                        && configMap.equals(event.getInvolvedObject().getName()))
                .sorted(Comparator.comparing(Event::getLastTimestamp))
                .map(event -> event.getReason() + ": " + event.getMessage()).toList();
    }

    /** The sharder container's restart count by pod name, of the pods there now. */
    public Map<String, Integer> restarts() {
        return pods().stream().collect(Collectors.toMap(pod -> pod.getMetadata().getName(),
                pod -> container(pod).getRestartCount(), (a, b) -> a, TreeMap::new));
    }

    /** The PodDisruptionBudget's count of healthy pods now. */
    public int pdbCurrentHealthy() {
        PodDisruptionBudget pdb = admin().policy().v1().podDisruptionBudget().inNamespace(NAMESPACE).withName("sharder").get();
        return pdb == null || pdb.getStatus() == null ? -1 : pdb.getStatus().getCurrentHealthy();
    }

    /**
     * Prints, for each sharder pod, how long after its container started it turned Ready (issue 36's "a replica
     * ready ≤ 5 s after its container starts"; whole seconds, as the API server keeps the times). A measurement
     * for docs/performance.md, not an assertion.
     */
    public void printReadiness(String after) {
        for (Pod pod : pods()) {
            String started = container(pod).getState().getRunning() == null ? null
                    : container(pod).getState().getRunning().getStartedAt();
            String ready = pod.getStatus().getConditions().stream()
                    .filter(condition -> "Ready".equals(condition.getType()) && "True".equals(condition.getStatus()))
                    .map(PodCondition::getLastTransitionTime).findFirst().orElse(null);
            if (started != null && ready != null) {
                System.err.printf("cluster-tests: sharder pod %s Ready %d s after its container started (%s)%n",
                        pod.getMetadata().getName(), Duration.between(Instant.parse(started), Instant.parse(ready)).toSeconds(),
                        after);
            }
        }
    }

    /** The sharder container's status in a pod. */
    public static ContainerStatus container(Pod pod) {
        return pod.getStatus().getContainerStatuses().stream().filter(status -> status.getName().equals("sharder"))
                .findFirst().orElseThrow(() -> new IllegalStateException("no container sharder in " + pod.getMetadata().getName()));
    }

    public String diagnostics() {
        return Diagnostics.namespace(cluster, NAMESPACE);
    }

    /** The leader's name and the last {@code lines} lines of its log, for failure messages. */
    static String leaderLog(NodeCluster cluster, int lines) {
        Optional<String> leader = new Sharder(cluster).leader();
        return "--- sharder leader " + leader.orElse("(none)") + " (last " + lines + " lines) ---\n" + leader.map(pod ->
                cluster.kubectl("-n", NAMESPACE, "logs", pod, "--tail=" + lines).out()).orElse("");
    }

    /**
     * Records, from a pod and a Lease informer, the fewest sharder pods that were Ready (and not being
     * deleted) at any moment, and every holder the Lease had, until closed.
     */
    public Recorder record() {
        return new Recorder();
    }

    public final class Recorder implements AutoCloseable {

        private final SharedIndexInformer<Pod> pods;
        private final SharedIndexInformer<Lease> lease;
        private int fewestReady = Integer.MAX_VALUE;
        private final List<String> holders = new ArrayList<>();
        private final List<String> readiness = new ArrayList<>();
        private final Instant started = Instant.now();

        private Recorder() {
            // handlers added before the informers start: the first events must find the fields set
            pods = admin().pods().inNamespace(NAMESPACE).withLabels(SELECTOR).runnableInformer(0);
            lease = admin().leases().inNamespace(NAMESPACE).withField("metadata.name", "sharder").runnableInformer(0);
            pods.addEventHandler(handler(this::countReady));
            lease.addEventHandler(handler(this::holder));
            pods.start().toCompletableFuture().join();
            lease.start().toCompletableFuture().join();
        }

        private synchronized void countReady() {
            List<String> ready = pods.getStore().list().stream()
                    .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null && Examples.ready(pod))
                    .map(pod -> pod.getMetadata().getName()).sorted().toList();
            fewestReady = Math.min(fewestReady, ready.size());
            String entry = ready.toString();
            if (readiness.isEmpty() || !readiness.get(readiness.size() - 1).endsWith(entry)) {
                readiness.add(since() + " ready " + entry);
            }
        }

        private synchronized void holder() {
            String holder = lease.getStore().list().stream().map(held -> held.getSpec().getHolderIdentity())
                    .filter(name -> name != null && !name.isBlank()).findFirst().orElse("(none)");
            if (holders.isEmpty() || !holders.get(holders.size() - 1).endsWith(" " + holder)) {
                holders.add(since() + " " + holder);
            }
        }

        private String since() {
            return String.format(Locale.ROOT, "+%.1fs", Duration.between(started, Instant.now()).toMillis() / 1000.0);
        }

        public synchronized int fewestReady() {
            return fewestReady;
        }

        /** The Lease's holders in order, each with the time since recording began. */
        public synchronized List<String> holders() {
            return List.copyOf(holders);
        }

        /** The Ready sharder pods each time they changed. */
        public synchronized List<String> readiness() {
            return List.copyOf(readiness);
        }

        @Override
        public void close() {
            pods.close();
            lease.close();
        }
    }

    /** An informer handler that runs {@code onChange} on every add, update and delete. */
    public static <T> ResourceEventHandler<T> handler(Runnable onChange) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T object) {
                onChange.run();
            }

            @Override
            public void onUpdate(T before, T object) {
                onChange.run();
            }

            @Override
            public void onDelete(T object, boolean unknown) {
                onChange.run();
            }
        };
    }
}
