package dev.ringmaster.sharder.interpreter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.OwnerReference;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.spi.PartitionKey;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DefaultResourceInterpreterTest {

    private final DefaultResourceInterpreter interpreter = new DefaultResourceInterpreter();
    private static final RingResource CONFIGMAPS = new RingResource("", "configmaps", Role.MAIN);
    private static final RingResource SECRETS = new RingResource("", "secrets", Role.CONTROLLED);

    @Test
    void mainObjectsAreKeyedByGroupKindNamespaceAndName() {
        assertThat(interpreter.keyFor(ObjectReference.of("", "v1", "ConfigMap", "default", "foo"), CONFIGMAPS))
                .isEqualTo(PartitionKey.key("/ConfigMap/default/foo"));
        assertThat(interpreter.keyFor(ObjectReference.of("apps", "v1", "Deployment", "default", "web"),
                new RingResource("apps", "deployments", Role.MAIN)))
                .isEqualTo(PartitionKey.key("apps/Deployment/default/web"));
    }

    @Test
    void clusterScopedObjectsHaveAnEmptyNamespace() {
        assertThat(interpreter.keyFor(ObjectReference.of("", "v1", "Namespace", "", "team-a"),
                new RingResource("", "namespaces", Role.MAIN)))
                .isEqualTo(PartitionKey.key("/Namespace//team-a"));
    }

    @Test
    void generateNameWithoutNameCannotBeKeyed() {
        var object = new ObjectReference("", "v1", "ConfigMap", "default", "", "cfg-", Map.of(), List.of());
        assertThat(interpreter.keyFor(object, CONFIGMAPS)).isInstanceOfSatisfying(PartitionKey.Invalid.class,
                invalid -> assertThat(invalid.message()).contains("generateName alone (\"cfg-\")", "set metadata.name"));
    }

    @Test
    void controlledObjectsTakeTheirControllersKey() {
        var secret = new ObjectReference("", "v1", "Secret", "default", "", "checksums-", Map.of(), List.of(
                new OwnerReference("v1", "Pod", "unrelated", false),
                new OwnerReference("v1", "ConfigMap", "foo", true)));
        assertThat(interpreter.keyFor(secret, SECRETS)).isEqualTo(PartitionKey.key("/ConfigMap/default/foo"));
    }

    @Test
    void controlledObjectsWithoutControllerAreNotAssigned() {
        var orphan = new ObjectReference("", "v1", "Secret", "default", "s", "", Map.of(),
                List.of(new OwnerReference("v1", "ConfigMap", "foo", false)));
        assertThat(interpreter.keyFor(orphan, SECRETS)).isInstanceOf(PartitionKey.NotAssigned.class);
    }
}
