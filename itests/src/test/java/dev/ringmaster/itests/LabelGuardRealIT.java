package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.itests.support.WebhookCertificates;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The label guard of {@code manifests/label-guard/} on the real API server: its
 * ValidatingWebhookConfiguration with CEL matchConditions is accepted as shipped (only pointed at
 * this replica's URL instead of the in-cluster Service), an ordinary user may not change a ring's
 * shard or drain label, while the sharder moves objects and a shard acknowledges drains unhindered.
 */
public class LabelGuardRealIT {

    private static final String RING = "guarded";
    private static final String SHARD_LABEL = RingContract.shardLabel(RING);
    private static final String DRAIN_LABEL = RingContract.drainLabel(RING);
    private static final String NAMESPACE = "label-guard";
    /** A second ring, which gains a shard, so that the first keeps its placement for the other tests. */
    private static final String GROWING_RING = "guarded-growing";
    private static final String GROWING_NAMESPACE = "label-guard-growing";
    private static final Set<String> FIRST_SHARDS = Set.of("shard-a", "shard-b");
    private static final int OBJECTS = 30;
    private static final Duration SOON = Duration.ofSeconds(60);

    private static RealCluster cluster;
    private static KubernetesClient admin;
    private static KubernetesClient ordinaryUser;
    private static KubernetesClient shard;
    private static Cli.Started sharder;

    @BeforeClass
    public static void startSharderWithTheGuard() throws IOException {
        cluster = RealCluster.get();
        admin = cluster.admin();
        ring(RING, NAMESPACE);
        ring(GROWING_RING, GROWING_NAMESPACE);
        ordinaryUser = identity(NAMESPACE, "ordinary");
        shard = identity(GROWING_NAMESPACE, "checksum-shard");

        SharderHome replica = SharderHome.prepare("label-guard");
        Files.copy(RealCluster.manifests().resolve("label-guard/etc/dev.ringmaster.labelguard.cfg"),
                replica.home().resolve("etc/dev.ringmaster.labelguard.cfg"));
        sharder = cluster.runSharder(replica, cluster.sharderKubeconfig(replica));
        installGuardCalling(replica);

        for (String namespace : List.of(NAMESPACE, GROWING_NAMESPACE)) {
            for (int i = 0; i < OBJECTS; i++) {
                admin.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata()
                        .withName("cm-" + i).endMetadata().build()).create();
            }
        }
        Waiting.within(SOON, "every ConfigMap assigned")
                .until(() -> List.of(RING, GROWING_RING).stream().allMatch(ring ->
                configMaps(namespaceOf(ring)).stream().allMatch(configMap ->
                        FIRST_SHARDS.contains(RingState.labels(configMap).get(RingContract.shardLabel(ring))))));
    }

    private static void ring(String ring, String namespace) {
        cluster.configMapRing(ring, namespace, false);
        for (String name : FIRST_SHARDS) {
            cluster.liveShardLease(namespace, name, ring);
        }
    }

    private static String namespaceOf(String ring) {
        return ring.equals(RING) ? NAMESPACE : GROWING_NAMESPACE;
    }

    @AfterClass
    public static void stop() throws InterruptedException {
        Cli.kill(sharder);
        for (KubernetesClient client : new KubernetesClient[] {ordinaryUser, shard}) {
            if (client != null) {
                client.close();
            }
        }
        Optional.ofNullable(admin).ifPresent(client -> client.admissionRegistration().v1()
                .validatingWebhookConfigurations().withName("ringmaster-label-guard").delete());
    }

    @Test
    public void anOrdinaryUserMayNotMoveAnObjectNorDrainIt() {
        String current = shardOf("cm-0");
        String other = FIRST_SHARDS.stream().filter(name -> !name.equals(current)).findFirst().orElseThrow();
        assertDenied(configMap -> withLabel(configMap, SHARD_LABEL, other));
        assertDenied(configMap -> withLabel(configMap, DRAIN_LABEL, "true"));
        assertEquals("nothing changed", current, shardOf("cm-0"));
    }

    /**
     * Taking the shard label away makes the object unassigned for the sharder's mutating webhook, which
     * runs before validation and assigns it again, to the same shard: the guard sees no change at all.
     */
    @Test
    public void anOrdinaryUserWhoTakesTheShardLabelAwayGetsItBackAtOnce() {
        String current = shardOf("cm-2");
        ConfigMap edited = ordinaryUser.configMaps().inNamespace(NAMESPACE).withName("cm-2")
                .edit(configMap -> withoutLabel(configMap, SHARD_LABEL));
        assertEquals(current, RingState.labels(edited).get(SHARD_LABEL));
    }

    @Test
    public void anOrdinaryUserChangesEverythingElse() {
        ConfigMap edited = ordinaryUser.configMaps().inNamespace(NAMESPACE).withName("cm-1")
                .edit(configMap -> withLabel(configMap, "team", "a"));
        assertEquals("a", RingState.labels(edited).get("team"));
    }

    /**
     * A new shard makes the sharder drain the objects that now belong to it (its own writes, which the
     * guard's matchConditions never send to the webhook), and a shard acknowledges a drain by removing
     * both labels, which the guard lets through; the sharder's mutating webhook reassigns the object
     * within that same request.
     */
    @Test
    public void theSharderDrainsAndAShardAcknowledgesUnhindered() {
        String shardLabel = RingContract.shardLabel(GROWING_RING);
        String drainLabel = RingContract.drainLabel(GROWING_RING);
        cluster.liveShardLease(GROWING_NAMESPACE, "shard-c", GROWING_RING);
        ConfigMap drained = Waiting.value(SOON, () -> "the sharder drains an object for shard-c\n" + sharder.err(),
                () -> configMaps(GROWING_NAMESPACE).stream()
                        .filter(configMap -> RingState.labels(configMap).containsKey(drainLabel)).findFirst());
        String from = RingState.labels(drained).get(shardLabel);
        ConfigMap acknowledged = shard.configMaps().inNamespace(GROWING_NAMESPACE).withName(drained.getMetadata().getName())
                .edit(configMap -> withoutLabel(withoutLabel(configMap, drainLabel), shardLabel));
        assertFalse(RingState.labels(acknowledged).containsKey(drainLabel));
        assertNotEquals("reassigned away from the draining shard in the same request", from,
                RingState.labels(acknowledged).get(shardLabel));
    }

    private static void assertDenied(UnaryOperator<ConfigMap> change) {
        try {
            ordinaryUser.configMaps().inNamespace(NAMESPACE).withName("cm-0").edit(change);
            fail("the guard let an ordinary user change a ring label");
        } catch (KubernetesClientException e) {
            assertEquals(e.getMessage(), 403, e.getCode());
            assertTrue(e.getMessage(), e.getMessage().contains("label-guard: user \"system:serviceaccount:"
                    + NAMESPACE + ":ordinary\" may not "));
        }
    }

    /** The shipped configuration, pointed at this replica's URL with its CA, as for a sharder outside the cluster. */
    private static void installGuardCalling(SharderHome replica) throws IOException {
        ValidatingWebhookConfiguration guard;
        try (InputStream yaml = Files.newInputStream(RealCluster.manifests().resolve("label-guard/validatingwebhookconfiguration.yaml"))) {
            guard = admin.getKubernetesSerialization().unmarshal(yaml, ValidatingWebhookConfiguration.class);
        }
        String path = guard.getWebhooks().get(0).getClientConfig().getService().getPath();
        guard.getWebhooks().get(0).setClientConfig(new WebhookClientConfigBuilder()
                .withUrl("https://127.0.0.1:" + replica.webhookPort() + path)
                .withCaBundle(Base64.getEncoder().encodeToString(Files.readAllBytes(replica.tls().resolve(WebhookCertificates.CA))))
                .build());
        admin.resource(guard).forceConflicts().serverSideApply();
    }

    private static KubernetesClient identity(String namespace, String account) {
        Path kubeconfig = cluster.server().serviceAccountKubeconfig(namespace, account,
                cluster.server().workFolder("label-guard").resolve(account));
        cluster.grantInNamespace(namespace, account, List.of("configmaps"));
        return cluster.server().clientFor(kubeconfig);
    }

    private static String shardOf(String name) {
        return RingState.labels(admin.configMaps().inNamespace(NAMESPACE).withName(name).get()).get(SHARD_LABEL);
    }

    private static List<ConfigMap> configMaps(String namespace) {
        return admin.configMaps().inNamespace(namespace).list().getItems();
    }

    private static ConfigMap withLabel(ConfigMap configMap, String key, String value) {
        configMap.getMetadata().getLabels().put(key, value);
        return configMap;
    }

    private static ConfigMap withoutLabel(ConfigMap configMap, String key) {
        configMap.getMetadata().getLabels().remove(key);
        return configMap;
    }
}
