package dev.ringmaster.examples.checksum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.examples.checksum.ChecksumReconciler.Outcome;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The controller's logic alone, against the CRUD mock server: what it writes, and when it does not. */
@EnableCrudApiServer
class ChecksumReconcilerTest {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();
    private static final String SHARD_LABEL = RingContract.shardLabel("checksums");

    KubernetesClient client;
    KubernetesMockServer server;

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private String namespace;
    private ChecksumReconciler reconciler;

    @BeforeEach
    void setUp() {
        namespace = "reconciler-test-" + NAMESPACES.incrementAndGet();
        reconciler = new ChecksumReconciler(client, new SteppingClock(1_000, 7), "shard-0", lines::add);
    }

    @Test
    void createsTheSecretWithTheChecksumsControlledByTheConfigMap() {
        ConfigMap configMap = configMap("app", Map.of("a", "abc", "b", "x"));

        assertThat(reconciler.reconcile(configMap)).isEqualTo(Outcome.CREATED);

        Secret secret = secret("checksums-app");
        assertThat(Checksums.fromSecretData(secret.getData())).isEqualTo(Checksums.of(configMap))
                .containsEntry("a", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(secret.getType()).isEqualTo("Opaque");
        assertThat(secret.getMetadata().getLabels())
                .containsExactly(Map.entry(ChecksumReconciler.MANAGED_BY_LABEL, ChecksumReconciler.MANAGED_BY));
        assertThat(secret.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
            assertThat(owner.getApiVersion()).isEqualTo("v1");
            assertThat(owner.getKind()).isEqualTo("ConfigMap");
            assertThat(owner.getName()).isEqualTo("app");
            assertThat(owner.getUid()).isEqualTo(configMap.getMetadata().getUid()).isNotBlank();
            assertThat(owner.getController()).isTrue();
            assertThat(owner.getBlockOwnerDeletion()).isTrue();
        });
        assertThat(ChecksumReconciler.isUpToDate(configMap, secret)).isTrue();
    }

    @Test
    void everyReconcileLogsOneLineWithItsStartAndEnd() {
        ConfigMap configMap = configMap("app", Map.of("a", "1"));
        reconciler.reconcile(configMap);
        reconciler.reconcile(configMap);

        assertThat(lines).containsExactly(
                "reconcile shard=shard-0 object=" + namespace + "/app start=1000 end=1007",
                "reconcile shard=shard-0 object=" + namespace + "/app start=1014 end=1021");
    }

    @Test
    void anUpToDateSecretCostsOneReadAndNoWrite() {
        ConfigMap configMap = configMap("app", Map.of("a", "1"));
        reconciler.reconcile(configMap);
        int before = server.getRequestCount();

        assertThat(reconciler.reconcile(configMap)).isEqualTo(Outcome.UNCHANGED);
        assertThat(server.getRequestCount() - before).as("one GET").isEqualTo(1);
    }

    @Test
    void changedDataUpdatesTheSecretAndKeepsWhatOthersWrote() {
        ConfigMap configMap = configMap("app", Map.of("a", "1"));
        reconciler.reconcile(configMap);
        // the sharder assigns the Secret with its owner; someone annotates it
        client.secrets().inNamespace(namespace).withName("checksums-app").edit(secret -> new SecretBuilder(secret)
                .editMetadata().addToLabels(SHARD_LABEL, "shard-0").addToAnnotations("note", "kept").endMetadata().build());
        ConfigMap changed = client.configMaps().inNamespace(namespace).withName("app")
                .edit(cm -> new ConfigMapBuilder(cm).addToData("a", "2").addToData("c", "3").build());

        assertThat(reconciler.reconcile(changed)).isEqualTo(Outcome.UPDATED);

        Secret secret = secret("checksums-app");
        assertThat(Checksums.fromSecretData(secret.getData())).isEqualTo(Checksums.of(changed)).containsOnlyKeys("a", "c");
        assertThat(secret.getMetadata().getLabels()).containsEntry(SHARD_LABEL, "shard-0");
        assertThat(secret.getMetadata().getAnnotations()).containsEntry("note", "kept");
        assertThat(secret.getMetadata().getOwnerReferences()).hasSize(1);
    }

    @Test
    void aTamperedSecretIsRepaired() {
        ConfigMap configMap = configMap("app", Map.of("a", "1"));
        reconciler.reconcile(configMap);
        client.secrets().inNamespace(namespace).withName("checksums-app").edit(secret -> new SecretBuilder(secret)
                .withData(Map.of("a", "Zm9yZ2Vk", "extra", "eA==")).build());

        assertThat(reconciler.reconcile(configMap)).isEqualTo(Outcome.UPDATED);
        assertThat(ChecksumReconciler.isUpToDate(configMap, secret("checksums-app"))).isTrue();
    }

    @Test
    void aSecretWithoutControllerIsAdoptedAndItsOtherOwnersKept() {
        ConfigMap configMap = configMap("app", Map.of("a", "1"));
        OwnerReference other = new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder().withApiVersion("v1")
                .withKind("ConfigMap").withName("another").withUid("uid-another").build();
        client.secrets().inNamespace(namespace).resource(new SecretBuilder().withNewMetadata().withName("checksums-app")
                .withNamespace(namespace).withOwnerReferences(other).endMetadata().build()).create();

        assertThat(reconciler.reconcile(configMap)).isEqualTo(Outcome.UPDATED);

        Secret secret = secret("checksums-app");
        assertThat(ChecksumReconciler.isUpToDate(configMap, secret)).isTrue();
        assertThat(secret.getMetadata().getOwnerReferences()).hasSize(2).contains(other);
    }

    @Test
    void aSecretControlledByAnotherObjectIsLeftAlone() {
        ConfigMap configMap = configMap("app", Map.of("a", "1"));
        Secret foreign = client.secrets().inNamespace(namespace).resource(new SecretBuilder().withNewMetadata()
                .withName("checksums-app").withNamespace(namespace).addNewOwnerReference().withApiVersion("v1")
                .withKind("ConfigMap").withName("app").withUid("uid-of-an-earlier-app").withController(true)
                .endOwnerReference().endMetadata().addToData("a", "eA==").build()).create();

        assertThatThrownBy(() -> reconciler.reconcile(configMap)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is controlled by ConfigMap app (uid uid-of-an-earlier-app)");

        assertThat(secret("checksums-app").getData()).isEqualTo(foreign.getData());
        assertThat(lines).as("a failed reconcile is still logged").hasSize(1);
    }

    @Test
    void aConflictReadsTheSecretAgainAndRetries() {
        ConfigMap configMap = configMap("app", Map.of("a", "1"));
        reconciler.reconcile(configMap);
        ConfigMap changed = client.configMaps().inNamespace(namespace).withName("app")
                .edit(cm -> new ConfigMapBuilder(cm).addToData("a", "2").build());
        // the next update of the Secret loses a race once
        server.expect().put().withPath("/api/v1/namespaces/" + namespace + "/secrets/checksums-app")
                .andReturn(409, new StatusBuilder().withCode(409).withReason("Conflict")
                        .withMessage("the object has been modified").build()).once();

        int before = server.getRequestCount();

        assertThat(reconciler.reconcile(changed)).isEqualTo(Outcome.UPDATED);
        assertThat(server.getRequestCount() - before).as("GET, PUT (409), GET, PUT").isEqualTo(4);
        assertThat(ChecksumReconciler.isUpToDate(changed, secret("checksums-app"))).isTrue();
    }

    @Test
    void aConfigMapBeingDeletedIsLeftToTheGarbageCollector() {
        ConfigMap deleting = new ConfigMapBuilder(configMap("app", Map.of("a", "1")))
                .editMetadata().withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata().build();

        assertThat(reconciler.reconcile(deleting)).isEqualTo(Outcome.SKIPPED);
        assertThat(client.secrets().inNamespace(namespace).withName("checksums-app").get()).isNull();
    }

    private ConfigMap configMap(String name, Map<String, String> data) {
        return client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata()
                .withName(name).withNamespace(namespace).endMetadata().withData(data).build()).create();
    }

    private Secret secret(String name) {
        return client.secrets().inNamespace(namespace).withName(name).get();
    }
}
