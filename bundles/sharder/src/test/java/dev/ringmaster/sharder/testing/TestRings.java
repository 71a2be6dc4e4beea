package dev.ringmaster.sharder.testing;

import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.ControllerRing;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.model.RingResourceSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.List;

/** ClusterRing objects as tests write them. */
public final class TestRings {

    private TestRings() {
    }

    public static ClusterRing ring(String name, RingResourceSpec... resources) {
        ClusterRing ring = new ClusterRing();
        ring.setMetadata(new ObjectMetaBuilder().withName(name).build());
        ring.getSpec().setResources(new ArrayList<>(List.of(resources)));
        return ring;
    }

    public static RingResourceSpec main(String group, String resource, GroupResource... controlled) {
        return new RingResourceSpec(group, resource, new ArrayList<>(List.of(controlled)));
    }

    /** A ring over ConfigMaps and the Secrets they control, the example controller's. */
    public static ClusterRing configMapRing(String name) {
        return ring(name, main("", "configmaps", new GroupResource("", "secrets")));
    }

    /** A ControllerRing over ConfigMaps and the Secrets they control, the example controller's. */
    public static ControllerRing configMapControllerRing(String name) {
        ControllerRing ring = new ControllerRing();
        ring.setMetadata(new ObjectMetaBuilder().withName(name).build());
        ring.setSpec(configMapRing(name).getSpec());
        return ring;
    }

    /** The same ring naming its strategy in {@code spec.strategy}. */
    public static ClusterRing configMapRing(String name, String strategy) {
        ClusterRing ring = configMapRing(name);
        ring.getSpec().setStrategy(strategy);
        return ring;
    }
}
