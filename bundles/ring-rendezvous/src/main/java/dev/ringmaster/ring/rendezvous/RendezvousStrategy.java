package dev.ringmaster.ring.rendezvous;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import java.util.Collection;
import org.osgi.service.component.annotations.Component;

/** The {@value #NAME} strategy: weighted rendezvous hashing, no settings. */
@Component(property = PartitioningStrategy.NAME + "=" + RendezvousStrategy.NAME)
public class RendezvousStrategy implements PartitioningStrategy {

    public static final String NAME = "rendezvous";

    @Override
    public ShardRing build(Collection<Shard> shards) {
        return RendezvousRing.build(shards);
    }
}
