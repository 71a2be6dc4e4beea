package dev.ringmaster.sandbox;

import dev.ringmaster.examples.checksum.ChecksumReconciler;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The sandbox's eyes: informers on the ring's ConfigMaps, their Secrets and the shard Leases, from
 * which it takes {@link Snapshot}s for the live view and the scenarios' conditions, and a
 * {@link MoveCounter} fed by every ConfigMap event. The result is read with fresh lists instead
 * ({@link #list()}), so it never depends on a watch's delay.
 */
final class ClusterWatch implements AutoCloseable {

    private final KubernetesClient client;
    private final String namespace;
    private final String leaseNamespace;
    private final String ring;
    private final String shardLabel;
    private final String drainLabel;
    private final String leaseLabel;
    private final MoveCounter moves = new MoveCounter();
    private final SharedIndexInformer<ConfigMap> configMaps;
    private final SharedIndexInformer<Secret> secrets;
    private final SharedIndexInformer<Lease> leases;

    ClusterWatch(KubernetesClient client, RingKind kind, String ring, String namespace, String leaseNamespace) {
        this.client = client;
        this.namespace = namespace;
        this.leaseNamespace = leaseNamespace;
        this.ring = ring;
        this.shardLabel = kind.shardLabel(ring);
        this.drainLabel = kind.drainLabel(ring);
        this.leaseLabel = kind.leaseLabel();
        this.configMaps = client.configMaps().inNamespace(namespace).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap configMap) {
                moves.observe(configMap.getMetadata().getName(), labels(configMap).get(shardLabel));
            }

            @Override
            public void onUpdate(ConfigMap oldConfigMap, ConfigMap newConfigMap) {
                moves.observe(newConfigMap.getMetadata().getName(), labels(newConfigMap).get(shardLabel));
            }

            @Override
            public void onDelete(ConfigMap configMap, boolean deletedFinalStateUnknown) {
                moves.forget(configMap.getMetadata().getName());
            }
        });
        this.secrets = client.secrets().inNamespace(namespace).inform();
        this.leases = client.leases().inNamespace(leaseNamespace).withLabel(leaseLabel, ring).inform();
    }

    /** Shard-label changes away from a shard seen so far. */
    long moves() {
        return moves.moves();
    }

    /** The state the informers hold now. */
    Snapshot snapshot() {
        return snapshot(configMaps.getStore().list(), secrets.getStore().list(), leases.getStore().list());
    }

    /** The state the API server holds now, read with fresh list requests. */
    Snapshot list() {
        return snapshot(client.configMaps().inNamespace(namespace).list().getItems(),
                client.secrets().inNamespace(namespace).list().getItems(),
                client.leases().inNamespace(leaseNamespace).withLabel(leaseLabel, ring).list().getItems());
    }

    private Snapshot snapshot(Collection<ConfigMap> configMaps, Collection<Secret> secrets, Collection<Lease> leases) {
        Map<String, Secret> secretsByName = new HashMap<>();
        secrets.forEach(secret -> secretsByName.put(secret.getMetadata().getName(), secret));
        List<Snapshot.ObjectState> objects = new ArrayList<>();
        for (ConfigMap configMap : configMaps) {
            String name = configMap.getMetadata().getName();
            String shard = emptyToNull(labels(configMap).get(shardLabel));
            Secret secret = secretsByName.get(ChecksumReconciler.secretName(name));
            boolean secretInSync = secret != null && ChecksumReconciler.isUpToDate(configMap, secret)
                    && Objects.equals(shard, emptyToNull(labels(secret).get(shardLabel)));
            objects.add(new Snapshot.ObjectState(name, shard, labels(configMap).containsKey(drainLabel), secretInSync));
        }
        List<Snapshot.LeaseState> states = new ArrayList<>();
        for (Lease lease : leases) {
            String holder = lease.getSpec() == null ? null : emptyToNull(lease.getSpec().getHolderIdentity());
            states.add(new Snapshot.LeaseState(lease.getMetadata().getName(),
                    emptyToNull(labels(lease).get(RingContract.STATE_LABEL)), holder));
        }
        return Snapshot.of(namespace, objects, states);
    }

    @Override
    public void close() {
        configMaps.close();
        secrets.close();
        leases.close();
    }

    private static Map<String, String> labels(HasMetadata object) {
        Map<String, String> labels = object.getMetadata().getLabels();
        return labels == null ? Map.of() : labels;
    }

    private static String emptyToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }
}
