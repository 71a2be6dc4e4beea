package dev.ringmaster.sharder.rebalance;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.RingSnapshot;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where objects of one ring belong now: the ring's labels, the shards its snapshot makes available,
 * and the interpreter that keys objects. The sharder controller builds one per pass, the
 * unassigned-object watch one per assignment; both decide moves through it.
 */
public final class Placement {

    private static final Logger LOG = LoggerFactory.getLogger(Placement.class);

    private final String shardLabel;
    private final String drainLabel;
    private final RingSnapshot snapshot;
    private final ResourceInterpreter keys;
    private final Set<String> available;

    public Placement(RingSnapshot snapshot, ResourceInterpreter keys) {
        this.shardLabel = RingContract.shardLabel(snapshot.ring());
        this.drainLabel = RingContract.drainLabel(snapshot.ring());
        this.snapshot = snapshot;
        this.keys = keys;
        this.available = snapshot.shards().shards().stream().map(Shard::name).collect(Collectors.toSet());
    }

    /** The move that puts the object where it belongs (docs/design.md section 5). */
    public Move moveOf(ObjectReference object, RingResource resource) {
        return Move.decide(object.labels(), shardLabel, drainLabel, resource.role(), desired(object, resource),
                available);
    }

    /** The labels to write for the move, given the object's current labels. */
    public Map<String, String> labelChanges(Move move, ObjectReference object) {
        return move.labelChanges(object.labels(), shardLabel, drainLabel);
    }

    public String drainLabel() {
        return drainLabel;
    }

    private Optional<String> desired(ObjectReference object, RingResource resource) {
        PartitionKey key = keys.keyFor(object, resource);
        if (key instanceof PartitionKey.Key found) {
            return snapshot.shardFor(found.value());
        }
        if (key instanceof PartitionKey.Invalid invalid) {
            LOG.warn("skipping {}/{}: {}", object.namespace(), object.name(), invalid.message());
        }
        return Optional.empty();
    }
}
