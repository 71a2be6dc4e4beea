package dev.ringmaster.itests.support;

import dev.ringmaster.itests.SharderIT;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.sandbox.EmbeddedApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The sandbox's API server ({@link EmbeddedApiServer}: fabric8's mock server, CRUD over HTTPS, with
 * core discovery) with the cluster {@link dev.ringmaster.itests.SharderIT} starts from, and the shards' lease renewals. <strong>Test JVM only</strong>: the mock server runs on Vert.x, whose
 * jars are not bundles (BOM trap 10), so this class must never be loaded inside the framework. Only
 * the driver side of {@link dev.ringmaster.itests.SharderIT} (its {@code @Configuration} method) and
 * {@link SharderPaxExam} touch it, and they hand the framework nothing but the URL.
 *
 * <p>The cluster: namespaces {@code default} and {@code sharding-system} (with the
 * {@code kubernetes.io/metadata.name} label a real API server sets), the ClusterRing CRD read from the
 * distribution's sharder bundle, two shard Leases of ring {@code example} renewed every
 * {@value #RENEW_SECONDS} s (the sharder judges them against real time), the ring itself (ConfigMaps
 * as main resource, Secrets controlled, no {@code spec.strategy}), and {@value SharderIT#OBJECTS} ConfigMaps,
 * each controlling one Secret.
 */
public final class MockApiServer {

    private static final String RING = SharderIT.RING;
    private static final String NAMESPACE = SharderIT.NAMESPACE;
    private static final List<String> SHARDS = SharderIT.SHARDS;
    private static final int OBJECTS = SharderIT.OBJECTS;
    private static final String RING_LABEL = "alpha.sharding.timebertt.dev/clusterring";
    private static final int LEASE_SECONDS = 15;
    private static final int RENEW_SECONDS = 2;

    private static final Logger LOG = Logger.getLogger(MockApiServer.class.getName());

    private static MockApiServer running;

    private final EmbeddedApiServer server;
    private final KubernetesClient client;
    private final ScheduledExecutorService renewals;

    private MockApiServer() {
        server = EmbeddedApiServer.start();
        client = server.newClient();
        renewals = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "itests-shard-lease-renewals");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts the server and creates the cluster once per JVM; the URL the framework's client uses. */
    public static synchronized String start() {
        if (running == null) {
            running = fresh();
        }
        return running.url();
    }

    /** A server of its own with the cluster created, for a test that must not share one; close it after. */
    public static MockApiServer fresh() {
        MockApiServer server = new MockApiServer();
        try {
            server.createCluster();
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** Stops renewing and shuts the server down, if it runs. */
    public static synchronized void stop() {
        if (running != null) {
            try {
                running.close();
            } finally {
                running = null;
            }
        }
    }

    public String url() {
        return server.url();
    }

    public KubernetesClient client() {
        return client;
    }

    private void createCluster() {
        try (InputStream crd = EmbeddedApiServer.crdOfShippedSharder(Distribution.home(), RingKind.CLUSTER_RING)) {
            // the server's first request, slow in a loaded JVM: a POST the client retried after a timeout
            // finds the CRD it created already there (409), which is what this call wanted
            client.apiextensions().v1().customResourceDefinitions().load(crd).createOr(NonDeletingOperation::update);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        namespace(NAMESPACE);
        namespace("sharding-system");
        for (String shard : SHARDS) {
            client.leases().inNamespace(NAMESPACE).resource(new LeaseBuilder()
                    .withNewMetadata().withNamespace(NAMESPACE).withName(shard).addToLabels(RING_LABEL, RING).endMetadata()
                    .withNewSpec().withHolderIdentity(shard).withAcquireTime(now()).withRenewTime(now())
                    .withLeaseDurationSeconds(LEASE_SECONDS).endSpec()
                    .build()).create();
        }
        renewals.scheduleWithFixedDelay(this::renewShardLeases, RENEW_SECONDS, RENEW_SECONDS, TimeUnit.SECONDS);
        client.genericKubernetesResources("sharding.timebertt.dev/v1alpha1", "ClusterRing")
                .resource(clusterRing()).create();
        for (int i = 0; i < OBJECTS; i++) {
            ConfigMap owner = client.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder()
                    .withNewMetadata().withNamespace(NAMESPACE).withName("cm-" + i).endMetadata()
                    .addToData("index", Integer.toString(i)).build()).create();
            client.secrets().inNamespace(NAMESPACE).resource(new SecretBuilder().withNewMetadata()
                    .withNamespace(NAMESPACE).withName("checksums-cm-" + i)
                    .addNewOwnerReference().withApiVersion("v1").withKind("ConfigMap")
                    .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid())
                    .withController(true).endOwnerReference()
                    .endMetadata().build()).create();
        }
    }

    private static GenericKubernetesResource clusterRing() {
        GenericKubernetesResource ring = new GenericKubernetesResource();
        ring.setApiVersion("sharding.timebertt.dev/v1alpha1");
        ring.setKind("ClusterRing");
        ring.setMetadata(new ObjectMetaBuilder().withName(RING).build());
        // no spec.strategy: the sharder's default strategy is the ring's
        ring.setAdditionalProperty("spec", Map.of("resources", List.of(Map.of(
                "group", "",
                "resource", "configmaps",
                "controlledResources", List.of(Map.of("group", "", "resource", "secrets"))))));
        return ring;
    }

    private void namespace(String name) {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
                .addToLabels("kubernetes.io/metadata.name", name).endMetadata().build()).create();
    }

    /** What a running shard does: keep holding its lease. */
    private void renewShardLeases() {
        for (String shard : SHARDS) {
            try {
                client.leases().inNamespace(NAMESPACE).withName(shard).edit(lease -> new LeaseBuilder(lease)
                        .editSpec().withHolderIdentity(shard).withRenewTime(now()).endSpec().build());
            } catch (KubernetesClientException e) {
                // a conflicting write of the sharder (state label): the next round renews
            }
        }
    }

    private static ZonedDateTime now() {
        return ZonedDateTime.now(ZoneOffset.UTC);
    }

    public void close() {
        renewals.shutdownNow();
        try {
            renewals.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        client.close();
        try {
            server.close();
        } catch (IllegalStateException e) {
            // fabric8 7.8.0's mock server gives up closing after 10 s while watch WebSockets of a
            // client it serves are still open (it releases them only after closing the server), a
            // known regression of that release. Nothing is left to test by then; the port is freed
            // with the JVM.
            LOG.warning("mock API server did not close cleanly: " + e.getMessage());
        }
    }
}
