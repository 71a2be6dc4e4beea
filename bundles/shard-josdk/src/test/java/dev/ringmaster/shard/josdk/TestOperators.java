package dev.ringmaster.shard.josdk;

import dev.ringmaster.shard.client.Sharding;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;

/** The sharded operators of the tests: on the test's client, which the test closes, each controller in one namespace. */
final class TestOperators {

    private TestOperators() {
    }

    static ShardedOperator operator(Sharding sharding, KubernetesClient client) {
        return ShardedOperator.builder(sharding)
                .configuration(o -> o.withKubernetesClient(client).withCloseClientOnStop(false))
                .build();
    }

    /** Registers {@code reconciler}, watching {@code namespace}, and starts the operator. */
    static void start(ShardedOperator operator, String namespace, Reconciler<ConfigMap> reconciler) {
        operator.register(reconciler, controller -> controller.settingNamespace(namespace));
        operator.start();
    }
}
