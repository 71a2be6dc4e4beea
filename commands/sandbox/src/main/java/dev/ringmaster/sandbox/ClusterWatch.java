package dev.ringmaster.sandbox;

import dev.ringmaster.examples.checksum.ChecksumReconciler;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
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
 * {@link MoveCounter} fed by every ConfigMap event. In range mode an object's shard is not a label but
 * the shard whose {@code ringmaster.dev/served-ranges} hold FNV-1a 64 of its uid
 * ({@link Snapshot#owner}): moves are fed by every Lease event too, and every update of a ConfigMap
 * after its creation counts as a write (nobody may write one: the sharder only writes Leases). The result is read with fresh lists instead
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
    private final boolean rangeMode;
    private final java.util.concurrent.atomic.AtomicLong configMapWrites = new java.util.concurrent.atomic.AtomicLong();
    private final SharedIndexInformer<ConfigMap> configMaps;
    private final SharedIndexInformer<Secret> secrets;
    /** Set last in the constructor; the handlers of the ConfigMaps may run before. */
    private volatile SharedIndexInformer<Lease> leases;

    ClusterWatch(KubernetesClient client, RingKind kind, String ring, String namespace, String leaseNamespace) {
        this(client, kind, ring, namespace, leaseNamespace, false);
    }

    /** @param rangeMode whether the ring is in range mode: objects belong to the shard serving their hash */
    ClusterWatch(KubernetesClient client, RingKind kind, String ring, String namespace, String leaseNamespace,
            boolean rangeMode) {
        this.client = client;
        this.rangeMode = rangeMode;
        this.namespace = namespace;
        this.leaseNamespace = leaseNamespace;
        this.ring = ring;
        this.shardLabel = kind.shardLabel(ring);
        this.drainLabel = kind.drainLabel(ring);
        this.leaseLabel = kind.leaseLabel();
        this.configMaps = client.configMaps().inNamespace(namespace).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap configMap) {
                moves.observe(configMap.getMetadata().getName(), shardOf(configMap));
            }

            @Override
            public void onUpdate(ConfigMap oldConfigMap, ConfigMap newConfigMap) {
                if (rangeMode && !Objects.equals(oldConfigMap.getMetadata().getResourceVersion(),
                        newConfigMap.getMetadata().getResourceVersion())) {
                    configMapWrites.incrementAndGet();
                }
                moves.observe(newConfigMap.getMetadata().getName(), shardOf(newConfigMap));
            }

            @Override
            public void onDelete(ConfigMap configMap, boolean deletedFinalStateUnknown) {
                moves.forget(configMap.getMetadata().getName());
            }
        });
        this.secrets = client.secrets().inNamespace(namespace).inform();
        this.leases = rangeMode
                ? client.leases().inNamespace(leaseNamespace).withLabel(leaseLabel, ring).inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(Lease lease) {
                        observeOwners();
                    }

                    @Override
                    public void onUpdate(Lease oldLease, Lease newLease) {
                        observeOwners();
                    }

                    @Override
                    public void onDelete(Lease lease, boolean deletedFinalStateUnknown) {
                        observeOwners();
                    }
                })
                : client.leases().inNamespace(leaseNamespace).withLabel(leaseLabel, ring).inform();
    }

    /** Range mode: ConfigMap updates seen after their creation (each a write by someone; must stay 0). */
    long configMapWrites() {
        return configMapWrites.get();
    }

    /** The shard an object is on now: its shard label, or in range mode the owner of its hash. */
    private String shardOf(ConfigMap configMap) {
        if (!rangeMode) {
            return labels(configMap).get(shardLabel);
        }
        SharedIndexInformer<Lease> informer = leases;
        return informer == null ? null : owner(configMap, leaseStates(informer.getStore().list()));
    }

    /** Range mode, after a Lease event: the owner of every ConfigMap, for the move counter. */
    private void observeOwners() {
        SharedIndexInformer<Lease> informer = leases;
        if (informer == null) {
            return;
        }
        List<Snapshot.LeaseState> states = leaseStates(informer.getStore().list());
        for (ConfigMap configMap : configMaps.getStore().list()) {
            moves.observe(configMap.getMetadata().getName(), owner(configMap, states));
        }
    }

    private static String owner(ConfigMap configMap, Collection<Snapshot.LeaseState> leases) {
        return Snapshot.owner(RangeKey.UID.hash(configMap.getMetadata().getUid(), configMap.getMetadata().getNamespace()),
                leases);
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
        List<Snapshot.LeaseState> states = leaseStates(leases);
        List<Snapshot.ObjectState> objects = new ArrayList<>();
        for (ConfigMap configMap : configMaps) {
            String name = configMap.getMetadata().getName();
            String label = emptyToNull(labels(configMap).get(shardLabel));
            boolean draining = labels(configMap).containsKey(drainLabel);
            String shard = rangeMode ? owner(configMap, states) : label;
            Secret secret = secretsByName.get(ChecksumReconciler.secretName(name));
            boolean secretInSync = secret != null && ChecksumReconciler.isUpToDate(configMap, secret)
                    && Objects.equals(label, emptyToNull(labels(secret).get(shardLabel)));
            objects.add(new Snapshot.ObjectState(name, shard, draining, secretInSync,
                    rangeMode && (label != null || draining)));
        }
        return Snapshot.of(namespace, objects, states);
    }

    private List<Snapshot.LeaseState> leaseStates(Collection<Lease> leases) {
        List<Snapshot.LeaseState> states = new ArrayList<>();
        for (Lease lease : leases) {
            String holder = lease.getSpec() == null ? null : emptyToNull(lease.getSpec().getHolderIdentity());
            Map<String, String> annotations = lease.getMetadata().getAnnotations() == null ? Map.of()
                    : lease.getMetadata().getAnnotations();
            states.add(new Snapshot.LeaseState(lease.getMetadata().getName(),
                    emptyToNull(labels(lease).get(RingContract.STATE_LABEL)), holder,
                    ranges(annotations.get(RingContract.ASSIGNED_RANGES_ANNOTATION)),
                    ranges(annotations.get(RingContract.SERVED_RANGES_ANNOTATION)),
                    Balancing.busy(annotations.get(RingContract.LOAD_ANNOTATION))));
        }
        return states;
    }

    /** An annotation's ranges; none when it is absent or unreadable (the sharder warns about those). */
    private static RangeSet ranges(String annotation) {
        try {
            return RangeSet.parse(annotation);
        } catch (IllegalArgumentException e) {
            return RangeSet.EMPTY;
        }
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
