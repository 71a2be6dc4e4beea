package dev.ringmaster.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.cli.simulate.RingPreviewResult.ShardCounts;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.consistent.ConsistentHashStrategy;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.sharder.survey.RingSurvey;
import dev.ringmaster.sharder.survey.SurveyedObject;
import dev.ringmaster.sharder.survey.SurveyedShard;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The preview's numbers against {@code python3 testing/placement-vectors/placements.py ring-preview},
 * which places and counts the same ring with its own implementation of both strategies.
 */
class RingPreviewTest {

    /**
     * shard-0 … shard-2 available (shard-2 expired), shard-3 dead; the sharder's labels agree except on
     * shard-1, which it labelled dead (a sharder with another detector), and shard-2, which it has not
     * labelled yet.
     */
    private static final List<SurveyedShard> SHARDS = List.of(
            new SurveyedShard("shard-0", ShardState.READY, 1, Optional.of(ShardState.READY)),
            new SurveyedShard("shard-1", ShardState.READY, 1, Optional.of(ShardState.DEAD)),
            new SurveyedShard("shard-2", ShardState.EXPIRED, 1, Optional.empty()),
            new SurveyedShard("shard-3", ShardState.DEAD, 1, Optional.of(ShardState.DEAD)));

    /**
     * cm-0 … cm-59 of namespace preview, labelled as placements.py's {@code preview_label}: every tenth
     * from cm-9 on unassigned, every tenth from cm-8 on in drain, cm-37 on shard-gone (no Lease), the
     * others on shard-(i mod 4); cm-0 … cm-19 each control an object; and two objects without a key.
     */
    private static List<SurveyedObject> objects() {
        List<SurveyedObject> objects = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            PartitionKey key = PartitionKey.key("/ConfigMap/preview/cm-" + i);
            String shard = i % 10 == 9 ? "" : i == 37 ? "shard-gone" : "shard-" + (i % 4);
            objects.add(new SurveyedObject(Role.MAIN, key, shard, i % 10 == 8));
            if (i < 20) {
                objects.add(new SurveyedObject(Role.CONTROLLED, key, shard, false));
            }
        }
        objects.add(new SurveyedObject(Role.MAIN, PartitionKey.invalid("no name"), "", false));
        objects.add(new SurveyedObject(Role.CONTROLLED, PartitionKey.notAssigned("no controller"), "", false));
        return objects;
    }

    private static RingSurvey survey(Optional<String> specStrategy, Optional<String> reportedStrategy) {
        return new RingSurvey(RingKind.CONTROLLER_RING, "preview", specStrategy, reportedStrategy, SHARDS, objects(),
                List.of());
    }

    private static RingPreviewResult preview() {
        RingSurvey survey = survey(Optional.empty(), Optional.empty());
        return RingPreview.run(survey,
                new RingPreview.Placement("consistent-hash", "test", new ConsistentHashStrategy().build(survey.availableShards())),
                new RingPreview.Placement("rendezvous", "candidate", new RendezvousStrategy().build(survey.availableShards())));
    }

    @Test
    void countsPerShardAsPinned() {
        Map<String, ShardCounts> expected = new LinkedHashMap<>();
        expected.put("shard-0", new ShardCounts("ready", "ready", 15, 17, 19));
        expected.put("shard-1", new ShardCounts("ready", "dead", 11, 27, 27));
        expected.put("shard-2", new ShardCounts("expired", "", 15, 16, 14));
        expected.put("shard-3", new ShardCounts("dead", "dead", 12, 0, 0));
        expected.put("shard-gone", new ShardCounts(ShardCounts.NO_LEASE, "", 1, 0, 0));
        assertThat(preview().perShard()).containsExactlyEntriesOf(expected);
    }

    @Test
    void movesAndDisagreementAsPinned() {
        RingPreviewResult result = preview();
        assertThat(result.ring()).isEqualTo("ControllerRing/preview");
        assertThat(result.shards()).isEqualTo(4);
        assertThat(result.availableShards()).isEqualTo(3);
        assertThat(result.objects()).isEqualTo(60);
        assertThat(result.controlled()).isEqualTo(20);
        assertThat(result.unkeyed()).isEqualTo(2);
        assertThat(result.moved()).isEqualTo(34);
        assertThat(result.controlledMoved()).isEqualTo(12);
        assertThat(result.elsewhere()).isEqualTo(35);
        assertThat(result.draining()).isEqualTo(6);
        assertThat(result.unassigned()).isEqualTo(6);
        assertThat(result.notWhereCurrentPuts()).isEqualTo(47);
        assertThat(result.judgedOtherwise()).containsExactly("shard-1");
    }

    @Test
    void theSameStrategyMovesNothing() {
        RingSurvey survey = survey(Optional.empty(), Optional.empty());
        RingPreviewResult result = RingPreview.run(survey,
                new RingPreview.Placement("rendezvous", "test", new RendezvousStrategy().build(survey.availableShards())),
                new RingPreview.Placement("rendezvous", "candidate", new RendezvousStrategy().build(survey.availableShards())));
        assertThat(result.moved()).isZero();
        assertThat(result.controlledMoved()).isZero();
        result.perShard().values().forEach(counts -> assertThat(counts.candidate()).isEqualTo(counts.current()));
    }

    @Test
    void withoutAvailableShardsNothingIsPlaced() {
        RingSurvey survey = new RingSurvey(RingKind.CLUSTER_RING, "idle", Optional.empty(), Optional.empty(),
                List.of(new SurveyedShard("shard-0", ShardState.DEAD, 1, Optional.empty())), objects(), List.of());
        RingPreviewResult result = RingPreview.run(survey,
                new RingPreview.Placement("consistent-hash", "test", new ConsistentHashStrategy().build(List.of())),
                new RingPreview.Placement("rendezvous", "candidate", new RendezvousStrategy().build(List.of())));
        assertThat(result.availableShards()).isZero();
        assertThat(result.moved()).isZero();
        assertThat(result.elsewhere()).isZero();
        assertThat(result.unassigned()).isEqualTo(6);
        assertThat(result.toTable()).contains("no shard is available");
    }

    @Test
    void aStrategyThatPlacesOnAShardOutsideTheRingFails() {
        RingSurvey survey = survey(Optional.empty(), Optional.empty());
        ShardRing outside = new ShardRing() {
            @Override
            public List<Shard> shards() {
                return survey.availableShards();
            }

            @Override
            public Optional<String> shardFor(String key) {
                return Optional.of("shard-3"); // dead
            }
        };
        assertThatThrownBy(() -> RingPreview.run(survey,
                new RingPreview.Placement("consistent-hash", "test", new ConsistentHashStrategy().build(survey.availableShards())),
                new RingPreview.Placement("broken", "candidate", outside)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("strategy broken placed an object on shard-3, which is not an available shard of the ring");
    }

    @Test
    void theStrategyInForceComesFromTheOptionTheReadyConditionTheSpecOrTheBuiltInDefault() {
        assertThat(RingPreview.strategyInForce(Optional.of("jump-hash"), survey(Optional.of("rendezvous"), Optional.of("rendezvous"))))
                .isEqualTo(Map.entry("jump-hash", "--current-strategy"));
        // the ring asks for a strategy the sharder lacks, and the sharder goes on with the one before
        assertThat(RingPreview.strategyInForce(Optional.empty(), survey(Optional.of("jump-hash"), Optional.of("rendezvous"))))
                .isEqualTo(Map.entry("rendezvous", "in force, as the ring's Ready condition says"));
        assertThat(RingPreview.strategyInForce(Optional.empty(), survey(Optional.of("rendezvous"), Optional.empty())))
                .isEqualTo(Map.entry("rendezvous", "spec.strategy"));
        assertThat(RingPreview.strategyInForce(Optional.empty(), survey(Optional.empty(), Optional.empty())).getKey())
                .isEqualTo("consistent-hash");
    }

    @Test
    void jsonHasTheDocumentedFields() {
        assertThat(preview().toJson()).isEqualTo("{\"ring\":\"ControllerRing/preview\",\"currentStrategy\":\"consistent-hash\","
                + "\"currentStrategySource\":\"test\",\"strategy\":\"rendezvous\",\"shards\":4,\"availableShards\":3,"
                + "\"objects\":60,\"controlledObjects\":20,\"unkeyedObjects\":2,\"moved\":34,\"movedFraction\":0.566667,"
                + "\"controlledMoved\":12,\"notWhereCurrentPuts\":{\"elsewhere\":35,\"draining\":6,\"unassigned\":6},"
                + "\"perShard\":{\"shard-0\":{\"state\":\"ready\",\"sharderState\":\"ready\",\"labelled\":15,\"current\":17,\"candidate\":19},"
                + "\"shard-1\":{\"state\":\"ready\",\"sharderState\":\"dead\",\"labelled\":11,\"current\":27,\"candidate\":27},"
                + "\"shard-2\":{\"state\":\"expired\",\"sharderState\":\"\",\"labelled\":15,\"current\":16,\"candidate\":14},"
                + "\"shard-3\":{\"state\":\"dead\",\"sharderState\":\"dead\",\"labelled\":12,\"current\":0,\"candidate\":0},"
                + "\"shard-gone\":{\"state\":\"no-lease\",\"sharderState\":\"\",\"labelled\":1,\"current\":0,\"candidate\":0}},"
                + "\"judgedOtherwiseBySharder\":[\"shard-1\"],\"unservedResources\":[]}");
    }

    @Test
    void theTableShowsTheSameNumbers() {
        assertThat(preview().toTable()).contains(
                "ring      ControllerRing/preview: 4 shards, 3 available; 60 objects, 20 controlled objects follow their owners; 2 without a key\n",
                "current   consistent-hash (test)\n",
                "candidate rendezvous\n",
                "moved     34 of 60 objects (56.67%), and 12 controlled objects with them\n",
                "labels    47 objects not where consistent-hash puts them: 35 on another shard, 6 in drain, 6 unassigned\n",
                "          the sharder's state label says otherwise of shard-1 (SHARDER column): a sharder with another"
                        + " lease detector places by its own verdicts\n",
                "shard-1                  ready      dead              11        27        27\n",
                "shard-2                  expired    -                 15        16        14\n",
                "shard-gone               no-lease   -                  1         0         0\n");
    }
}
