package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.rings.PolicyDenials;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.junit.function.ThrowingRunnable;

/**
 * The ValidatingAdmissionPolicy of {@code manifests/admission-policies/} on the real API server, with the
 * base's RBAC: requests of the sharder's ServiceAccount (a token the API server issued, so its user and
 * groups are the server's own) that RBAC allows but the sharder never makes are denied with the policy's
 * message, every kind of write the sharder does is allowed, {@code bin/ringmaster run} does its work under it
 * denied nothing, and other users are not confined.
 */
public class AdmissionPoliciesRealIT {

    private static final String POLICY = "ringmaster-sharder";
    private static final String SYSTEM = RealCluster.SYSTEM_NAMESPACE;
    private static final String SHARDS = "admission-policies";
    private static final String RING = "admission-policies";
    /** 63 characters: its ClusterRing webhook configuration's name carries only the first 42. */
    private static final String LONG_RING = "admission-policies-long-" + "x".repeat(39);
    private static final String NODE = "admission-policies-node";
    private static final Duration SOON = Duration.ofSeconds(60);

    private static final String LEASE_REFUSAL = "the sharder may write only shard Leases (labelled "
            + "alpha.sharding.timebertt.dev/clusterring or alpha.sharding.timebertt.dev/controllerring) and create and "
            + "write only its own election Lease sharder: ";
    private static final String WEBHOOK_REFUSAL = "the sharder may write only its rings' MutatingWebhookConfigurations "
            + "(controllerring-<ring> or sharding-clusterring-<hash>-<ring>, controlled by that ControllerRing or "
            + "ClusterRing): ";
    private static final String SECRET_REFUSAL = "the sharder may create only the Secrets of its webhook certificates "
            + "(sharder-webhook-ca, sharder-webhook-tls in its own namespace): ";

    private static RealCluster cluster;
    private static KubernetesClient admin;
    private static KubernetesClient sharder;
    private static KubernetesClient shard;

    @BeforeClass
    public static void installThePolicies() {
        cluster = RealCluster.get();
        admin = cluster.admin();
        cluster.configMapRing(RingKind.CLUSTER_RING, RING, SHARDS, false);
        cluster.configMapRing(RingKind.CONTROLLER_RING, RING, SHARDS, false);
        cluster.configMapRing(RingKind.CLUSTER_RING, LONG_RING, SHARDS, false);
        cluster.grantShard(SHARDS, "checksum-shard");
        Path work = cluster.server().workFolder("admission-policies");
        sharder = cluster.server().clientFor(cluster.server().serviceAccountKubeconfig(SYSTEM, RealCluster.SHARDER_ACCOUNT,
                work.resolve("sharder.kubeconfig")));
        shard = cluster.server().clientFor(cluster.server().serviceAccountKubeconfig(SHARDS, "checksum-shard",
                work.resolve("shard.kubeconfig")));
        // a kubelet's heartbeat Lease, as a node has it (this server runs no kubelet)
        admin.leases().inNamespace("kube-node-lease").resource(new LeaseBuilder().withNewMetadata().withName(NODE)
                .endMetadata().withNewSpec().withHolderIdentity(NODE).withLeaseDurationSeconds(40).endSpec().build())
                .forceConflicts().serverSideApply();

        // RealCluster installed the policy with the manifests; the API server picks a new policy and
        // binding up a moment after they are written
        Waiting.until(SOON, () -> "the API server enforces " + POLICY, () -> {
            try {
                sharder.leases().inNamespace("kube-node-lease").withName(NODE).dryRun()
                        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"probe\":\"x\"}}}");
                return false;
            } catch (KubernetesClientException e) {
                return e.getCode() == 403 && e.getMessage().contains(LEASE_REFUSAL);
            }
        });
    }

    @AfterClass
    public static void removeThem() {
        if (admin == null) {
            return;
        }
        for (String ring : List.of(RING, LONG_RING)) {
            admin.genericKubernetesResources(RingContract.API_GROUP + "/" + RingContract.API_VERSION, "ClusterRing")
                    .withName(ring).delete();
        }
        admin.genericKubernetesResources(RingContract.API_GROUP + "/" + RingContract.API_VERSION, "ControllerRing")
                .withName(RING).delete();
        admin.admissionRegistration().v1().mutatingWebhookConfigurations().withName("intercept-everything").delete();
        admin.leases().inNamespace("kube-node-lease").withName(NODE).delete();
        admin.leases().inNamespace("kube-system").withName("kube-controller-manager").delete();
        admin.leases().inNamespace(SHARDS).delete();
        admin.leases().inNamespace(SYSTEM).withName("sharder").delete();
        admin.secrets().inNamespace(SYSTEM).withName("sharder-webhook-ca").delete();
        admin.secrets().inNamespace(SYSTEM).withName("sharder-webhook-tls").delete();
        sharder.close();
        shard.close();
    }

    @Test
    public void theSharderMayNotWriteLeasesThatAreNotItsOwn() {
        admin.leases().inNamespace("kube-system").resource(lease("kube-controller-manager", Map.of()))
                .forceConflicts().serverSideApply();
        admin.leases().inNamespace(SHARDS).resource(lease("no-shard", Map.of())).forceConflicts().serverSideApply();
        cluster.liveShardLease(SHARDS, "shard-stays", RING);
        long denials = PolicyDenials.count(admin, POLICY);

        assertDenied(LEASE_REFUSAL + "UPDATE of Lease kube-node-lease/" + NODE + " refused",
                () -> patchLabel(sharder, "kube-node-lease", NODE, "team", "a"));
        assertDenied(LEASE_REFUSAL + "UPDATE of Lease kube-system/kube-controller-manager refused",
                () -> sharder.leases().inNamespace("kube-system").withName("kube-controller-manager")
                        .edit(lease -> new LeaseBuilder(lease).editSpec().withHolderIdentity("sharder").endSpec().build()));
        assertDenied(LEASE_REFUSAL + "DELETE of Lease " + SHARDS + "/no-shard refused",
                () -> sharder.leases().inNamespace(SHARDS).withName("no-shard").delete());
        assertDenied(LEASE_REFUSAL + "UPDATE of Lease " + SHARDS + "/shard-stays refused",
                () -> sharder.leases().inNamespace(SHARDS).withName("shard-stays").edit(lease -> new LeaseBuilder(lease)
                        .editMetadata().removeFromLabels(RingKind.CLUSTER_RING.leaseLabel()).endMetadata().build()));
        // shards create their Leases; the sharder only takes them over (update) and deletes orphaned ones. RBAC
        // lets it create Leases in its own namespace only (for its election Lease), so that is where it is tried
        assertDenied(LEASE_REFUSAL + "CREATE of Lease " + SYSTEM + "/shard-new refused",
                () -> sharder.leases().inNamespace(SYSTEM).resource(lease("shard-new",
                        Map.of(RingKind.CLUSTER_RING.leaseLabel(), RING))).create());
        assertDenied(LEASE_REFUSAL + "CREATE of Lease " + SYSTEM + "/other refused",
                () -> sharder.leases().inNamespace(SYSTEM).resource(lease("other", Map.of())).create());

        assertEquals("the API server counts each denial", denials + 6, PolicyDenials.count(admin, POLICY));
        assertEquals(null, RingState.labels(admin.leases().inNamespace("kube-node-lease").withName(NODE).get()).get("team"));
        assertTrue(RingState.labels(admin.leases().inNamespace(SHARDS).withName("shard-stays").get())
                .containsKey(RingKind.CLUSTER_RING.leaseLabel()));
    }

    @Test
    public void theSharderMayNotWriteWebhookConfigurationsThatAreNotItsRings() {
        admin.admissionRegistration().v1().mutatingWebhookConfigurations().resource(new MutatingWebhookConfigurationBuilder()
                .withNewMetadata().withName("intercept-everything").endMetadata().build()).forceConflicts().serverSideApply();

        assertDenied(WEBHOOK_REFUSAL + "CREATE of MutatingWebhookConfiguration intercept-everything-else refused",
                () -> sharder.admissionRegistration().v1().mutatingWebhookConfigurations().resource(
                        new MutatingWebhookConfigurationBuilder().withNewMetadata().withName("intercept-everything-else")
                                .endMetadata().build()).create());
        String ringName = RingKind.CLUSTER_RING.webhookConfigurationName(RING);
        assertDenied(WEBHOOK_REFUSAL + "CREATE of MutatingWebhookConfiguration " + ringName + " refused",
                () -> sharder.admissionRegistration().v1().mutatingWebhookConfigurations().resource(
                        new MutatingWebhookConfigurationBuilder().withNewMetadata().withName(ringName).endMetadata().build())
                        .create());
        assertDenied(WEBHOOK_REFUSAL + "CREATE of MutatingWebhookConfiguration controllerring-other refused",
                () -> sharder.admissionRegistration().v1().mutatingWebhookConfigurations().resource(
                        new MutatingWebhookConfigurationBuilder(ringWebhookConfiguration(RingKind.CONTROLLER_RING, RING))
                                .editMetadata().withName("controllerring-other").endMetadata().build()).create());
        assertDenied(WEBHOOK_REFUSAL + "UPDATE of MutatingWebhookConfiguration intercept-everything refused",
                () -> sharder.admissionRegistration().v1().mutatingWebhookConfigurations().withName("intercept-everything")
                        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"team\":\"a\"}}}"));
        assertDenied(WEBHOOK_REFUSAL + "DELETE of MutatingWebhookConfiguration intercept-everything refused",
                () -> sharder.admissionRegistration().v1().mutatingWebhookConfigurations().withName("intercept-everything")
                        .delete());
    }

    @Test
    public void theSharderMayCreateNoOtherSecret() {
        assertDenied(SECRET_REFUSAL + "CREATE of Secret " + SYSTEM + "/stolen refused",
                () -> sharder.secrets().inNamespace(SYSTEM).resource(new SecretBuilder().withNewMetadata().withName("stolen")
                        .endMetadata().addToStringData("token", "x").build()).create());
        assertEquals(null, admin.secrets().inNamespace(SYSTEM).withName("stolen").get());
    }

    /** LeaderElection: fabric8's LeaseLock creates the Lease, then renews and releases it by merge patch. */
    @Test
    public void theSharderCreatesAndWritesItsElectionLease() {
        admin.leases().inNamespace(SYSTEM).withName("sharder").delete();
        Waiting.until(SOON, () -> "the election Lease gone", () -> admin.leases().inNamespace(SYSTEM).withName("sharder").get() == null);
        sharder.leases().inNamespace(SYSTEM).resource(lease("sharder", Map.of())).create();
        Lease renewed = sharder.leases().inNamespace(SYSTEM).withName("sharder")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"holderIdentity\":\"replica-b\"}}");
        assertEquals("replica-b", renewed.getSpec().getHolderIdentity());
        sharder.leases().inNamespace(SYSTEM).withName("sharder")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"holderIdentity\":\"\"}}");
        admin.leases().inNamespace(SYSTEM).withName("sharder").delete();
    }

    /** ShardLeaseReconciler: takes an uncertain Lease over (update), labels its state (merge patch), deletes an orphan. */
    @Test
    public void theSharderWritesTheShardLeasesOfEitherKind() {
        for (RingKind kind : RingKind.values()) {
            String name = "shard-" + kind.lowerCaseKind();
            cluster.liveShardLease(kind, SHARDS, name, RING);
            Lease acquired = sharder.leases().inNamespace(SHARDS).withName(name).edit(lease -> new LeaseBuilder(lease)
                    .editSpec().withHolderIdentity(RingContract.LEASE_CONTROLLER_HOLDER).endSpec().build());
            assertEquals(RingContract.LEASE_CONTROLLER_HOLDER, acquired.getSpec().getHolderIdentity());
            Lease acquiredByUpdate = sharder.leases().inNamespace(SHARDS).resource(new LeaseBuilder(acquired)
                    .editSpec().withLeaseTransitions(1).endSpec().build()).update();
            assertEquals(Integer.valueOf(1), acquiredByUpdate.getSpec().getLeaseTransitions());
            patchLabel(sharder, SHARDS, name, RingContract.STATE_LABEL, "dead");
            sharder.leases().inNamespace(SHARDS).withName(name)
                    .lockResourceVersion(sharder.leases().inNamespace(SHARDS).withName(name).get().getMetadata().getResourceVersion())
                    .delete();
            Waiting.until(SOON, () -> name + " deleted", () -> admin.leases().inNamespace(SHARDS).withName(name).get() == null);
        }
    }

    /** WebhookConfigurations: creates a ring's configuration, patches it (locked JSON patch), deletes it (webhookMode=off). */
    @Test
    public void theSharderWritesItsRingsWebhookConfigurations() {
        record Ring(RingKind kind, String name, String configuration) {
        }
        for (Ring ring : List.of(new Ring(RingKind.CLUSTER_RING, RING, "sharding-clusterring-" + sha8(RING) + "-" + RING),
                new Ring(RingKind.CONTROLLER_RING, RING, "controllerring-" + RING),
                new Ring(RingKind.CLUSTER_RING, LONG_RING,
                        "sharding-clusterring-" + sha8(LONG_RING) + "-" + LONG_RING.substring(0, 42)))) {
            MutatingWebhookConfiguration desired = ringWebhookConfiguration(ring.kind(), ring.name());
            assertEquals(ring.configuration(), desired.getMetadata().getName());
            var configurations = sharder.admissionRegistration().v1().mutatingWebhookConfigurations();
            configurations.resource(desired).create();
            String version = configurations.withName(ring.configuration()).get().getMetadata().getResourceVersion();
            MutatingWebhookConfiguration patched = configurations.withName(ring.configuration()).patch(PatchContext.of(PatchType.JSON),
                    "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"" + version + "\"},"
                            + "{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{\"cert-manager.io/inject-ca-from\":"
                            + "\"sharding-system/sharder-webhook\"}}]");
            assertEquals("sharding-system/sharder-webhook", patched.getMetadata().getAnnotations().get("cert-manager.io/inject-ca-from"));
            configurations.withName(ring.configuration()).lockResourceVersion(patched.getMetadata().getResourceVersion()).delete();
            Waiting.until(SOON, () -> ring.configuration() + " deleted",
                    () -> admin.admissionRegistration().v1().mutatingWebhookConfigurations().withName(ring.configuration()).get() == null);
        }
    }

    /** WebhookCertificates: the first replica creates both Secrets. */
    @Test
    public void theSharderCreatesTheSecretsOfItsWebhookCertificates() {
        for (String name : List.of("sharder-webhook-ca", "sharder-webhook-tls")) {
            admin.secrets().inNamespace(SYSTEM).withName(name).delete();
            Waiting.until(SOON, () -> name + " gone", () -> admin.secrets().inNamespace(SYSTEM).withName(name).get() == null);
            sharder.secrets().inNamespace(SYSTEM).resource(new SecretBuilder().withNewMetadata().withName(name).endMetadata()
                    .addToStringData("ca.crt", "not a certificate").build()).create();
            assertEquals(name, sharder.secrets().inNamespace(SYSTEM).withName(name).get().getMetadata().getName());
        }
    }

    /**
     * {@code bin/ringmaster run} as the sharder's ServiceAccount under the policy: it creates its election Lease
     * and renews it, creates its rings' webhook configurations, labels a live shard's Lease, takes an
     * uncertain shard's Lease over, deletes an orphaned one and assigns the ring's objects; the API server
     * denies it nothing meanwhile.
     */
    @Test
    public void theSharderRunsUnderThePolicyDeniedNothing() throws Exception {
        String ring = "admission-policies-run";
        String namespace = "admission-policies-run";
        cluster.configMapRing(RingKind.CLUSTER_RING, ring, namespace, false);
        cluster.liveShardLease(namespace, "shard-live", ring);
        Instant now = Instant.now();
        // uncertain: held, silent for longer than twice its duration; orphaned: released and expired for a minute
        admin.leases().inNamespace(namespace).resource(shardLease("shard-frozen", ring, "shard-frozen", now.minusSeconds(60)))
                .forceConflicts().serverSideApply();
        admin.leases().inNamespace(namespace).resource(shardLease("shard-gone", ring, "", now.minusSeconds(120)))
                .forceConflicts().serverSideApply();
        admin.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName("cm-0")
                .endMetadata().build()).forceConflicts().serverSideApply();
        admin.leases().inNamespace(SYSTEM).withName("sharder").delete();
        long denials = PolicyDenials.count(admin, POLICY);

        SharderHome replica = SharderHome.prepare("admission-policies");
        Cli.Started process = cluster.runSharder(replica, cluster.sharderKubeconfig(replica));
        try {
            Waiting.until(SOON, () -> "the sharder's writes done\n" + process.err(), () ->
                    cluster.electionHolder() != null
                    && admin.admissionRegistration().v1().mutatingWebhookConfigurations()
                            .withName(RingKind.CLUSTER_RING.webhookConfigurationName(ring)).get() != null
                    && "ready".equals(RingState.labels(admin.leases().inNamespace(namespace).withName("shard-live").get())
                            .get(RingContract.STATE_LABEL))
                    && RingContract.LEASE_CONTROLLER_HOLDER.equals(admin.leases().inNamespace(namespace).withName("shard-frozen")
                            .get().getSpec().getHolderIdentity())
                    && admin.leases().inNamespace(namespace).withName("shard-gone").get() == null
                    && "shard-live".equals(RingState.labels(admin.configMaps().inNamespace(namespace).withName("cm-0").get())
                            .get(RingContract.shardLabel(ring))));
            assertEquals("requests of the sharder the policy denied\n" + process.err(), denials, PolicyDenials.count(admin, POLICY));
        } finally {
            Cli.kill(process);
            admin.genericKubernetesResources(RingContract.API_GROUP + "/" + RingContract.API_VERSION, "ClusterRing")
                    .withName(ring).delete();
            admin.leases().inNamespace(SYSTEM).withName("sharder").delete();
            // the webhook configurations the sharder made for the rings of this class (the garbage collector's job in a cluster)
            for (String name : List.of(RingKind.CLUSTER_RING.webhookConfigurationName(ring), RingKind.CLUSTER_RING
                    .webhookConfigurationName(RING), RingKind.CONTROLLER_RING.webhookConfigurationName(RING),
                    RingKind.CLUSTER_RING.webhookConfigurationName(LONG_RING))) {
                admin.admissionRegistration().v1().mutatingWebhookConfigurations().withName(name).delete();
            }
        }
    }

    /** The policy matches the sharder's requests only: the administrator and a shard write as before. */
    @Test
    public void otherUsersAreNotConfined() {
        patchLabel(admin, "kube-node-lease", NODE, "checked-by", "admin");
        admin.admissionRegistration().v1().mutatingWebhookConfigurations().resource(new MutatingWebhookConfigurationBuilder()
                .withNewMetadata().withName("admission-policies-admin").endMetadata().build()).create();
        admin.admissionRegistration().v1().mutatingWebhookConfigurations().withName("admission-policies-admin").delete();
        shard.leases().inNamespace(SHARDS).resource(lease("shard-own", Map.of(RingKind.CLUSTER_RING.leaseLabel(), RING))).create();
        shard.leases().inNamespace(SHARDS).withName("shard-own").delete();
    }

    private static MutatingWebhookConfiguration ringWebhookConfiguration(RingKind kind, String ring) {
        GenericKubernetesResource owner = admin.genericKubernetesResources(
                RingContract.API_GROUP + "/" + RingContract.API_VERSION, kind.kind()).withName(ring).get();
        return new MutatingWebhookConfigurationBuilder().withNewMetadata()
                .withName(kind.webhookConfigurationName(ring))
                .addToLabels("app.kubernetes.io/managed-by", "ringmaster")
                .addNewOwnerReference().withApiVersion(owner.getApiVersion()).withKind(kind.kind()).withName(ring)
                .withUid(owner.getMetadata().getUid()).withController(true).withBlockOwnerDeletion(true).endOwnerReference()
                .endMetadata().build();
    }

    private static Lease shardLease(String name, String ring, String holder, Instant renewed) {
        ZonedDateTime renewTime = ZonedDateTime.ofInstant(renewed, ZoneOffset.UTC);
        return new LeaseBuilder(lease(name, Map.of(RingKind.CLUSTER_RING.leaseLabel(), ring))).editSpec()
                .withHolderIdentity(holder).withLeaseDurationSeconds(10).withAcquireTime(renewTime).withRenewTime(renewTime)
                .endSpec().build();
    }

    private static Lease lease(String name, Map<String, String> labels) {
        return new LeaseBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata()
                .withNewSpec().withHolderIdentity(name).withLeaseDurationSeconds(15).endSpec().build();
    }

    private static void patchLabel(KubernetesClient client, String namespace, String lease, String label, String value) {
        client.leases().inNamespace(namespace).withName(lease).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"labels\":{\"" + label + "\":\"" + value + "\"}}}");
    }

    /** The write is refused by the policy (403), with its message. */
    private static void assertDenied(String message, ThrowingRunnable write) {
        KubernetesClientException refused = assertThrows(message, KubernetesClientException.class, write);
        assertEquals(refused.getMessage(), 403, refused.getCode());
        assertTrue(refused.getMessage(), refused.getMessage().contains("ValidatingAdmissionPolicy '" + POLICY + "'")
                && refused.getMessage().contains(message));
    }

    /** The first 8 hex digits of the name's SHA-256, as docs/design.md section 1 defines the ClusterRing suffix. */
    private static String sha8(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
