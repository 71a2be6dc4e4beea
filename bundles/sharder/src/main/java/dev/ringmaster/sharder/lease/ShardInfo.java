package dev.ringmaster.sharder.lease;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.LeaseDetector;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One shard of a ring as the shard lease controller last classified it.
 *
 * @param name   the Lease (and shard) name
 * @param state  the lease detector's verdict
 * @param weight from the {@code ringmaster.dev/weight} annotation, 1 when absent or invalid
 */
public record ShardInfo(String name, ShardState state, int weight) {

    public ShardInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
    }

    /**
     * The shard of a Lease as {@code detector} judges it at {@code now}, with its weight, for a reader
     * beside the sharder: as the shard lease controller judges it, without a leader's term grace and
     * without reporting an invalid weight.
     */
    public static ShardInfo judge(Lease lease, LeaseDetector detector, Instant now) {
        Map<String, String> annotations = lease.getMetadata().getAnnotations();
        String weight = annotations == null ? null : annotations.get(RingContract.WEIGHT_ANNOTATION);
        return new ShardInfo(lease.getMetadata().getName(),
                detector.detect(ShardLeaseReconciler.toRecord(lease), now).state(),
                ShardWeight.parse(weight).orElse(ShardWeight.DEFAULT));
    }

    public boolean isAvailable() {
        return state.isAvailable();
    }

    public Shard toShard() {
        return new Shard(name, weight);
    }
}
