package dev.ringmaster.sharder.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.sharder.testing.TestLeases;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Autoscaling on a real API server (docs/design.md section 10.1): a StatefulSet of shards (no pod runs on a bare API
 * server, but its scale subresource works) and three shard Leases that the test renews with load reports it sets.
 * The leader scales the StatefulSet's spec.replicas up as soon as the load rises, down only after the scale-down
 * window once it falls, and leaves a scale target that does not exist alone, the ring Ready=False with reason
 * ScaleTargetUnavailable.
 */
class RingAutoscalerIT {

    private static final String NAMESPACE = "ring-autoscaler-it";
    private static final String RING = "ring-autoscaler-it";
    private static final int LEASE_SECONDS = 3;
    private static final int SCALE_DOWN_SECONDS = 8;
    private static final List<String> SHARDS = List.of("shard-0", "shard-1", "shard-2");

    private static final RealApiServer CLUSTER = RealApiServer.shared();
    private static final KubernetesClient ADMIN = CLUSTER.admin();

    /** The busy seconds per second each shard reports. */
    private final Map<String, Double> busy = new ConcurrentHashMap<>();

    @Test
    void theStatefulSetFollowsTheReportedLoadUpAtOnceDownAfterTheWindowAndAMissingTargetIsLeftAlone()
            throws Exception {
        RingCrds.install(ADMIN, RingCrds.CLUSTER_RING_CRD);
        ADMIN.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
                .serverSideApply();
        ADMIN.apps().statefulSets().inNamespace(NAMESPACE).resource(new StatefulSetBuilder().withNewMetadata()
                .withName("shards").endMetadata().withNewSpec().withReplicas(3).withServiceName("shards")
                .withNewSelector().addToMatchLabels("app", "shards").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", "shards").endMetadata()
                .withNewSpec().addNewContainer().withName("shard").withImage("example/shard:1").endContainer().endSpec()
                .endTemplate().endSpec().build()).serverSideApply();
        SHARDS.forEach(shard -> busy.put(shard, 0.5));
        for (String shard : SHARDS) {
            TestLeases.create(ADMIN, TestLeases.shardLease(NAMESPACE, shard, RING, Instant.now(), LEASE_SECONDS));
        }
        ring("shards");
        ScheduledExecutorService shards = Executors.newSingleThreadScheduledExecutor();
        try (SharderReplica sharder = TestReplicas.withDefaults(ADMIN, NAMESPACE, "ring-autoscaler-it")) {
            shards.scheduleWithFixedDelay(this::renew, 0, 300, TimeUnit.MILLISECONDS);
            sharder.start();
            await().atMost(Duration.ofSeconds(60)).until(sharder::isLeader);

            // 3 x 0.5 s/s at a target of 0.5 per shard: 3 shards, as there are
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(autoscalingStatus())
                    .containsEntry("currentShards", 3).containsEntry("desiredShards", 3));
            assertThat(replicas()).isEqualTo(3);

            // the load rises to 3 x 0.9 = 2.7 s/s: ceil(2.7 / 0.5) = 6 shards, at once (scale-up window 0)
            SHARDS.forEach(shard -> busy.put(shard, 0.9));
            await().atMost(Duration.ofSeconds(15)).until(() -> replicas() == 6);
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(autoscalingStatus())
                    .containsEntry("currentShards", 6).containsEntry("desiredShards", 6)
                    .containsKey("lastScaleTime"));
            // the test's shards raise their reports one after another: the last step is the one to 6
            assertThat(scaledEvents()).anySatisfy(note -> assertThat(note).contains(" to 6 shards")
                    .contains("total load 2.700 s/s").contains("target 0.50 s/s per shard"));

            // the load falls to 3 x 0.2 = 0.6 s/s: ceil(1.2) = 2 shards, but only after the scale-down window
            Instant fell = Instant.now();
            SHARDS.forEach(shard -> busy.put(shard, 0.2));
            Thread.sleep(SCALE_DOWN_SECONDS * 1000 / 2);
            assertThat(replicas()).as("within the scale-down window").isEqualTo(6);
            await().atMost(Duration.ofSeconds(30)).until(() -> replicas() == 2);
            assertThat(Duration.between(fell, Instant.now())).isGreaterThanOrEqualTo(
                    Duration.ofSeconds(SCALE_DOWN_SECONDS - 1));
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(autoscalingStatus())
                    .containsEntry("currentShards", 2).containsEntry("desiredShards", 2));

            // a scale target that does not exist: Ready=False with its own reason, nothing written
            ring("missing");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                Map<String, Object> ready = readyCondition();
                assertThat(ready).containsEntry("status", "False").containsEntry("reason", "ScaleTargetUnavailable");
                assertThat((String) ready.get("message")).contains("StatefulSet " + NAMESPACE + "/missing (apps/v1)"
                        + " does not exist").contains("sharding with strategy");
            });
            SHARDS.forEach(shard -> busy.put(shard, 0.9));
            Thread.sleep(3000);
            assertThat(replicas()).isEqualTo(2);
            assertThat(ADMIN.apps().statefulSets().inNamespace(NAMESPACE).withName("missing").get()).isNull();

            // the target back: Ready again, and scaled up
            ring("shards");
            await().atMost(Duration.ofSeconds(30)).until(() -> replicas() == 6);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(readyCondition())
                    .containsEntry("status", "True"));
        } finally {
            shards.shutdown();
            shards.awaitTermination(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void removeTheRing() {
        RingCrds.deleteRing(ADMIN, RingCrds.CLUSTER_RING_CRD, RING);
    }

    /** One round of the shards: each renews its Lease with its load report. */
    private void renew() {
        try {
            for (String shard : SHARDS) {
                String report = new LoadReport(Duration.ofSeconds(15), busy.get(shard), 0.0, 10, List.of()).format();
                ADMIN.leases().inNamespace(NAMESPACE).withName(shard).edit(lease -> {
                    lease.getSpec().setRenewTime(TestLeases.utc(Instant.now()));
                    lease.getMetadata().getAnnotations().put(RingContract.LOAD_ANNOTATION, report);
                    return lease;
                });
            }
        } catch (KubernetesClientException e) {
            // a conflict with the sharder's label write, or a slow server: the next round tries again
            System.err.println("a round of the shards failed, retried in the next: " + e);
        }
    }

    private static void ring(String target) {
        RingCrds.applyRing(ADMIN, "ClusterRing", RING, NAMESPACE, "shardRestartGraceSeconds: 0",
                "autoscaling: {scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: " + target
                        + ", namespace: " + NAMESPACE + "}, minShards: 1, maxShards: 10, targetUtilizationPercent: 50,"
                        + " scaleUpStabilizationSeconds: 0, scaleDownStabilizationSeconds: " + SCALE_DOWN_SECONDS + "}");
    }

    private static int replicas() {
        return ADMIN.apps().statefulSets().inNamespace(NAMESPACE).withName("shards").get().getSpec().getReplicas();
    }

    private static Map<String, Object> status() {
        GenericKubernetesResource ring = ADMIN.genericKubernetesResources(RingCrds.CLUSTER_RINGS).withName(RING).get();
        Map<String, Object> status = ring.get("status");
        return status == null ? Map.of() : status;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> autoscalingStatus() {
        return (Map<String, Object>) status().getOrDefault("autoscaling", Map.of());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> readyCondition() {
        List<Map<String, Object>> conditions = (List<Map<String, Object>>) status().getOrDefault("conditions",
                List.of());
        return conditions.stream().filter(condition -> "Ready".equals(condition.get("type"))).findFirst()
                .orElse(Map.of());
    }

    private static List<String> scaledEvents() {
        return ADMIN.events().v1().events().inNamespace("default").list().getItems().stream()
                .filter(event -> "Scaled".equals(event.getReason()) && RING.equals(event.getRegarding().getName()))
                .map(Event::getNote).filter(Objects::nonNull).toList();
    }
}
