package dev.ringmaster.clustertests.support;

import dev.ringmaster.examples.checksum.Checksums;
import dev.ringmaster.examples.checksum.ReconcileLine;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The example shards of one {@code examples/manifests/<variant>} installed in the cluster, as a user
 * would: {@code kubectl apply -k examples/manifests/<variant>}, then {@code kubectl rollout status}
 * of its workload. What the tests need to know (the ring and its kind, the workload, the namespace of
 * the shards and of the objects) is read from the rendered kustomization, so the tests follow the
 * manifests. The shard pods' logs are collected from before the apply ({@link ShardLogs}).
 *
 * <p>Also the ring's state as the API server has it ({@link RingState}, shared with itests), and whether
 * every object is settled here: on a ready shard, none in drain, its checksum Secret up to date.
 */
public final class Examples extends RingState {

    private final NodeCluster cluster;
    private final String variant;
    private final HasMetadata workload;
    private final String namespace;
    private final Map<String, String> podSelector;
    private final ShardLogs logs;
    private final boolean rangeMode;

    private Examples(NodeCluster cluster, String variant, RingKind kind, String ring, HasMetadata workload,
            String objectsNamespace, Map<String, String> podSelector, boolean rangeMode) {
        super(cluster.admin(), kind, ring, objectsNamespace, workload.getMetadata().getNamespace(), Waiting.EVERY_250_MS);
        this.cluster = cluster;
        this.variant = variant;
        this.workload = workload;
        this.namespace = workload.getMetadata().getNamespace();
        this.podSelector = podSelector;
        this.logs = new ShardLogs(cluster.admin(), namespace, podSelector, cluster.work().resolve("logs").resolve(variant));
        this.rangeMode = rangeMode;
    }

    static Examples install(NodeCluster cluster, String variant) {
        Path dir = manifests(cluster, variant);
        String rendered = cluster.kubectl("kustomize", dir.toString()).orThrow().out();
        List<HasMetadata> items = cluster.admin().load(new ByteArrayInputStream(rendered.getBytes(StandardCharsets.UTF_8))).items();
        HasMetadata ringObject = items.stream().filter(item -> isRing(item.getKind())).findFirst()
                .orElseThrow(() -> new IllegalStateException(dir + " has no ClusterRing or ControllerRing"));
        HasMetadata workload = items.stream().filter(item -> item instanceof StatefulSet || item instanceof Deployment)
                .findFirst().orElseThrow(() -> new IllegalStateException(dir + " has no StatefulSet or Deployment"));
        Map<String, String> selector = workload instanceof StatefulSet set ? set.getSpec().getSelector().getMatchLabels()
                : ((Deployment) workload).getSpec().getSelector().getMatchLabels();
        Examples examples = new Examples(cluster, variant, RingKind.ofKind(ringObject.getKind()),
                ringObject.getMetadata().getName(), workload, objectsNamespace(items, ringObject, workload), selector,
                spec(ringObject).containsKey("ranges"));
        cluster.kubectl("apply", "-k", dir.toString()).orThrow();
        examples.awaitRolledOut();
        return examples;
    }

    private static boolean isRing(String kind) {
        return RingKind.CLUSTER_RING.kind().equals(kind) || RingKind.CONTROLLER_RING.kind().equals(kind);
    }

    private static Path manifests(NodeCluster cluster, String variant) {
        Path dir = cluster.root().resolve("examples/manifests").resolve(variant);
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("no " + dir);
        }
        return dir;
    }

    /**
     * The namespace the tests create ConfigMaps in: one of the kustomization's namespaces that the
     * ring's {@code namespaceSelector} selects (by {@code matchLabels}, with the
     * {@code kubernetes.io/metadata.name} label every namespace has), else the workload's.
     */
    @SuppressWarnings("unchecked")
    private static String objectsNamespace(List<HasMetadata> items, HasMetadata ring, HasMetadata workload) {
        Map<String, Object> selector = (Map<String, Object>) spec(ring).get("namespaceSelector");
        Map<String, String> matchLabels = selector == null ? null : (Map<String, String>) selector.get("matchLabels");
        if (matchLabels != null) {
            for (HasMetadata item : items) {
                if (item instanceof Namespace namespace) {
                    Map<String, String> labels = new TreeMap<>(Optional.ofNullable(namespace.getMetadata().getLabels()).orElse(Map.of()));
                    labels.put("kubernetes.io/metadata.name", namespace.getMetadata().getName());
                    if (labels.entrySet().containsAll(matchLabels.entrySet())) {
                        return namespace.getMetadata().getName();
                    }
                }
            }
        }
        return workload.getMetadata().getNamespace();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(HasMetadata ring) {
        Object spec = ((GenericKubernetesResource) ring).getAdditionalProperties().get("spec");
        return spec == null ? Map.of() : (Map<String, Object>) spec;
    }

    /**
     * {@code kubectl rollout status} of the workload, then a ready Lease for every shard pod (the pod's
     * own name in a StatefulSet, one slot of the pool per pod in a Deployment) and as many available
     * shards in the ring's status: the sharder labels a Lease ready before its ring has the shard, and
     * an object created in between is assigned without it, then drained to it (docs/design.md section 5).
     */
    public void awaitRolledOut() {
        Command.Result rollout = cluster.kubectl("-n", namespace, "rollout", "status", workloadRef(), "--timeout=240s");
        if (!rollout.ok()) {
            throw new AssertionError("the example shards did not roll out:\n" + rollout.describe() + "\n" + diagnostics());
        }
        awaitAvailable(() -> "a Lease for every shard pod " + readyPods(), ready -> workload instanceof StatefulSet
                ? ready.equals(readyPods()) : ready.size() == readyPods().size(), Duration.ofSeconds(90), this::diagnostics);
    }

    /** The shards to settle on: the StatefulSet's ready pods, or the pool slots whose Leases are ready. */
    public Set<String> shards() {
        return workload instanceof StatefulSet ? readyPods() : readyShards();
    }

    /** {@code kubectl delete -k} of the variant, waiting until everything is gone (its namespace too). */
    void uninstall() {
        long started = System.nanoTime();
        Command.Result deleted = cluster.kubectl("delete", "-k", manifests(cluster, variant).toString(), "--wait=true",
                "--timeout=240s", "--ignore-not-found");
        stopLogs();
        NodeCluster.record("uninstall examples/" + variant, Duration.ofNanos(System.nanoTime() - started));
        if (!deleted.ok()) {
            throw new AssertionError("kubectl delete -k examples/manifests/" + variant + ":\n" + deleted.describe());
        }
    }

    /** {@code statefulset/NAME} or {@code deployment/NAME}. */
    public String workloadRef() {
        return workload.getKind().toLowerCase() + "/" + workload.getMetadata().getName();
    }

    public String variant() {
        return variant;
    }

    /** Namespace of the shard pods and their Leases. */
    public String namespace() {
        return namespace;
    }

    public ShardLogs logs() {
        return logs;
    }

    void stopLogs() {
        logs.close();
    }

    KubernetesClient admin() {
        return cluster.admin();
    }

    /** Records moves of the ring's objects and handovers of its shard Leases from now until closed. */
    public RolloutRecorder record() {
        return new RolloutRecorder(this);
    }

    /** The ring's MutatingWebhookConfiguration as the sharder wrote it, if it exists. */
    public Optional<MutatingWebhookConfiguration> webhookConfiguration() {
        return Optional.ofNullable(admin().admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName(kind().webhookConfigurationName(ring())).get());
    }

    /** Scales the workload as a user would ({@code kubectl scale}) and waits until it rolled out with that many ready pods. */
    public Set<String> scale(int replicas) {
        cluster.kubectl("-n", namespace, "scale", workloadRef(), "--replicas=" + replicas).orThrow();
        Waiting.until(Duration.ofSeconds(180), () -> replicas + " ready shard pods and no other; now " + readyPods() + " of "
                + pods().size() + "\n" + diagnostics(), () -> readyPods().size() == replicas && pods().size() == replicas);
        awaitRolledOut();
        return readyPods();
    }

    /** Deletes a shard pod as a user would ({@code kubectl delete pod}, graceful), waiting until it is gone. */
    public void deletePod(String name) {
        cluster.kubectl("-n", namespace, "delete", "pod", name, "--wait=true", "--timeout=120s").orThrow();
    }

    /** The shard pods, by name. */
    public List<Pod> pods() {
        return admin().pods().inNamespace(namespace).withLabels(podSelector).list().getItems();
    }

    /** Names of the shard pods that are Ready and not being deleted. */
    public Set<String> readyPods() {
        return pods().stream().filter(pod -> pod.getMetadata().getDeletionTimestamp() == null && ready(pod))
                .map(pod -> pod.getMetadata().getName()).collect(Collectors.toCollection(TreeSet::new));
    }

    /** Whether the pod's Ready condition is True. */
    public static boolean ready(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getConditions() != null && pod.getStatus().getConditions().stream()
                .anyMatch(condition -> "Ready".equals(condition.getType()) && "True".equals(condition.getStatus()));
    }

    /**
     * Why the ring is not settled on {@code shards}; empty if it is: the ready shard Leases are exactly
     * {@code shards}, every ConfigMap is settled on them ({@link RingState#unsettled}: also every one of
     * {@code shards} holds objects, which is how the test knows that the sharder is done; the scenarios
     * keep at least {@value #OBJECTS} objects in the ring, so that no shard's share is empty; in range mode
     * instead the ranges settled on them and nothing labelled), and each has its Secret
     * {@code checksums-<name>}, controlled by it, with the checksums of its data now.
     */
    @Override
    public List<String> unsettled(Set<String> shards) {
        List<String> problems = new ArrayList<>();
        Set<String> ready = readyShards();
        if (!ready.equals(shards)) {
            problems.add("ready shard Leases " + ready + ", expected " + shards);
        }
        problems.addAll(rangeMode ? rangesUnsettled(shards) : super.unsettled(shards));
        Map<String, Secret> secrets = admin().secrets().inNamespace(objectsNamespace()).list().getItems().stream()
                .collect(Collectors.toMap(secret -> secret.getMetadata().getName(), Function.identity()));
        for (ConfigMap configMap : configMaps()) {
            String name = configMap.getMetadata().getName();
            Secret secret = secrets.get("checksums-" + name);
            if (secret == null) {
                problems.add(name + " has no Secret checksums-" + name);
            } else if (!controlledBy(secret, configMap)) {
                problems.add("checksums-" + name + " is not controlled by its ConfigMap");
            } else if (!Checksums.of(configMap).equals(Checksums.fromSecretData(secret.getData()))) {
                problems.add("checksums-" + name + " is not up to date");
            }
        }
        return problems;
    }

    /** Range mode: the ranges settled on {@code shards} ({@link RangeOwners#problems}) and no object labelled. */
    private List<String> rangesUnsettled(Set<String> shards) {
        List<String> problems = new ArrayList<>(rangeOwners().problems(shards));
        configMaps().stream().filter(configMap -> labels(configMap).containsKey(shardLabel()))
                .forEach(configMap -> problems.add(configMap.getMetadata().getName() + " labelled in range mode"));
        return problems;
    }

    /** Range mode: the shards' ranges and the objects' owners by them, as the shard Leases say now. */
    public RangeOwners rangeOwners() {
        return new RangeOwners(leases());
    }

    private static boolean controlledBy(Secret secret, ConfigMap configMap) {
        return Optional.ofNullable(secret.getMetadata().getOwnerReferences()).orElse(List.of()).stream()
                .anyMatch(owner -> Boolean.TRUE.equals(owner.getController())
                        && configMap.getMetadata().getUid().equals(owner.getUid()));
    }

    /**
     * Waits until the ring is settled on {@code shards} ({@link #unsettled}) and has stayed so for 3 s
     * ({@link #awaitSettled}); a failure lists what was last not settled, the objects per shard, the shard Leases
     * and the shards' namespace.
     */
    public void awaitSettledOn(Set<String> shards, Duration timeout) {
        awaitSettled(shards, timeout, Duration.ofSeconds(3), () -> unsettled(shards), this::diagnostics);
    }

    /**
     * Checks the shard pods' reconcile lines so far (every pod that ever ran, {@link ShardLogs}): some
     * reconciles, and none of one object by two shards at overlapping times. Returns the lines.
     */
    public List<ReconcileLine> assertNoOverlappingReconciles() {
        List<ReconcileLine> lines = logs.reconciles();
        long overlaps = ShardLogs.overlaps(lines);
        System.err.println("cluster-tests: " + lines.size() + " reconciles by shard " + ShardLogs.perShard(lines)
                + ", " + overlaps + " overlapping");
        if (lines.isEmpty()) {
            throw new AssertionError("no reconcile lines read from the shard pods\n" + diagnostics());
        }
        if (overlaps != 0) {
            throw new AssertionError(overlaps + " pairs of overlapping reconciles by two shards, e.g.\n"
                    + ShardLogs.firstOverlap(lines).orElse("") + "\n(raw logs: " + cluster.work().resolve("logs") + ")");
        }
        return lines;
    }

    /** How many ConfigMaps the scenarios keep in the ring at least. */
    public static final int OBJECTS = 40;

    /** Creates ConfigMaps named {@code prefix-NN} until the ring has at least {@link #OBJECTS}. */
    public void atLeastObjects(String prefix) {
        for (int i = configMaps().size(); i < OBJECTS; i++) {
            createConfigMap("%s-%02d".formatted(prefix, i));
        }
    }

    /**
     * Creates ConfigMaps {@code prefix-NN} until the ring has at least {@link #OBJECTS}, waits until they
     * are settled on the ready shard pods ({@link #awaitSettledOn}) and returns those shards.
     */
    public Set<String> settledWithObjects(String prefix, Duration timeout) {
        atLeastObjects(prefix);
        Set<String> ready = readyPods();
        awaitSettledOn(ready, timeout);
        return ready;
    }

    /**
     * Creates ConfigMaps {@code prefix-NNNNN} until the ring has at least {@code count}, four at a time,
     * and returns how many were created.
     */
    public int atLeastObjects(String prefix, int count) {
        int from = configMaps().size();
        if (from >= count) {
            return 0;
        }
        ExecutorService creators = Executors.newFixedThreadPool(4);
        try {
            List<Future<ConfigMap>> creates = new ArrayList<>();
            for (int i = from; i < count; i++) {
                String name = "%s-%05d".formatted(prefix, i);
                creates.add(creators.submit(() -> createConfigMap(name)));
            }
            for (Future<ConfigMap> create : creates) {
                create.get();
            }
            return creates.size();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("creating " + prefix + " ConfigMaps", e.getCause());
        } finally {
            creators.shutdownNow();
        }
    }

    /** Creates ConfigMap {@code name} with some data in the objects' namespace; returns it as the API server answered. */
    public ConfigMap createConfigMap(String name) {
        return admin().configMaps().inNamespace(objectsNamespace()).resource(new ConfigMapBuilder().withNewMetadata()
                .withName(name).endMetadata().addToData("name", name).addToData("created", String.valueOf(System.nanoTime()))
                .build()).create();
    }

    /** {@code kubectl patch} of the ring: {@code type} {@code merge} or {@code json}. */
    public void patchRing(String type, String patch) {
        cluster.kubectl("patch", kind().kind().toLowerCase(Locale.ROOT), ring(), "--type=" + type, "-p", patch).orThrow();
    }

    /**
     * For failure messages, first what decides a shard's state (each shard Lease's holder, renewal and state
     * label; the sharder's leader and the tail of its log), then the shard namespace's pods, events and logs.
     */
    public String diagnostics() {
        StringBuilder text = new StringBuilder("--- shard Leases ---\n");
        leaseStates().forEach((name, state) -> text.append(name).append(": ").append(state).append('\n'));
        return text.append(Sharder.leaderLog(cluster, 20)).append(Diagnostics.namespace(cluster, namespace)).toString();
    }
}
