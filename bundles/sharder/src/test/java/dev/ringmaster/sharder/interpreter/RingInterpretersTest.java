package dev.ringmaster.sharder.interpreter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.OwnerReference;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.model.ClusterRingSpec;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.model.RingResourceSpec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each ring resource keyed by the interpreter it names, or the sharder's default. */
class RingInterpretersTest {

    /** Keys every object by its namespace, as the namespace interpreter plug-in does. */
    private static final ResourceInterpreter BY_NAMESPACE = (object, resource) -> PartitionKey.key(object.namespace());

    private final Map<String, ResourceInterpreter> bound = new HashMap<>(Map.of(
            "default", new DefaultResourceInterpreter(), "namespace", BY_NAMESPACE));
    private final RingInterpreters interpreters = new RingInterpreters(bound::get, () -> "default");

    private final ClusterRingSpec spec = new ClusterRingSpec();

    RingInterpretersTest() {
        RingResourceSpec configMaps = new RingResourceSpec("", "configmaps", List.of(new GroupResource("", "secrets")));
        configMaps.setInterpreter("namespace");
        spec.setResources(List.of(configMaps, new RingResourceSpec("apps", "deployments",
                List.of(new GroupResource("apps", "replicasets")))));
    }

    @Test
    void eachResourceAndWhatItControlsUseTheNamedInterpreterOrTheDefault() {
        ResourceInterpreter keys = interpreters.forRing(spec).orElseThrow();

        assertThat(keys.keyFor(ObjectReference.of("", "v1", "ConfigMap", "shop", "cm"),
                new RingResource("", "configmaps", Role.MAIN))).isEqualTo(PartitionKey.key("shop"));
        assertThat(keys.keyFor(new ObjectReference("", "v1", "Secret", "shop", "s", "", Map.of(),
                List.of(new OwnerReference("v1", "ConfigMap", "cm", true))), new RingResource("", "secrets", Role.CONTROLLED)))
                .isEqualTo(PartitionKey.key("shop"));
        assertThat(keys.keyFor(ObjectReference.of("apps", "v1", "Deployment", "shop", "web"),
                new RingResource("apps", "deployments", Role.MAIN))).isEqualTo(PartitionKey.key("apps/Deployment/shop/web"));
        assertThat(keys.keyFor(ObjectReference.of("", "v1", "Pod", "shop", "p"), new RingResource("", "pods", Role.MAIN)))
                .isInstanceOf(PartitionKey.NotAssigned.class);
    }

    @Test
    void aRingWithAMissingInterpreterHasNoneAndSaysWhichIsMissing() {
        bound.remove("namespace");

        assertThat(interpreters.forRing(spec)).isEmpty();
        assertThat(interpreters.missing(spec)).containsExactly("namespace");

        bound.remove("default");
        assertThat(interpreters.missing(spec)).containsExactly("default", "namespace");
    }
}
