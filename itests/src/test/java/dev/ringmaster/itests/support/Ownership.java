package dev.ringmaster.itests.support;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.testing.apiserver.Fnv1a;
import dev.ringmaster.testing.apiserver.HashRanges;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Who may reconcile each ConfigMap of a namespace, sampled from watch caches while a test switches a ring between
 * label and range mode (issue 34): a shard of its label (the ConfigMap carries the ring's shard label naming a shard
 * that holds its Lease and announces no ranges on it) or a shard of its range (a shard holding its Lease whose
 * {@code served-ranges} hold the FNV-1a hash of the ConfigMap's uid, computed here independently). Records per
 * ConfigMap the longest time it had neither. A range shard claims a range before it starts serving it, so the times
 * are short of the real ones by a shard's informer start.
 */
public final class Ownership implements AutoCloseable {

    private static final Duration EVERY = Duration.ofMillis(200);

    private final String shardLabel;
    private final SharedIndexInformer<ConfigMap> configMaps;
    private final SharedIndexInformer<Lease> leases;
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    /** Since when each ConfigMap had no owner, in nanoseconds, while it has none. */
    private final Map<String, Long> ownerlessSince = new HashMap<>();
    /** The longest time each ConfigMap that lost its owner went without, in milliseconds. */
    private final Map<String, Long> longest = new HashMap<>();

    public Ownership(KubernetesClient admin, String namespace, String shardLabel) {
        this.shardLabel = shardLabel;
        this.configMaps = admin.configMaps().inNamespace(namespace).inform();
        this.leases = admin.leases().inNamespace(namespace).inform();
        sampler.scheduleWithFixedDelay(this::sample, 0, EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    private synchronized void sample() {
        long now = System.nanoTime();
        Set<String> byLabels = new HashSet<>();
        List<List<BigInteger[]>> served = new ArrayList<>();
        for (Lease lease : leases.getStore().list()) {
            if (!lease.getMetadata().getName().equals(lease.getSpec().getHolderIdentity())) {
                continue; // released, or taken over by the sharder: its shard reconciles nothing
            }
            Map<String, String> annotations = lease.getMetadata().getAnnotations();
            String ranges = annotations == null ? null : annotations.get(RingContract.SERVED_RANGES_ANNOTATION);
            if (ranges == null) {
                byLabels.add(lease.getMetadata().getName());
            } else if (!ranges.isBlank()) {
                served.add(HashRanges.parse(ranges));
            }
        }
        for (ConfigMap configMap : configMaps.getStore().list()) {
            String name = configMap.getMetadata().getName();
            Map<String, String> labels = configMap.getMetadata().getLabels();
            BigInteger hash = HashRanges.unsigned(Fnv1a.fnv1a64(configMap.getMetadata().getUid()));
            boolean owned = labels != null && byLabels.contains(labels.get(shardLabel))
                    || served.stream().anyMatch(ranges -> covers(ranges, hash));
            if (!owned) {
                ownerlessSince.putIfAbsent(name, now);
            } else {
                Long since = ownerlessSince.remove(name);
                if (since != null) {
                    longest.merge(name, TimeUnit.NANOSECONDS.toMillis(now - since), Math::max);
                }
            }
        }
    }

    private static boolean covers(List<BigInteger[]> ranges, BigInteger hash) {
        return ranges.stream().anyMatch(range -> hash.compareTo(range[0]) >= 0 && hash.compareTo(range[1]) < 0);
    }

    /** The longest time any ConfigMap went without an owner so far, counting those without one now. */
    public synchronized Duration longestWithoutOwner() {
        long now = System.nanoTime();
        long max = longest.values().stream().mapToLong(Long::longValue).max().orElse(0);
        for (long since : ownerlessSince.values()) {
            max = Math.max(max, TimeUnit.NANOSECONDS.toMillis(now - since));
        }
        return Duration.ofMillis(max);
    }

    /** How many ConfigMaps went without an owner for how long, in whole seconds (rounded up), for the report. */
    public synchronized Map<Long, Long> histogram() {
        Map<Long, Long> seconds = new TreeMap<>();
        longest.values().forEach(millis -> seconds.merge((millis + 999) / 1000, 1L, Long::sum));
        return seconds;
    }

    /** The ConfigMaps without an owner now. */
    public synchronized Set<String> ownerless() {
        return Set.copyOf(ownerlessSince.keySet());
    }

    /** Forgets what was recorded: the next phase of a test starts afresh. */
    public synchronized void reset() {
        ownerlessSince.clear();
        longest.clear();
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        configMaps.close();
        leases.close();
    }
}
