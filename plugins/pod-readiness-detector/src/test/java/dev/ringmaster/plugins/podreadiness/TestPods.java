package dev.ringmaster.plugins.podreadiness;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** Shard Pods as the kubelet reports them, and a namespace per test. */
final class TestPods {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private TestPods() {
    }

    static String newNamespace() {
        return "pod-readiness-test-" + NAMESPACES.incrementAndGet();
    }

    /** Creates a Pod and sets its Ready condition. */
    static Pod create(KubernetesClient client, String namespace, String name, boolean ready, Map<String, String> labels) {
        client.pods().inNamespace(namespace).resource(new PodBuilder()
                .withNewMetadata().withNamespace(namespace).withName(name).withLabels(labels).endMetadata()
                .withNewSpec().addNewContainer().withName("shard").withImage("shard:1").endContainer().endSpec()
                .build()).create();
        return setReady(client, namespace, name, ready);
    }

    static Pod create(KubernetesClient client, String namespace, String name, boolean ready) {
        return create(client, namespace, name, ready, Map.of("app", "shard"));
    }

    /** What the kubelet writes when the readiness probe passes or fails. */
    static Pod setReady(KubernetesClient client, String namespace, String name, boolean ready) {
        return client.pods().inNamespace(namespace).withName(name).editStatus(pod -> new PodBuilder(pod)
                .withNewStatus()
                    .withPhase("Running")
                    .addNewCondition().withType("PodScheduled").withStatus("True").endCondition()
                    .addNewCondition().withType("ContainersReady").withStatus(ready ? "True" : "False").endCondition()
                    .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition()
                .endStatus()
                .build());
    }

    static void delete(KubernetesClient client, String namespace, String name) {
        client.pods().inNamespace(namespace).withName(name).delete();
    }
}
