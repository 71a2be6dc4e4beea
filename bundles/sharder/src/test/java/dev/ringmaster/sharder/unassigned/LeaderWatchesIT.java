package dev.ringmaster.sharder.unassigned;

import static dev.ringmaster.sharder.testing.TestRings.configMapRing;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.runtime.Backoff;
import dev.ringmaster.sharder.runtime.Controller;
import dev.ringmaster.sharder.runtime.Reconciler.Result;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The leader's watches of a ring's objects ({@link UnassignedWatches}, {@link DrainWatches}) on a real API
 * server, started before the sharder may list the ring's resource: the first lists are forbidden (403), then
 * a ClusterRole is bound, as when the RBAC of an install is applied after the sharder or is briefly denied.
 * fabric8 gives up on an informer whose first list fails; these retry, so they list once allowed and the ring's
 * unassigned and drained objects are seen within the term.
 */
class LeaderWatchesIT {

    private static final String NAMESPACE = "leader-watches-it";
    /** A ring of its own: no other test's object carries its drain label. */
    private static final String RING = "leader-watches-it";
    private static final RingKey KEY = RingKey.clusterRing(RING);

    private static final RealApiServer CLUSTER = RealApiServer.shared();
    private static final KubernetesClient ADMIN = CLUSTER.admin();
    private static KubernetesClient sharder;

    @BeforeAll
    static void aSharderWithoutRights() {
        ADMIN.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
                .serverSideApply();
        sharder = CLUSTER.clientFor(CLUSTER.serviceAccountKubeconfig(NAMESPACE, "sharder",
                CLUSTER.workFolder(NAMESPACE).resolve("sharder.kubeconfig")));
        ADMIN.rbac().clusterRoleBindings().withName(NAMESPACE).delete();
    }

    @AfterAll
    static void closeClient() {
        sharder.close();
        ADMIN.rbac().clusterRoleBindings().withName(NAMESPACE).delete();
    }

    @Test
    void watchesStartedWhileForbiddenListOnceTheSharderMay() {
        assertThatThrownBy(() -> sharder.configMaps().inAnyNamespace().list()).as("the sharder may not list ConfigMaps yet")
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
        RingRegistry registry = new RingRegistry();
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(configMapRing(RING)))
                .withInterpreters(Map.of(DefaultResourceInterpreter.NAME, new DefaultResourceInterpreter())));
        ResourceCatalog catalog = new ResourceCatalog(sharder); // discovery is open to every authenticated user
        WatchedResource configMaps = new WatchedResource(KEY, catalog.resolve("", "configmaps").orElseThrow(), Role.MAIN);
        Set<UnassignedObject> queued = ConcurrentHashMap.newKeySet();
        Controller<UnassignedObject> assigner = new Controller<>("unassigned", object -> {
            queued.add(object);
            return Result.done();
        }, 1, Backoff.DEFAULT);
        assigner.start();
        try (UnassignedWatches unassigned = new UnassignedWatches(sharder, catalog, assigner);
                DrainWatches drains = new DrainWatches(sharder, catalog, Clock.systemUTC())) {
            unassigned.sync(registry.views());
            drains.sync(registry.views());
            ADMIN.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata()
                    .withName("unassigned").endMetadata().build()).serverSideApply();
            ADMIN.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata().withName("drained")
                    .withLabels(Map.of(RingContract.shardLabel(RING), "shard-0", RingContract.drainLabel(RING), "true"))
                    .endMetadata().build()).serverSideApply();
            // the watches list at once when started: seeing nothing for seconds, they were refused
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                    .until(() -> queued.isEmpty() && drains.inDrain(KEY) == 0);

            allowListingConfigMaps();

            UnassignedObject object = new UnassignedObject(configMaps, NAMESPACE, "unassigned");
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(queued).as("queued for assignment").contains(object);
                assertThat(unassigned.get(object)).as("cached as unassigned").isPresent();
                assertThat(drains.inDrain(KEY)).as("objects in drain").isEqualTo(1);
            });
        } finally {
            assigner.close();
        }
    }

    /** clusterrole.yaml's rule for a sharded resource, as far as the watches need it. */
    private static void allowListingConfigMaps() {
        ADMIN.rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName(NAMESPACE).endMetadata()
                .withRules(new PolicyRuleBuilder().withApiGroups("").withResources("configmaps").withVerbs("list", "watch")
                        .build()).build()).forceConflicts().serverSideApply();
        ADMIN.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(NAMESPACE)
                .endMetadata().withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", NAMESPACE).addNewSubject()
                .withKind("ServiceAccount").withName("sharder").withNamespace(NAMESPACE).endSubject().build())
                .forceConflicts().serverSideApply();
    }
}
