package dev.ringmaster.ring.balancer;

import dev.ringmaster.ring.spi.Placement;
import dev.ringmaster.ring.spi.PlacementPolicy;
import dev.ringmaster.ring.spi.PlacementRequest;
import org.osgi.service.component.annotations.Component;

/**
 * The {@value #NAME} placement policy: ranges without a shard and joining shards first, then, on a load step, the
 * hottest shards' ranges to the coldest ones; no settings (the ring's request carries them). The rules are
 * {@link LoadAwareBalancer}'s; docs/strategies.md describes them.
 */
@Component(property = PlacementPolicy.NAME + "=" + LoadAwarePolicy.NAME)
public class LoadAwarePolicy implements PlacementPolicy {

    public static final String NAME = "load-aware";

    @Override
    public Placement place(PlacementRequest request) {
        return LoadAwareBalancer.place(request);
    }
}
