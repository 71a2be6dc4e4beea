package dev.ringmaster.itests.support;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The ConfigMaps of a ring over one namespace and the shard Leases there, as the API server has them
 * now ({@link RingState}, shared with cluster-tests), and the checksum controller's Secrets beside them.
 */
public final class RingObjects extends RingState {

    private final KubernetesClient admin;

    public RingObjects(KubernetesClient admin, String ring, String namespace) {
        this(admin, RingKind.CLUSTER_RING, ring, namespace);
    }

    /** The objects of a ring of the kind, by that kind's labels. */
    public RingObjects(KubernetesClient admin, RingKind kind, String ring, String namespace) {
        super(admin, kind, ring, namespace, namespace, Waiting.EVERY_100_MS);
        this.admin = admin;
    }

    /** Creates ConfigMaps {@code cm-0} to {@code cm-<count - 1>}, each with data {@code key: value-<i>}, in parallel. */
    public void createConfigMaps(int count) {
        IntStream.range(0, count).parallel().forEach(i -> admin.configMaps().inNamespace(objectsNamespace())
                .resource(new ConfigMapBuilder().withNewMetadata().withName("cm-" + i).endMetadata()
                        .addToData("key", "value-" + i).build()).create());
    }

    /** All {@code objects} on one of {@code available}, each of them with some, none in drain or unassigned. */
    public boolean isSettledOn(Set<String> available, int objects) {
        return unsettled(available, objects).isEmpty();
    }

    private List<String> unsettled(Set<String> available, int objects) {
        List<String> problems = new ArrayList<>(unsettled(available));
        int count = configMaps().size();
        if (count != objects) {
            problems.add(count + " objects, expected " + objects);
        }
        return problems;
    }

    /**
     * Waits until {@link #isSettledOn} holds within {@code timeout}, then checks that it still does
     * throughout 2 s; a failure shows what is not settled, the objects per shard, the Lease states and
     * {@code context} (logs).
     */
    public void awaitSettledOn(Set<String> available, int objects, Duration timeout, Supplier<String> context) {
        awaitSettled(available, timeout, Duration.ofSeconds(2), () -> unsettled(available, objects), context);
    }

    /** The checksum controller's Secrets: one per ConfigMap once each has been reconciled. */
    public long checksumSecrets() {
        return admin.secrets().inNamespace(objectsNamespace()).list().getItems().stream()
                .filter(secret -> secret.getMetadata().getName().startsWith("checksums-")).count();
    }

    /** Waits until every one of {@code objects} ConfigMaps has its Secret: assigned is not yet reconciled. */
    public void awaitChecksumSecrets(int objects, Duration timeout, Supplier<String> context) {
        Waiting.until(timeout, () -> "every ConfigMap has its Secret\n" + context.get(), () -> checksumSecrets() == objects);
    }
}
