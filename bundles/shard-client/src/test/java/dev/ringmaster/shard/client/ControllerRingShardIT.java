package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A shard of the ControllerRing "ring-it" on a real API server, with a shard's permissions: its Lease
 * carries the ControllerRing label, its informer sees exactly the objects labelled with the ring's name
 * and its shard name, and it hands a drained object back by removing both labels. The test writes the
 * ring's labels as the reference sharder (v0.9.0 to v0.13.0) would; the strings are pinned here, not computed.
 */
class ControllerRingShardIT {

    private static final String NAMESPACE = "controllerring-it";
    private static final String RING = "ring-it";
    private static final String SHARD_LABEL = "shard.alpha.sharding.timebertt.dev/ring-it";
    private static final String DRAIN_LABEL = "drain.alpha.sharding.timebertt.dev/ring-it";
    /** The ClusterRing "ring-it"'s shard label (sha256 of the name starts with 593bb297): another ring. */
    private static final String CLUSTER_RING_SHARD_LABEL = "shard.alpha.sharding.timebertt.dev/clusterring-593bb297-ring-it";

    private static final RealApiServer CLUSTER = RealApiServer.shared();
    private static final KubernetesClient ADMIN = CLUSTER.admin();
    private static KubernetesClient client;
    private static Sharding sharding;
    private static SharedIndexInformer<ConfigMap> informer;
    private static ShardedReconciler<ConfigMap> reconciler;
    private static final Set<String> reconciled = ConcurrentHashMap.newKeySet();

    @BeforeAll
    static void startTheShard() {
        client = CLUSTER.clientAs(NAMESPACE, "shard-0", List.of(
                new PolicyRuleBuilder().withApiGroups("coordination.k8s.io").withResources("leases")
                        .withVerbs("get", "create", "update").build(),
                new PolicyRuleBuilder().withApiGroups("").withResources("configmaps")
                        .withVerbs("get", "list", "watch", "patch").build()));

        create("mine", Map.of(SHARD_LABEL, "shard-0", "app", "demo"));
        create("other-shard", Map.of(SHARD_LABEL, "shard-1"));
        create("cluster-ring", Map.of(CLUSTER_RING_SHARD_LABEL, "shard-0"));
        create("other-ring", Map.of("shard.alpha.sharding.timebertt.dev/other", "shard-0"));
        create("unassigned", Map.of());

        sharding = Sharding.forRing(RING).ringKind(RingKind.CONTROLLER_RING).shard("shard-0").namespace(NAMESPACE)
                .client(client).leaseDuration(Duration.ofSeconds(6)).renewDeadline(Duration.ofSeconds(4))
                .retryPeriod(Duration.ofSeconds(1)).build();
        informer = sharding.informers().runnableInformer(client.configMaps().inNamespace(NAMESPACE));
        reconciler = ShardedReconciler.builder(sharding, informer)
                .reconciler(cm -> reconciled.add(cm.getMetadata().getName())).build();
        reconciler.start();
        sharding.lease().start();
        informer.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> sharding.lease().isHeld() && informer.hasSynced());
    }

    @AfterAll
    static void stopTheShard() {
        if (informer != null) {
            informer.close();
        }
        if (reconciler != null) {
            reconciler.close();
        }
        if (sharding != null) {
            sharding.close();
        }
        if (client != null) {
            client.close();
        }
    }

    @Test
    void theLeaseNamesTheControllerRing() {
        Lease lease = ADMIN.leases().inNamespace(NAMESPACE).withName("shard-0").get();

        assertThat(lease.getMetadata().getLabels())
                .containsOnly(entry("alpha.sharding.timebertt.dev/controllerring", RING));
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("shard-0");
    }

    @Test
    void theInformerSeesExactlyThisShardsObjectsOfTheRing() {
        assertThat(names(informer.getStore().list())).contains("mine")
                .doesNotContain("other-shard", "cluster-ring", "other-ring", "unassigned");

        create("mine-later", Map.of(SHARD_LABEL, "shard-0"));
        create("other-later", Map.of(SHARD_LABEL, "shard-1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> reconciled.contains("mine-later"));

        assertThat(names(informer.getStore().list()))
                .doesNotContain("other-shard", "cluster-ring", "other-ring", "unassigned", "other-later");
        assertThat(reconciled).contains("mine")
                .doesNotContain("other-shard", "cluster-ring", "other-ring", "unassigned", "other-later");
    }

    @Test
    void aDrainedObjectIsHandedBackByRemovingBothLabels() {
        create("drained", Map.of(SHARD_LABEL, "shard-0", "app", "demo"));
        await().atMost(Duration.ofSeconds(10)).until(() -> reconciled.contains("drained"));

        // the reference sharder asks the shard to let go
        ADMIN.configMaps().inNamespace(NAMESPACE).withName("drained").edit(cm -> new ConfigMapBuilder(cm)
                .editMetadata().addToLabels(DRAIN_LABEL, "true").endMetadata().build());

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                ADMIN.configMaps().inNamespace(NAMESPACE).withName("drained").get().getMetadata().getLabels())
                .containsOnly(entry("app", "demo")));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(names(informer.getStore().list())).doesNotContain("drained"));
    }

    private static void create(String name, Map<String, String> labels) {
        ADMIN.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata()
                .withName(name).withLabels(labels).endMetadata().addToData("k", "v").build()).create();
    }

    private static List<String> names(List<? extends HasMetadata> objects) {
        return objects.stream().map(o -> o.getMetadata().getName()).sorted().toList();
    }
}
