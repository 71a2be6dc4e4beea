package dev.ringmaster.testing.rings;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;

/** The rings and shard Leases a test or a benchmark writes itself, as an operator or a live shard would. */
public final class Rings {

    private Rings() {
    }

    /** Creates (or replaces) a ring of the kind from the YAML of its {@code spec}, indented by two spaces. */
    public static void apply(KubernetesClient client, RingKind kind, String name, String spec) {
        client.resource(client.getKubernetesSerialization().unmarshal("""
                apiVersion: %s/%s
                kind: %s
                metadata:
                  name: %s
                spec:
                %s""".formatted(RingContract.API_GROUP, RingContract.API_VERSION, kind.kind(), name, spec),
                GenericKubernetesResource.class)).forceConflicts().serverSideApply();
    }

    /**
     * A ring over the ConfigMaps of {@code namespace} alone (and, with {@code controlsSecrets}, the
     * Secrets they control, as docs/install.md's ring has them).
     */
    public static void configMapRing(KubernetesClient client, RingKind kind, String ring, String namespace,
            boolean controlsSecrets) {
        String controlled = controlsSecrets ? "    controlledResources:\n    - group: \"\"\n      resource: secrets\n" : "";
        apply(client, kind, ring, """
                  resources:
                  - group: ""
                    resource: configmaps
                %s  namespaceSelector:
                    matchLabels: {kubernetes.io/metadata.name: %s}
                """.formatted(controlled, namespace));
    }

    /**
     * A shard's Lease as a live shard keeps it: held by the shard, labelled with the ring, renewed now
     * for an hour, longer than any test. Nothing renews it afterwards.
     */
    public static void liveShardLease(KubernetesClient client, RingKind kind, String namespace, String shard, String ring) {
        liveShardLease(client, kind, namespace, shard, ring, Map.of());
    }

    /**
     * The same with {@code annotations}, e.g. {@code ringmaster.dev/served-ranges} empty for a shard in range mode
     * serving nothing yet.
     */
    public static void liveShardLease(KubernetesClient client, RingKind kind, String namespace, String shard, String ring,
            Map<String, String> annotations) {
        Duration duration = Duration.ofHours(1);
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        client.leases().inNamespace(namespace).resource(new LeaseBuilder().withNewMetadata().withName(shard)
                .addToLabels(kind.leaseLabel(), ring).addToAnnotations(annotations).endMetadata()
                .withNewSpec().withHolderIdentity(shard).withLeaseDurationSeconds((int) duration.toSeconds())
                .withAcquireTime(now).withRenewTime(now).endSpec().build()).forceConflicts().serverSideApply();
    }
}
