package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.testing.apiserver.AuditLog;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The sharder's webhook as the real API server calls it: {@code bin/ringmaster run} writes the ring's
 * MutatingWebhookConfiguration (URL mode with its CA bundle), the API server accepts it and calls the
 * webhook on CREATE and UPDATE of unlabelled objects in the selected namespaces only, and creates go
 * through while the webhook does not answer. The sharder runs as the ServiceAccount of
 * {@code manifests/} with exactly the RBAC found there.
 */
public class AdmissionRealIT {

    private static final String RING = "admission";
    private static final String SHARD_LABEL = RingContract.shardLabel(RING);
    private static final String INCLUDED = "admission-included";
    private static final String EXCLUDED = "admission-excluded";
    private static final String SHARDS_NAMESPACE = "admission-shards";
    private static final Set<String> SHARDS = Set.of("shard-a", "shard-b");
    private static final String SHARDER_USER = "system:serviceaccount:sharding-system:sharder";
    private static final Duration SOON = Duration.ofSeconds(60);

    private static RealCluster cluster;
    private static KubernetesClient admin;
    private static SharderHome replica;
    private static Cli.Started sharder;
    private static Instant started;
    /** The audit log's id of this replica's token: other tests of the JVM act as the sharder's ServiceAccount too. */
    private static String credential;

    @BeforeClass
    public static void startSharder() {
        cluster = RealCluster.get();
        admin = cluster.admin();
        for (String namespace : List.of(INCLUDED, EXCLUDED, SHARDS_NAMESPACE)) {
            cluster.namespace(namespace);
        }
        admin.namespaces().withName(INCLUDED).edit(ns -> {
            ns.getMetadata().getLabels().put("ringmaster.dev/admission", "included");
            return ns;
        });
        for (String shard : SHARDS) {
            cluster.liveShardLease(SHARDS_NAMESPACE, shard, RING);
        }
        cluster.clusterRing(RING, """
                  resources:
                  - group: ""
                    resource: configmaps
                  namespaceSelector:
                    matchLabels: {ringmaster.dev/admission: included}
                """);
        replica = SharderHome.prepare("admission");
        Path kubeconfig = cluster.sharderKubeconfig(replica);
        started = Instant.now();
        credential = cluster.server().credentialId(kubeconfig);
        sharder = cluster.runSharder(replica, kubeconfig);
        Waiting.until(SOON, () -> "its webhook configuration written\n" + sharder.err(),
                () -> webhookConfiguration() != null);
        cluster.awaitWebhookLabels(INCLUDED, SHARD_LABEL, SOON, sharder::err);
    }

    @AfterClass
    public static void stopSharder() throws InterruptedException {
        Cli.kill(sharder);
    }

    @Test
    public void theWebhookConfigurationIsAcceptedAsWritten() {
        MutatingWebhook webhook = webhookConfiguration().getWebhooks().get(0);
        assertEquals(RingContract.WEBHOOK_NAME, webhook.getName());
        assertEquals("https://127.0.0.1:" + replica.webhookPort() + RingContract.webhookPath(RING),
                webhook.getClientConfig().getUrl());
        assertNotNull("the CA bundle the API server verifies the webhook with", webhook.getClientConfig().getCaBundle());
        assertEquals("Ignore", webhook.getFailurePolicy());
    }

    @Test
    public void theApiServerCallsTheWebhookOnCreateAndTheObjectIsLabelledBeforeAnyoneSeesIt() {
        ConfigMap created = admin.configMaps().inNamespace(INCLUDED).resource(configMap("on-create")).create();
        String shard = RingState.labels(created).get(SHARD_LABEL);
        assertTrue("labelled in the answer to the create itself: " + created.getMetadata(), SHARDS.contains(shard));
        assertTrue("no write of the sharder's own was needed", sharderWritesTo("on-create").isEmpty());
    }

    @Test
    public void theApiServerCallsTheWebhookOnAnUpdateThatRemovesTheShardLabel() {
        admin.configMaps().inNamespace(INCLUDED).resource(configMap("on-update")).create();
        ConfigMap updated = admin.configMaps().inNamespace(INCLUDED).withName("on-update").edit(configMap -> {
            configMap.getMetadata().getLabels().remove(SHARD_LABEL);
            return configMap;
        });
        assertTrue("labelled again by the webhook on UPDATE: " + updated.getMetadata(),
                SHARDS.contains(RingState.labels(updated).get(SHARD_LABEL)));
    }

    /** The objectSelector: only objects without the ring's shard label are sent to the webhook. */
    @Test
    public void anUpdateOfAnAssignedObjectNeverReachesTheWebhook() {
        long before = sharderWebhookRequests();
        admin.configMaps().inNamespace(INCLUDED).resource(configMap("assigned")).create();
        assertEquals("the create of an unlabelled object was sent", before + 1, sharderWebhookRequests());
        admin.configMaps().inNamespace(INCLUDED).withName("assigned").edit(configMap -> {
            configMap.getData().put("k", "changed");
            return configMap;
        });
        assertEquals("the update of the labelled object was not", before + 1, sharderWebhookRequests());
    }

    @Test
    public void objectsInNamespacesTheRingDoesNotSelectStayUnlabelled() {
        ConfigMap created = admin.configMaps().inNamespace(EXCLUDED).resource(configMap("elsewhere")).create();
        assertFalse(RingState.labels(created).containsKey(SHARD_LABEL));
        Waiting.throughout(Duration.ofSeconds(3), "the unassigned-object watch leaves it alone too")
                .until(() -> !RingState.labels(admin.configMaps().inNamespace(EXCLUDED).withName("elsewhere").get())
                        .containsKey(SHARD_LABEL));
    }

    /**
     * A webhook that accepts the connection but never answers (the process is stopped): the API server
     * waits out the configuration's timeout and, failurePolicy Ignore, creates the object unlabelled.
     * Once the sharder runs again its unassigned-object watch labels the object.
     */
    @Test
    public void createsGoThroughWhileTheWebhookHangsAndTheUnassignedWatchLabelsThemAfterwards() {
        sharder.signal("STOP");
        ConfigMap created;
        try {
            created = admin.configMaps().inNamespace(INCLUDED).resource(configMap("while-frozen")).create();
        } finally {
            sharder.signal("CONT");
        }
        assertFalse("created without a label: " + created.getMetadata(), RingState.labels(created).containsKey(SHARD_LABEL));
        Waiting.until(SOON, () -> "the unassigned-object watch labels it\n" + sharder.err(),
                () -> SHARDS.contains(RingState.labels(admin.configMaps().inNamespace(INCLUDED)
                        .withName("while-frozen").get()).get(SHARD_LABEL)));
        assertFalse("the label was the sharder's own write", sharderWritesTo("while-frozen").isEmpty());
    }

    /** Proof that manifests/ grants what the code needs: the API server denied the sharder nothing. */
    @Test
    public void theSharderIsDeniedNothingUnderTheRbacOfTheManifests() {
        List<AuditLog.Event> denied = cluster.server().audit().events().stream()
                .filter(event -> event.madeWith(credential) && event.code() == 403).toList();
        assertEquals("requests the API server denied the sharder", List.of(), denied);
        assertFalse("the sharder wrote through its ServiceAccount", cluster.server().audit().events().stream()
                .filter(event -> event.user().equals(SHARDER_USER) && event.received().isAfter(started)).toList().isEmpty());
    }

    /** Requests the sharder's admission handler answered, by the webhook's own request metric. */
    private static long sharderWebhookRequests() {
        return replica.metrics().lines()
                .filter(line -> line.startsWith("ringmaster_webhook_requests_seconds_count{") && line.contains("handler=\"sharder\""))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    private static List<AuditLog.Event> sharderWritesTo(String name) {
        return cluster.server().audit().events().stream()
                .filter(event -> event.user().equals(SHARDER_USER) && event.name().equals(name)
                        && event.resource().equals("configmaps"))
                .toList();
    }

    private static MutatingWebhookConfiguration webhookConfiguration() {
        return admin.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName(RingContract.webhookConfigurationName(RING)).get();
    }

    private static ConfigMap configMap(String name) {
        return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().addToData("k", "v").build();
    }
}
