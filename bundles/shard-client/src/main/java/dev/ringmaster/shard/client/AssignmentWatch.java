package dev.ringmaster.shard.client;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Range mode: a watch on the shard's own Lease, so that the shard acts on a change of its assignment
 * when the sharder writes it, not at its next renewal (a scale-out's handover is two such steps, one on
 * the shards giving ranges up and one on the shard taking them). Started when the lease is first
 * acquired. Without permission to list and watch Leases it says so once, and the shard reads its
 * assignment at each renewal only.
 */
final class AssignmentWatch implements ShardLease.Listener, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AssignmentWatch.class);

    private final SharedIndexInformer<Lease> informer;
    private final AtomicBoolean started = new AtomicBoolean();

    AssignmentWatch(KubernetesClient client, String namespace, String shard, ShardRanges ranges) {
        informer = client.leases().inNamespace(namespace).withField("metadata.name", shard).runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Lease lease) {
                ranges.watched(lease);
            }

            @Override
            public void onUpdate(Lease before, Lease lease) {
                ranges.watched(lease);
            }

            @Override
            public void onDelete(Lease lease, boolean finalStateUnknown) {
                // the lease's next renewal finds it gone and fences the shard
            }
        });
        AtomicBoolean warned = new AtomicBoolean();
        informer.exceptionHandler((wasStarted, failure) -> {
            if (warned.compareAndSet(false, true)) {
                LOG.warn("Shard {}: cannot watch its Lease {}/{} (RBAC: list and watch on leases), so it reads its"
                        + " ranges when it renews the Lease; retrying: {}", shard, namespace, shard, failure.toString());
            }
            return true;
        });
    }

    @Override
    public void onAcquired() {
        if (started.compareAndSet(false, true)) {
            informer.start();
        }
    }

    @Override
    public void onLost() {
        // the watch stays: held again, the shard acts on it at once
    }

    @Override
    public void close() {
        informer.close();
    }
}
