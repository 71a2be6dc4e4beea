package dev.ringmaster.sharder.app;

import static dev.ringmaster.sharder.app.RingCrds.CLUSTER_RING_CRD;
import static dev.ringmaster.sharder.app.RingCrds.CONTROLLER_RING_CRD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.sharder.ringcontrol.RingWatch;
import dev.ringmaster.sharder.testing.StandardErrorLines;
import dev.ringmaster.sharder.testing.TestLeases;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A user who installed only the ClusterRing CRD, on a real API server: the sharder says once that
 * ControllerRings are not served (one line, no stack trace, however long it runs), serves
 * ClusterRings meanwhile, and serves ControllerRings as soon as their CRD is installed; the metric
 * {@code ringmaster_sharder_ring_kind_served} says which kinds are served. The missing kind does not keep the
 * replica from being ready, and once ready it knows the ring of the other.
 */
class RingKindCrdsIT {

    private static final String NAMESPACE = "ring-kinds-it";
    private static final String RING = "kinds-it";
    /** The contract's labels (docs/design.md section 1), written out rather than taken from the code. */
    private static final String CLUSTER_RING_LEASE_LABEL = "alpha.sharding.timebertt.dev/clusterring";
    private static final String CONTROLLER_RING_LEASE_LABEL = "alpha.sharding.timebertt.dev/controllerring";
    /** The ClusterRing's shard label: the suffix is clusterring- + the first 8 hex digits of SHA-256("kinds-it") + -kinds-it. */
    private static final String CLUSTER_RING_SHARD_LABEL = "shard.alpha.sharding.timebertt.dev/clusterring-"
            + sha256Prefix(RING) + "-" + RING;
    private static final String CONTROLLER_RING_SHARD_LABEL = "shard.alpha.sharding.timebertt.dev/" + RING;
    private static final String SERVED_METRIC = "ringmaster.sharder.ring.kind.served";

    private static final KubernetesClient ADMIN = RealApiServer.shared().admin();

    @Test
    void aMissingCrdIsReportedOnceAndPickedUpWhenInstalled() throws Exception {
        RingCrds.remove(ADMIN, CONTROLLER_RING_CRD);
        RingCrds.install(ADMIN, CLUSTER_RING_CRD);
        ADMIN.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
                .serverSideApply();
        liveShardLease("shard-cluster", CLUSTER_RING_LEASE_LABEL);
        ring("ClusterRing");
        SimpleMeterRegistry meters = new SimpleMeterRegistry();

        try (StandardErrorLines log = new StandardErrorLines(); SharderReplica sharder = replica()) {
            sharder.addMeterRegistry(meters);
            assertThat(sharder.notSynced()).as("readiness before start").isPresent();
            sharder.start();

            // ready once the ClusterRings are listed (the missing kind holds nothing up), and by then it knows the ring
            await().atMost(Duration.ofSeconds(30)).until(() -> sharder.notSynced().isEmpty());
            assertThat(sharder.registry().views()).extracting(view -> view.key().name()).contains(RING);

            // the kind that exists works: an unlabelled ConfigMap is assigned to the ClusterRing's one shard
            await().atMost(Duration.ofSeconds(60)).until(() -> labels("cm-1").get(CLUSTER_RING_SHARD_LABEL) != null);
            assertThat(labels("cm-1")).containsEntry(CLUSTER_RING_SHARD_LABEL, "shard-cluster");
            // several looks for the missing CRD later (and more than fabric8's informer retries in that
            // time: after 1, 2, 4, 8 and 16 s), it has been reported once, in one line
            Thread.sleep(RingWatch.CRD_RECHECK.multipliedBy(5).dividedBy(2).toMillis());
            List<String> mentions = mentionsOfControllerRings(log);
            assertThat(mentions).as("lines mentioning ControllerRings").hasSize(1);
            assertThat(mentions.get(0)).contains("WARN").contains("ControllerRings are not served")
                    .contains("the CRD " + CONTROLLER_RING_CRD + " is not installed");
            assertThat(sharder.servedRingKinds()).extracting(kind -> kind.kind()).containsExactly("ClusterRing");
            assertThat(served(meters, "ClusterRing")).isEqualTo(1);
            assertThat(served(meters, "ControllerRing")).isEqualTo(0);

            // the other kind once its CRD is installed: its ring is served and its objects are assigned
            RingCrds.install(ADMIN, CONTROLLER_RING_CRD);
            liveShardLease("shard-controller", CONTROLLER_RING_LEASE_LABEL);
            ring("ControllerRing");
            await().atMost(RingWatch.CRD_RECHECK.plusSeconds(30))
                    .until(() -> labels("cm-1").get(CONTROLLER_RING_SHARD_LABEL) != null);
            assertThat(labels("cm-1")).containsEntry(CONTROLLER_RING_SHARD_LABEL, "shard-controller")
                    .containsEntry(CLUSTER_RING_SHARD_LABEL, "shard-cluster");
            createConfigMap("cm-2");
            await().atMost(Duration.ofSeconds(30)).until(() -> labels("cm-2").size() == 2);
            assertThat(labels("cm-2")).containsEntry(CONTROLLER_RING_SHARD_LABEL, "shard-controller")
                    .containsEntry(CLUSTER_RING_SHARD_LABEL, "shard-cluster");
            assertThat(log.containing("ControllerRings are served now")).hasSize(1);
            assertThat(mentionsOfControllerRings(log)).as("lines naming the CRD: no failure or stack trace")
                    .filteredOn(line -> line.contains(CONTROLLER_RING_CRD)).hasSize(2);
            assertThat(sharder.servedRingKinds()).extracting(kind -> kind.kind())
                    .containsExactlyInAnyOrder("ClusterRing", "ControllerRing");
            assertThat(served(meters, "ControllerRing")).isEqualTo(1);

            // the CRD removed again: its rings are dropped, the other kind stays, and it is said once
            RingCrds.remove(ADMIN, CONTROLLER_RING_CRD);
            // the watch's thread drops the kind, then its rings, then sets the gauge: awaited together
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(sharder.servedRingKinds()).extracting(kind -> kind.kind()).containsExactly("ClusterRing");
                // the classes before this one leave ClusterRings of their own on the JVM's shared API server
                assertThat(sharder.registry().views()).extracting(view -> view.key().kind().kind())
                        .containsOnly("ClusterRing");
                assertThat(served(meters, "ControllerRing")).isEqualTo(0);
            });
            assertThat(log.containing("ControllerRings are not served any more")).hasSize(1);
        }
    }

    /**
     * Lines mentioning ControllerRings, but for fabric8's one notice per resource type that its version is
     * v1alpha1 (whether or not the CRD is installed).
     */
    private static List<String> mentionsOfControllerRings(StandardErrorLines log) {
        return log.containing("controllerring").stream().filter(line -> !line.contains("with unstable version"))
                .toList();
    }

    @AfterAll
    static void removeTheRings() {
        for (String crd : List.of(CLUSTER_RING_CRD, CONTROLLER_RING_CRD)) {
            RingCrds.deleteRing(ADMIN, crd, RING);
        }
    }

    private static SharderReplica replica() {
        return TestReplicas.withDefaults(ADMIN, NAMESPACE, "ring-kinds-it");
    }

    /** A ring of the kind over the ConfigMaps of {@value #NAMESPACE}, and one unlabelled ConfigMap there. */
    private static void ring(String kind) {
        RingCrds.applyRing(ADMIN, kind, RING, NAMESPACE);
        if (kind.equals("ClusterRing")) {
            createConfigMap("cm-1");
        }
    }

    private static void createConfigMap(String name) {
        ADMIN.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
                .endMetadata().build()).create();
    }

    private static Map<String, String> labels(String configMap) {
        ConfigMap current = ADMIN.configMaps().inNamespace(NAMESPACE).withName(configMap).get();
        return current.getMetadata().getLabels() == null ? Map.of() : current.getMetadata().getLabels();
    }

    /** A shard's Lease of the ring, held and renewed now for an hour. */
    private static void liveShardLease(String shard, String ringLabel) {
        ADMIN.leases().inNamespace(NAMESPACE).resource(TestLeases.shardLease(NAMESPACE, shard, RING, Instant.now(), 3600)
                .editMetadata().withLabels(Map.of(ringLabel, RING)).endMetadata().build()).create();
    }

    private static double served(SimpleMeterRegistry meters, String kind) {
        return meters.get(SERVED_METRIC).tag("kind", kind).gauge().value();
    }

    private static String sha256Prefix(String text) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(digest).substring(0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
