package dev.ringmaster.sharder.survey.internal;

import static dev.ringmaster.sharder.testing.TestLeases.create;
import static dev.ringmaster.sharder.testing.TestLeases.shardLease;
import static dev.ringmaster.sharder.testing.TestRings.configMapRing;
import static dev.ringmaster.sharder.testing.TestRings.main;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.kube.TestNamespaces;
import dev.ringmaster.sharder.lease.DefaultLeaseDetector;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.RingStatus;
import dev.ringmaster.sharder.survey.RingSurvey;
import dev.ringmaster.sharder.survey.RingSurveyException;
import dev.ringmaster.sharder.survey.SurveyedObject;
import dev.ringmaster.sharder.survey.SurveyedShard;
import dev.ringmaster.sharder.testing.TestDiscovery;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A ring read as the sharder reads it, on the mock server: its strategy, Leases judged, objects in scope keyed. */
@EnableCrudApiServer
class LiveRingSurveyTest {

    private static final String RING = "example";
    private static final Instant NOW = Instant.parse("2026-11-26T09:00:00Z");

    KubernetesClient client;
    KubernetesMockServer server;

    private final Map<String, ResourceInterpreter> interpreters = Map.of(DefaultResourceInterpreter.NAME,
            new DefaultResourceInterpreter(), "namespace", (object, resource) -> PartitionKey.key(object.namespace()));

    @BeforeEach
    void cluster() {
        TestDiscovery.serveCoreV1(server, TestDiscovery.CONFIG_MAPS, TestDiscovery.SECRETS);
        for (String namespace : List.of("default", "team", "kube-system")) {
            TestNamespaces.create(client, namespace, Map.of());
        }
        create(client, shardLease("team", "shard-0", RING, NOW.minusSeconds(5), 10));
        create(client, shardLease("team", "shard-1", RING, NOW.minusSeconds(5), 10).editSpec().withHolderIdentity("").endSpec()
                .editMetadata().addToLabels(RingContract.STATE_LABEL, "ready").endMetadata());
        create(client, shardLease("team", "other-ring", "other", NOW.minusSeconds(5), 10));
        ConfigMap owner = client.configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata()
                .withName("a").addToLabels(RingContract.shardLabel(RING), "shard-0")
                .addToLabels(RingContract.drainLabel(RING), "true").endMetadata().build()).create();
        client.configMaps().inNamespace("team").resource(new ConfigMapBuilder().withNewMetadata().withName("b")
                .endMetadata().build()).create();
        client.configMaps().inNamespace("kube-system").resource(new ConfigMapBuilder().withNewMetadata().withName("c")
                .endMetadata().build()).create();
        client.secrets().inNamespace("default").resource(new SecretBuilder().withNewMetadata().withName("a-child")
                .addToLabels(RingContract.shardLabel(RING), "shard-0").addNewOwnerReference().withApiVersion("v1")
                .withKind("ConfigMap").withName("a").withUid(owner.getMetadata().getUid()).withController(true)
                .endOwnerReference().endMetadata().build()).create();
        client.secrets().inNamespace("team").resource(new SecretBuilder().withNewMetadata().withName("loose")
                .endMetadata().build()).create();
    }

    private RingSurvey survey() throws RingSurveyException {
        return new LiveRingSurvey(client, interpreters, new DefaultLeaseDetector(), Clock.fixed(NOW, ZoneOffset.UTC))
                .survey(RingKind.CLUSTER_RING, RING);
    }

    private void ring(ClusterRing ring) {
        client.resources(ClusterRing.class).resource(ring).create();
    }

    @Test
    void theShardsJudgedAndTheObjectsInScopeKeyed() throws RingSurveyException {
        ring(configMapRing(RING));
        RingSurvey survey = survey();

        assertThat(survey.ring()).isEqualTo("ClusterRing/example");
        assertThat(survey.specStrategy()).isEmpty();
        assertThat(survey.reportedStrategy()).isEmpty();
        // the sharder labelled shard-1 ready once; judged now it is dead (released)
        assertThat(survey.shards()).containsExactly(new SurveyedShard("shard-0", ShardState.READY, 1, Optional.empty()),
                new SurveyedShard("shard-1", ShardState.DEAD, 1, Optional.of(ShardState.READY)));
        assertThat(survey.shards().get(1).judgedOtherwiseBySharder()).isTrue();
        assertThat(survey.availableShards()).extracting(shard -> shard.name()).containsExactly("shard-0");
        // kube-system is not in the default namespace selector's scope
        assertThat(survey.objects()).containsExactlyInAnyOrder(
                new SurveyedObject(Role.MAIN, PartitionKey.key("/ConfigMap/default/a"), "shard-0", true),
                new SurveyedObject(Role.MAIN, PartitionKey.key("/ConfigMap/team/b"), "", false),
                new SurveyedObject(Role.CONTROLLED, PartitionKey.key("/ConfigMap/default/a"), "shard-0", false),
                new SurveyedObject(Role.CONTROLLED, PartitionKey.notAssigned("the object has no controller owner reference"),
                        "", false));
        assertThat(survey.unservedResources()).isEmpty();
    }

    @Test
    void theStrategyOfTheSpecAndTheOneTheReadyConditionReports() throws RingSurveyException {
        ring(configMapRing(RING, "rendezvous"));
        ClusterRing ring = client.resources(ClusterRing.class).withName(RING).get();
        RingStatus status = new RingStatus();
        status.setObservedGeneration(ring.getMetadata().getGeneration());
        status.setConditions(List.of(new ConditionBuilder().withType("Ready").withStatus("True")
                .withMessage("sharding with strategy \"rendezvous\" (spec.strategy)").build()));
        ring.setStatus(status);
        client.resources(ClusterRing.class).resource(ring).updateStatus();

        RingSurvey survey = survey();
        assertThat(survey.specStrategy()).contains("rendezvous");
        assertThat(survey.reportedStrategy()).contains("rendezvous");

        // the ring asks for a strategy the sharder lacks; the sharder goes on with the one before and says so
        ring = client.resources(ClusterRing.class).withName(RING).get();
        ring.getSpec().setStrategy("jump-hash");
        ring = client.resources(ClusterRing.class).resource(ring).update();
        ring.getStatus().setObservedGeneration(ring.getMetadata().getGeneration());
        ring.getStatus().setConditions(List.of(new ConditionBuilder().withType("Ready").withStatus("False")
                .withReason("StrategyUnavailable").withMessage("partitioning strategy \"jump-hash\" (spec.strategy) is not"
                        + " available; still sharding with strategy \"rendezvous\" (spec.strategy)").build()));
        client.resources(ClusterRing.class).resource(ring).updateStatus();
        survey = survey();
        assertThat(survey.specStrategy()).contains("jump-hash");
        assertThat(survey.reportedStrategy()).contains("rendezvous");
    }

    @Test
    void theRingsInterpretersKeyAndResourcesNotServedAreNamed() throws RingSurveyException {
        ClusterRing ring = configMapRing(RING);
        ring.getSpec().getResources().get(0).setInterpreter("namespace");
        ring.getSpec().getResources().add(main("apps", "deployments"));
        ring(ring);

        RingSurvey survey = survey();
        assertThat(survey.objects()).filteredOn(object -> object.role() == Role.MAIN).extracting(SurveyedObject::key)
                .containsExactlyInAnyOrder(PartitionKey.key("default"), PartitionKey.key("team"));
        assertThat(survey.unservedResources()).containsExactly("apps/deployments");
    }

    @Test
    void noSuchRingAnInvalidRingAndAMissingInterpreterAreRefused() {
        assertThatThrownBy(this::survey).isInstanceOf(RingSurveyException.class)
                .hasMessage("there is no ClusterRing named example");

        ClusterRing ring = configMapRing(RING);
        ring.getSpec().getResources().get(0).setInterpreter("by-team");
        ring(ring);
        assertThatThrownBy(this::survey).hasMessage("ClusterRing/example needs resource interpreter by-team, which is"
                + " not deployed here (add its bundle to deploy/)");

        ring.getSpec().getResources().add(main("", "configmaps"));
        client.resources(ClusterRing.class).resource(ring).update();
        assertThatThrownBy(this::survey).hasMessageStartingWith("ClusterRing/example is invalid: ");
    }

    @Test
    void aControllerRingIsReadByItsOwnLabels() throws RingSurveyException {
        client.resources(dev.ringmaster.sharder.model.ControllerRing.class)
                .resource(dev.ringmaster.sharder.testing.TestRings.configMapControllerRing(RING)).create();
        RingSurvey survey = new LiveRingSurvey(client, interpreters, new DefaultLeaseDetector(),
                Clock.fixed(NOW, ZoneOffset.UTC)).survey(RingKind.CONTROLLER_RING, RING);
        // the Leases carry the ClusterRing label only, and the objects its labels
        assertThat(survey.shards()).isEmpty();
        assertThat(survey.objects()).filteredOn(object -> object.role() == Role.MAIN)
                .allSatisfy(object -> assertThat(object.isAssigned()).isFalse());
        assertThat(survey.specStrategy()).isEqualTo(Optional.empty());
    }
}
