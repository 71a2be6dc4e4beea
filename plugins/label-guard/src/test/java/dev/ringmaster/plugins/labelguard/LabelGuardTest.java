package dev.ringmaster.plugins.labelguard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every branch of the guard, with AdmissionRequests as the webhook decodes them. */
class LabelGuardTest {

    private static final String SHARDER = LabelGuardComponent.SHARDER_USER;
    private static final String CONTROLLER = "system:serviceaccount:team-a:checksum-controller";
    private static final String ALICE = "alice@example.com";
    private static final String SHARD = RingContract.shardLabel("example");
    private static final String DRAIN = RingContract.drainLabel("example");
    private static final String OTHER_SHARD = RingContract.shardLabel("other");
    private static final String OTHER_DRAIN = RingContract.drainLabel("other");

    private static final LabelGuard GUARD = new LabelGuard(
            new LabelGuard.Policy(Set.of(SHARDER, CONTROLLER), Set.of("ops:emergency"), true), LabelGuardComponent.PID);
    private static final LabelGuard STRICT = new LabelGuard(
            new LabelGuard.Policy(Set.of(SHARDER, CONTROLLER), Set.of(), false), LabelGuardComponent.PID);

    private static Map<String, Object> object(Map<String, String> labels) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", "foo");
        metadata.put("namespace", "default");
        if (labels != null) {
            metadata.put("labels", new LinkedHashMap<>(labels));
        }
        return Map.of("apiVersion", "v1", "kind", "ConfigMap", "metadata", metadata);
    }

    private static AdmissionRequest request(String operation, String user, List<String> groups,
            Map<String, String> oldLabels, Map<String, String> newLabels) {
        return new AdmissionRequest("uid-1", operation, "", "v1", "ConfigMap", "", "configmaps", "", "default", "foo",
                user, groups, false, newLabels == null ? Map.of() : object(newLabels),
                oldLabels == null ? Map.of() : object(oldLabels));
    }

    private static AdmissionRequest update(String user, Map<String, String> oldLabels, Map<String, String> newLabels) {
        return request("UPDATE", user, List.of("system:authenticated"), oldLabels, newLabels);
    }

    private static void assertAllowed(AdmissionResponse response) {
        assertThat(response.allowed()).as(response.message()).isTrue();
        assertThat(response.patch()).isEmpty();
    }

    private static AdmissionResponse assertDenied(AdmissionResponse response) {
        assertThat(response.allowed()).isFalse();
        assertThat(response.code()).isEqualTo(403);
        return response;
    }

    @Test
    void recognisesTheLabelsOfTheWireContract() {
        assertThat(RingContract.SHARD_LABEL_PREFIX).isEqualTo("shard.alpha.sharding.timebertt.dev/");
        assertThat(RingContract.DRAIN_LABEL_PREFIX).isEqualTo("drain.alpha.sharding.timebertt.dev/");
        assertThat(SHARD).isEqualTo("shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example");
    }

    @Nested
    class OnlyUpdatesAreGuarded {

        @ParameterizedTest
        @ValueSource(strings = {"CREATE", "DELETE", "CONNECT"})
        void otherOperationsAreAllowed(String operation) {
            // a CREATE with ring labels is the sharder webhook's business
            assertAllowed(GUARD.review(request(operation, ALICE, List.of(), null, Map.of(SHARD, "shard-0", DRAIN, "true"))));
            assertAllowed(GUARD.review(request(operation, ALICE, List.of(), Map.of(SHARD, "shard-0"), null)));
        }

        @Test
        void updatesThatLeaveRingLabelsAloneAreAllowed() {
            assertAllowed(GUARD.review(update(ALICE, Map.of(SHARD, "shard-0", "app", "web"),
                    Map.of(SHARD, "shard-0", "app", "api"))));
            assertAllowed(GUARD.review(update(ALICE, Map.of(SHARD, "shard-0", DRAIN, "true"),
                    Map.of(SHARD, "shard-0", DRAIN, "true"))));
            assertAllowed(GUARD.review(update(ALICE, null, null)));
            assertAllowed(GUARD.review(update(ALICE, Map.of("app", "web"), null)));
        }

        @Test
        void labelsThatOnlyLookLikeRingLabelsAreNotGuarded() {
            assertAllowed(GUARD.review(update(ALICE, Map.of("alpha.sharding.timebertt.dev/clusterring", "example",
                    "shard.alpha.sharding.timebertt.dev/", "x"), Map.of())));
        }
    }

    @Nested
    class UntrustedUsers {

        @Test
        void mayNotMoveAnObjectToAnotherShard() {
            AdmissionResponse response = assertDenied(GUARD.review(update(ALICE, Map.of(SHARD, "shard-0"),
                    Map.of(SHARD, "shard-1"))));
            assertThat(response.message())
                    .startsWith("label-guard: user \"alice@example.com\" may not change label " + SHARD
                            + " from \"shard-0\" to \"shard-1\" on configmaps default/foo.")
                    .contains("add \"alice@example.com\" to trustedUsers (or one of its groups to trustedGroups)"
                            + " in the configuration dev.ringmaster.labelguard");
        }

        @Test
        void mayNotUnassignAnObject() {
            assertThat(assertDenied(GUARD.review(update(ALICE, Map.of(SHARD, "shard-0"), Map.of()))).message())
                    .contains("may not remove label " + SHARD + " (now \"shard-0\")");
        }

        @Test
        void mayNotDrainAnObject() {
            assertThat(assertDenied(GUARD.review(update(ALICE, Map.of(SHARD, "shard-0"),
                    Map.of(SHARD, "shard-0", DRAIN, "true")))).message())
                    .contains("may not add label " + DRAIN + "=true");
        }

        @Test
        void areDeniedInDryRunsAlike() {
            AdmissionRequest dryRun = new AdmissionRequest("uid-2", "UPDATE", "", "v1", "ConfigMap", "", "configmaps", "",
                    "default", "foo", ALICE, List.of(), true, object(Map.of(SHARD, "shard-1")),
                    object(Map.of(SHARD, "shard-0")));
            assertDenied(GUARD.review(dryRun));
        }

        @Test
        void areNamedEvenWhenAnonymous() {
            assertThat(assertDenied(GUARD.review(update("", Map.of(SHARD, "shard-0"), Map.of()))).message())
                    .contains("user \"(anonymous)\"");
        }

        @Test
        void areToldAboutEveryChangeOfEveryRing() {
            AdmissionResponse response = assertDenied(GUARD.review(update(ALICE,
                    Map.of(SHARD, "shard-0", OTHER_SHARD, "shard-a"),
                    Map.of(SHARD, "shard-1", OTHER_SHARD, "shard-a", OTHER_DRAIN, "true"))));
            assertThat(response.message()).contains("(and 1 more ring label change)");
        }

        @Test
        void clusterScopedObjectsAreNamedWithoutNamespace() {
            AdmissionRequest request = new AdmissionRequest("uid-3", "UPDATE", "rbac.authorization.k8s.io", "v1",
                    "ClusterRole", "rbac.authorization.k8s.io", "clusterroles", "", "", "view", ALICE, List.of(), false,
                    object(Map.of()), object(Map.of(SHARD, "shard-0")));
            assertThat(assertDenied(GUARD.review(request)).message())
                    .contains("on clusterroles.rbac.authorization.k8s.io view.");
        }
    }

    @Nested
    class TrustedUsers {

        @Test
        void theSharderMovesAndDrainsObjects() {
            assertAllowed(GUARD.review(update(SHARDER, Map.of(SHARD, "shard-0"), Map.of(SHARD, "shard-1"))));
            assertAllowed(GUARD.review(update(SHARDER, Map.of(SHARD, "shard-0"), Map.of(SHARD, "shard-0", DRAIN, "true"))));
            assertAllowed(GUARD.review(update(SHARDER, Map.of(SHARD, "shard-0", DRAIN, "true"), Map.of(SHARD, "shard-2"))));
        }

        @Test
        void aConfiguredUserChangesAnyRingLabel() {
            assertAllowed(GUARD.review(update(CONTROLLER, Map.of(SHARD, "shard-0"), Map.of())));
            assertAllowed(STRICT.review(update(CONTROLLER, Map.of(SHARD, "shard-0", DRAIN, "true"), Map.of())));
        }

        @Test
        void membersOfAConfiguredGroupDoToo() {
            assertAllowed(GUARD.review(request("UPDATE", ALICE, List.of("system:authenticated", "ops:emergency"),
                    Map.of(SHARD, "shard-0"), Map.of(SHARD, "shard-1"))));
        }

        @Test
        void theSharderIsTrustedOnlyAsConfigured() {
            LabelGuard withoutSharder = new LabelGuard(new LabelGuard.Policy(Set.of(), Set.of(), true), "pid");
            assertDenied(withoutSharder.review(update(SHARDER, Map.of(SHARD, "shard-0"), Map.of(SHARD, "shard-1"))));
        }
    }

    @Nested
    class Assignments {

        @Test
        void anyoneMayLabelAnObjectNoShardOwns() {
            // the sharder's mutating webhook assigns an unassigned object within the user's own UPDATE
            assertAllowed(GUARD.review(update(ALICE, Map.of("app", "web"), Map.of("app", "api", SHARD, "shard-1"))));
            assertAllowed(GUARD.review(update(ALICE, null, Map.of(SHARD, "shard-1"))));
            assertAllowed(GUARD.review(update(ALICE, Map.of(DRAIN, "true"), Map.of(SHARD, "shard-1"))));
        }

        @Test
        void anAssignmentInOneRingAllowsNothingInAnother() {
            assertDenied(GUARD.review(update(ALICE, Map.of(OTHER_SHARD, "shard-a"), Map.of(SHARD, "shard-1"))));
        }
    }

    @Nested
    class DrainAcknowledgements {

        @Test
        void anyoneMayRemoveTheDrainAndShardLabelsTogether() {
            assertAllowed(GUARD.review(update(ALICE, Map.of(SHARD, "shard-0", DRAIN, "true", "app", "web"),
                    Map.of("app", "web"))));
        }

        @Test
        void theSharderWebhookMayAssignTheNewShardInTheSameRequest() {
            assertAllowed(GUARD.review(update(ALICE, Map.of(SHARD, "shard-0", DRAIN, "true"), Map.of(SHARD, "shard-1"))));
        }

        /** Seen on a real cluster: the webhook's replica did not have the new shard yet. */
        @Test
        void theSharderWebhookMayAssignTheOldShardAgain() {
            assertAllowed(GUARD.review(update(ALICE, Map.of(SHARD, "shard-0", DRAIN, "true"), Map.of(SHARD, "shard-0"))));
        }

        @Test
        void anAcknowledgementInOneRingAllowsNothingInAnother() {
            assertDenied(GUARD.review(update(ALICE, Map.of(SHARD, "shard-0", DRAIN, "true", OTHER_SHARD, "shard-a"),
                    Map.of())));
        }

        @Test
        void removingTheShardLabelAloneIsNoAcknowledgement() {
            assertDenied(GUARD.review(update(ALICE, Map.of(SHARD, "shard-0", DRAIN, "true"), Map.of(DRAIN, "true"))));
        }

        @Test
        void areLeftToTrustedUsersWhenSoConfigured() {
            Map<String, String> draining = Map.of(SHARD, "shard-0", DRAIN, "true");
            assertThat(assertDenied(STRICT.review(update(ALICE, draining, Map.of()))).message())
                    .contains("may not remove label " + SHARD);
            assertThat(assertDenied(STRICT.review(update(ALICE, draining, Map.of(SHARD, "shard-0")))).message())
                    .contains("may not remove label " + DRAIN);
            assertAllowed(STRICT.review(update(CONTROLLER, draining, Map.of())));
            assertAllowed(STRICT.review(update(SHARDER, draining, Map.of())));
        }
    }

    /**
     * A ControllerRing's labels end in the ring's name, with no kind in them (docs/design.md section 1);
     * the guard knows them as it knows every ring's: by the shard and drain label prefixes.
     */
    @Nested
    class ControllerRingLabels {

        private static final String CR_SHARD = "shard.alpha.sharding.timebertt.dev/example";
        private static final String CR_DRAIN = "drain.alpha.sharding.timebertt.dev/example";

        @Test
        void mayNotBeMovedOrDrainedByUntrustedUsers() {
            AdmissionResponse response = assertDenied(GUARD.review(update(ALICE, Map.of(CR_SHARD, "shard-0"),
                    Map.of(CR_SHARD, "shard-1"))));
            assertThat(response.message()).startsWith("label-guard: user \"alice@example.com\" may not change label "
                    + "shard.alpha.sharding.timebertt.dev/example from \"shard-0\" to \"shard-1\" on configmaps default/foo.");
            assertDenied(GUARD.review(update(ALICE, Map.of(CR_SHARD, "shard-0"), Map.of(CR_SHARD, "shard-0", CR_DRAIN, "true"))));
            assertDenied(GUARD.review(update(ALICE, Map.of(CR_SHARD, "shard-0"), Map.of())));
        }

        @Test
        void areAssignedAndHandedBackByAnyone() {
            assertAllowed(GUARD.review(update(ALICE, Map.of("app", "web"), Map.of("app", "web", CR_SHARD, "shard-1"))));
            assertAllowed(GUARD.review(update(ALICE, Map.of(CR_SHARD, "shard-0", CR_DRAIN, "true", "app", "web"),
                    Map.of("app", "web"))));
        }

        @Test
        void areTheirOwnRingBesideTheClusterRingOfTheSameName() {
            // handing the ClusterRing "example"'s object back allows no change of the ControllerRing "example"'s
            assertDenied(GUARD.review(update(ALICE, Map.of(SHARD, "shard-0", DRAIN, "true", CR_SHARD, "shard-0"),
                    Map.of())));
            assertAllowed(GUARD.review(update(ALICE, Map.of(SHARD, "shard-0", DRAIN, "true", CR_SHARD, "shard-0"),
                    Map.of(CR_SHARD, "shard-0"))));
        }

        @Test
        void areChangedByTrustedUsers() {
            assertAllowed(GUARD.review(update(SHARDER, Map.of(CR_SHARD, "shard-0"), Map.of(CR_SHARD, "shard-1"))));
            assertAllowed(STRICT.review(update(CONTROLLER, Map.of(CR_SHARD, "shard-0", CR_DRAIN, "true"), Map.of())));
        }
    }

    @Test
    void readsLabelsFromJsonTrees() {
        Map<String, Object> labels = new HashMap<>();
        labels.put(SHARD, "shard-0");
        labels.put("count", 3);
        labels.put("empty", null);
        assertThat(LabelGuard.labels(Map.of("metadata", Map.of("labels", labels))))
                .containsEntry(SHARD, "shard-0").containsEntry("count", "3").containsEntry("empty", null);
        assertThat(LabelGuard.labels(Map.of("metadata", "not an object"))).isEmpty();
        assertThat(LabelGuard.labels(Map.of())).isEmpty();
    }
}
