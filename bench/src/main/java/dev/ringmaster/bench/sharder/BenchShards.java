package dev.ringmaster.bench.sharder;

import dev.ringmaster.bench.BenchCluster;
import dev.ringmaster.kubernetes.client.EventHandlers;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.shard.client.Sharding;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Shards played by the bench itself, where shard processes would make the measurement take longer
 * than it can: each holds its Lease with shard-client's {@code ShardLease} (renewed as a shard renews
 * it, released when it stops) and hands drained objects back with shard-client's
 * {@code DrainAcknowledger} (both labels removed in one patch pinned to the resourceVersion read), as
 * its own ServiceAccount, on a pool shared by all shards. They reconcile nothing and cache only the
 * objects in drain.
 */
final class BenchShards implements AutoCloseable {

    private final BenchCluster cluster;
    private final String ring;
    private final String namespace;
    private final String shardLabel;
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    private final ExecutorService handingBack;
    private final SharedIndexInformer<ConfigMap> draining;
    private final AtomicLong failures = new AtomicLong();

    private record Running(KubernetesClient client, Sharding sharding) {
    }

    BenchShards(BenchCluster cluster, String ring, String namespace, int threads) {
        this.cluster = cluster;
        this.ring = ring;
        this.namespace = namespace;
        this.shardLabel = RingContract.shardLabel(ring);
        this.handingBack = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "bench-shard-hand-back");
            thread.setDaemon(true);
            return thread;
        });
        this.draining = cluster.admin().configMaps().inNamespace(namespace).withLabel(RingContract.drainLabel(ring))
                .inform(EventHandlers.handler(this::handBack, gone -> { }));
    }

    /** The shard takes its Lease (and renews it from now on). */
    void start(String shard) {
        KubernetesClient client = cluster.clientAs(namespace, shard);
        Sharding sharding = Sharding.forRing(ring).shard(shard).namespace(namespace).client(client)
                .listener(() -> { }).build();
        running.put(shard, new Running(client, sharding));
        sharding.lease().start();
    }

    /** The shard stops as on SIGTERM: it releases its Lease. */
    void stop(String shard) {
        Running stopped = running.remove(shard);
        stopped.sharding().close();
        stopped.client().close();
    }

    /** Hand-backs that failed other than by a conflict (DrainAcknowledger retries those). */
    long failures() {
        return failures.get();
    }

    private void handBack(ConfigMap configMap) {
        Map<String, String> labels = configMap.getMetadata().getLabels();
        Running shard = labels == null ? null : running.get(labels.get(shardLabel));
        if (shard != null) {
            handingBack.execute(() -> {
                try {
                    shard.sharding().drainAcknowledger().acknowledgeIfDraining(configMap);
                } catch (RuntimeException e) {
                    failures.incrementAndGet();
                }
            });
        }
    }

    @Override
    public void close() throws InterruptedException {
        draining.close();
        handingBack.shutdown();
        handingBack.awaitTermination(10, TimeUnit.SECONDS);
        running.keySet().forEach(this::stop);
    }
}
