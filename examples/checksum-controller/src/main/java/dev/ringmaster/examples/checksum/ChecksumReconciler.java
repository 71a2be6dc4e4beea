package dev.ringmaster.examples.checksum;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's logic, without any sharding: brings the Secret {@code checksums-<configmap>} in
 * line with a ConfigMap. Level based and idempotent: every call reads the Secret afresh from the API
 * server and writes only when its checksums or its controller reference differ from what the
 * ConfigMap asks for. Writes are optimistic (the Secret's {@code resourceVersion}); a conflict (409)
 * reads again and decides again, a few times.
 *
 * <p>The Secret is controlled by the ConfigMap (owner reference with {@code controller: true} and
 * {@code blockOwnerDeletion: true}), so the garbage collector deletes it with the ConfigMap and the
 * sharder assigns it to the ConfigMap's shard. The controller never writes a shard label itself and
 * keeps every label and annotation others wrote.
 *
 * <p>A ConfigMap may say what each of its reconciles costs ({@link Cost}, the annotation
 * {@value Cost#ANNOTATION}): that is spent first, waiting or computing, for load experiments.
 *
 * <p>Every call ends with one {@link ReconcileLine} passed to the reconcile log, success or not.
 * Called by one thread at a time per shard ({@code ShardedReconciler}'s worker); holds no state but the
 * invalid cost annotations it reported.
 */
public final class ChecksumReconciler {

    /** Prefix of the Secret's name: {@code checksums-<configmap>}. */
    public static final String SECRET_PREFIX = "checksums-";
    /** Label on the Secrets the controller creates. */
    public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY = "checksum-controller";
    /** Reads and writes per reconcile before a run of conflicts is reported as a failure. */
    static final int MAX_ATTEMPTS = 5;

    /** What a reconcile did. */
    public enum Outcome {
        /** The Secret did not exist and was created. */
        CREATED,
        /** The Secret's checksums or controller reference were changed. */
        UPDATED,
        /** The Secret was up to date: nothing written. */
        UNCHANGED,
        /** The ConfigMap is being deleted: the garbage collector removes the Secret. */
        SKIPPED
    }

    private static final Logger LOG = LoggerFactory.getLogger(ChecksumReconciler.class);

    private final KubernetesClient client;
    private final Clock clock;
    private final String shard;
    private final Consumer<String> reconcileLog;
    private final Cost cost;

    /**
     * @param client       reads and writes Secrets
     * @param clock        the start and end times of the reconcile lines
     * @param shard        the shard name the reconcile lines carry
     * @param reconcileLog receives one {@link ReconcileLine} (as text) per reconcile
     */
    public ChecksumReconciler(KubernetesClient client, Clock clock, String shard, Consumer<String> reconcileLog) {
        this(client, clock, shard, reconcileLog, new Cost(Cost.Mode.WAIT));
    }

    /**
     * @param cost what each reconcile of a ConfigMap spends before its work ({@value Cost#ANNOTATION});
     *             the other constructor's waits
     */
    public ChecksumReconciler(KubernetesClient client, Clock clock, String shard, Consumer<String> reconcileLog,
                              Cost cost) {
        this.client = Objects.requireNonNull(client, "client");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.shard = Objects.requireNonNull(shard, "shard");
        this.reconcileLog = Objects.requireNonNull(reconcileLog, "reconcileLog");
        this.cost = Objects.requireNonNull(cost, "cost");
    }

    /** The name of the Secret that holds the checksums of the ConfigMap {@code configMapName}. */
    public static String secretName(String configMapName) {
        return SECRET_PREFIX + configMapName;
    }

    /**
     * Spends the ConfigMap's cost ({@value Cost#ANNOTATION}, none without it), creates or updates its
     * Secret, then logs the reconcile line, whose interval covers the cost.
     *
     * @param configMap the ConfigMap's current state (e.g. from the shard's informer)
     * @throws KubernetesClientException if the API server fails, or keeps answering conflicts
     * @throws IllegalStateException if the Secret exists and is controlled by another object
     */
    public Outcome reconcile(ConfigMap configMap) {
        long start = clock.millis();
        try {
            cost.spend(configMap);
            Outcome outcome = sync(configMap);
            LOG.debug("Shard {}: {} {}", shard, describe(configMap), outcome);
            return outcome;
        } finally {
            reconcileLog.accept(new ReconcileLine(shard, configMap.getMetadata().getNamespace(),
                    configMap.getMetadata().getName(), start, Math.max(start, clock.millis())).toString());
        }
    }

    /**
     * Whether {@code secret} is what {@code configMap} asks for: controlled by it and holding exactly
     * its checksums. Used to decide whether a Secret event is worth a reconcile.
     */
    public static boolean isUpToDate(ConfigMap configMap, Secret secret) {
        return controller(secret).map(ref -> controls(configMap, ref)).orElse(false)
                && Checksums.fromSecretData(secret.getData()).equals(Checksums.of(configMap));
    }

    /** The Secret's controller reference to a ConfigMap, if it has one. */
    static Optional<OwnerReference> controller(Secret secret) {
        List<OwnerReference> refs = secret.getMetadata().getOwnerReferences();
        if (refs == null) {
            return Optional.empty();
        }
        return refs.stream().filter(ref -> Boolean.TRUE.equals(ref.getController())).findFirst();
    }

    private Outcome sync(ConfigMap configMap) {
        if (configMap.getMetadata().getDeletionTimestamp() != null) {
            return Outcome.SKIPPED;
        }
        String namespace = configMap.getMetadata().getNamespace();
        String name = secretName(configMap.getMetadata().getName());
        Map<String, String> data = Checksums.toSecretData(Checksums.of(configMap));
        for (int attempt = 1; ; attempt++) {
            Secret current = client.secrets().inNamespace(namespace).withName(name).get();
            try {
                if (current == null) {
                    client.secrets().inNamespace(namespace).resource(newSecret(configMap, name, data)).create();
                    LOG.info("Shard {}: created Secret {}/{}", shard, namespace, name);
                    return Outcome.CREATED;
                }
                Optional<OwnerReference> controller = controller(current);
                if (controller.isPresent() && !controls(configMap, controller.get())) {
                    throw new IllegalStateException("Secret " + namespace + "/" + name + " is controlled by "
                            + controller.get().getKind() + " " + controller.get().getName() + " (uid "
                            + controller.get().getUid() + "), not by " + describe(configMap) + ": left alone");
                }
                if (isUpToDate(configMap, current)) {
                    return Outcome.UNCHANGED;
                }
                // the object as read (labels, annotations, resourceVersion kept) with our data and controller
                Secret updated = new SecretBuilder(current)
                        .editMetadata().withOwnerReferences(withController(current, configMap)).endMetadata()
                        .withData(data)
                        .build();
                client.secrets().inNamespace(namespace).resource(updated).update();
                LOG.info("Shard {}: updated Secret {}/{}", shard, namespace, name);
                return Outcome.UPDATED;
            } catch (KubernetesClientException e) {
                // 409: created or changed by someone since it was read: read again and decide again
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
                LOG.debug("Shard {}: conflict on Secret {}/{}, reading it again", shard, namespace, name);
            }
        }
    }

    private static Secret newSecret(ConfigMap configMap, String name, Map<String, String> data) {
        return new SecretBuilder()
                .withNewMetadata()
                    .withNamespace(configMap.getMetadata().getNamespace())
                    .withName(name)
                    .addToLabels(MANAGED_BY_LABEL, MANAGED_BY)
                    .withOwnerReferences(controllerReference(configMap))
                .endMetadata()
                .withType("Opaque")
                .withData(data)
                .build();
    }

    /** The Secret's owner references with the ConfigMap's controller reference in place of none. */
    private static List<OwnerReference> withController(Secret secret, ConfigMap configMap) {
        List<OwnerReference> refs = new ArrayList<>();
        if (secret.getMetadata().getOwnerReferences() != null) {
            for (OwnerReference ref : secret.getMetadata().getOwnerReferences()) {
                boolean sameOwner = configMap.getMetadata().getUid() != null
                        && configMap.getMetadata().getUid().equals(ref.getUid());
                if (!Boolean.TRUE.equals(ref.getController()) && !sameOwner) {
                    refs.add(ref);
                }
            }
        }
        refs.add(controllerReference(configMap));
        return refs;
    }

    static OwnerReference controllerReference(ConfigMap configMap) {
        return new OwnerReferenceBuilder()
                .withApiVersion("v1")
                .withKind("ConfigMap")
                .withName(configMap.getMetadata().getName())
                .withUid(configMap.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    private static boolean controls(ConfigMap configMap, OwnerReference ref) {
        return "v1".equals(ref.getApiVersion()) && "ConfigMap".equals(ref.getKind())
                && configMap.getMetadata().getName().equals(ref.getName())
                && Objects.equals(configMap.getMetadata().getUid(), ref.getUid());
    }

    private static String describe(ConfigMap configMap) {
        return "ConfigMap " + configMap.getMetadata().getNamespace() + "/" + configMap.getMetadata().getName();
    }
}
