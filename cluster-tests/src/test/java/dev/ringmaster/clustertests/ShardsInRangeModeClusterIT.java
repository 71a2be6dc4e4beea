package dev.ringmaster.clustertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.clustertests.support.Examples;
import dev.ringmaster.clustertests.support.NodeCluster;
import dev.ringmaster.clustertests.support.PolicedScenarios;
import dev.ringmaster.clustertests.support.RangeOwners;
import dev.ringmaster.clustertests.support.TimedScenarios;
import dev.ringmaster.clustertests.support.Waiting;
import dev.ringmaster.examples.checksum.ReconcileLine;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 34: the example shards in range mode as pods ({@code examples/manifests/checksum-ranges}: the ring
 * with {@code spec.ranges}, the StatefulSet's shards with {@code --range-mode}). The cluster's API server is
 * v1.32, which ignores the KEP-5866 shard selector, so each shard filters the ConfigMaps it lists and
 * watches itself: the path most clusters take until v1.36 with the gate is common. Each scenario ends with
 * the shards' assigned ranges covering the hash space once, each shard serving exactly its own, no
 * ConfigMap labelled, every ConfigMap with its up-to-date Secret and last reconciled by the shard whose
 * ranges hold FNV-1a 64 of its uid (computed by the test), and no object reconciled by two processes at
 * overlapping times. The class runs last (alphabetically), so the label-mode variant is switched once.
 */
@ExtendWith({TimedScenarios.class, PolicedScenarios.class})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShardsInRangeModeClusterIT {

    private static final Duration SETTLE = Duration.ofSeconds(120);
    /** How long a shard that just got ranges may take to list and reconcile their objects. */
    private static final Duration OWNERS_SERVE = Duration.ofSeconds(60);
    private static Examples shards;

    @BeforeAll
    static void install() {
        shards = NodeCluster.get().examples("checksum-ranges");
    }

    /** Installed as a user would: the shards serve the ranges the sharder published, filtering client-side. */
    @Test
    @Order(1)
    void eachObjectIsServedByTheShardWhoseRangesHoldItsHash() {
        shards.atLeastObjects("object");
        shards.awaitSettledOn(shards.readyPods(), SETTLE);
        assertServedByTheirOwners();
        for (Pod pod : shards.pods()) {
            String log = NodeCluster.get().kubectl("-n", shards.namespace(), "logs", pod.getMetadata().getName()).orThrow().out();
            assertThat(log).as("%s says that it filters, the v1.32 server ignoring the selector", pod.getMetadata().getName())
                    .contains("the API server ignores the shard selector");
        }
    }

    /**
     * {@code kubectl scale} 3 → 4, then back to 3: the new shard is given ranges and serves their objects,
     * then the leaving one hands them back; no sharded object is written (every ConfigMap keeps its
     * resourceVersion), only Leases.
     */
    @Test
    @Order(2)
    void scalingOutAndInWritesNoObject() {
        Set<String> three = shards.readyPods();
        Map<String, String> versions = resourceVersions();

        Set<String> four = shards.scale(4);
        shards.awaitSettledOn(four, SETTLE);
        assertThat(shards.rangeOwners().assigned()).as("ranges per shard").containsOnlyKeys(four);
        assertServedByTheirOwners();
        assertThat(resourceVersions()).as("the ConfigMaps' resourceVersions after the scale-out").isEqualTo(versions);

        assertThat(shards.scale(3)).isEqualTo(three);
        shards.awaitSettledOn(three, SETTLE);
        assertServedByTheirOwners();
        assertThat(resourceVersions()).as("the ConfigMaps' resourceVersions after the scale-in").isEqualTo(versions);
    }

    /**
     * {@code kubectl rollout restart}: each pod stops for its restart (its Lease kept, stamped restarting)
     * and its replacement takes the Lease back, so no range moves and every object ends with its owner.
     */
    @Test
    @Order(3)
    void aRollingUpdateMovesNoRange() {
        Map<String, String> before = shards.rangeOwners().assigned();
        Set<String> podsBefore = shards.pods().stream().map(pod -> pod.getMetadata().getUid()).collect(Collectors.toSet());
        NodeCluster.get().kubectl("-n", shards.namespace(), "rollout", "restart", shards.workloadRef()).orThrow();
        shards.awaitRolledOut();
        assertThat(shards.pods()).as("every shard pod replaced").noneMatch(pod -> podsBefore.contains(pod.getMetadata().getUid()));
        shards.awaitSettledOn(before.keySet(), SETTLE);
        assertThat(shards.rangeOwners().assigned()).as("ranges per shard after the rolling update").isEqualTo(before);
        assertServedByTheirOwners();
    }

    /**
     * A shard killed: its container SIGKILLed through containerd (no hand-back, no restart stamp, as the OOM killer
     * would) and its pod force-deleted. The StatefulSet starts it again under the same name; until the new process
     * holds the Lease (once the killed one's expired) or the sharder moved its ranges, its objects wait, and in the
     * end every object is served by its owner by hash, no object reconciled by two processes at once.
     */
    @Test
    @Order(4)
    void aKilledShardComesBackAndEveryObjectIsServedByItsOwner() {
        Set<String> before = shards.readyPods();
        String victim = before.stream().max(Comparator.naturalOrder()).orElseThrow();
        Pod pod = shards.pods().stream().filter(candidate -> victim.equals(candidate.getMetadata().getName())).findFirst()
                .orElseThrow();
        String uid = pod.getMetadata().getUid();
        String container = pod.getStatus().getContainerStatuses().get(0).getContainerID().replaceFirst("^containerd://", "");
        NodeCluster.get().ctr("tasks", "kill", "--all", "--signal", "SIGKILL", container).orThrow();
        NodeCluster.get().kubectl("-n", shards.namespace(), "delete", "pod", victim, "--grace-period=0", "--force",
                "--wait=false").orThrow();

        Waiting.until(SETTLE, () -> victim + " back, Ready, as a new pod\n" + shards.diagnostics(), () -> shards.pods().stream()
                .anyMatch(candidate -> candidate.getMetadata().getName().equals(victim)
                        && !candidate.getMetadata().getUid().equals(uid) && Examples.ready(candidate)));
        shards.awaitRolledOut();
        shards.awaitSettledOn(before, SETTLE);
        assertServedByTheirOwners();
    }

    /**
     * Every ConfigMap's last reconcile (over every process that ever ran) is, within a minute, by the shard whose
     * assigned ranges hold its hash (a shard that just got ranges reconciles their objects once it has listed them,
     * after the ring settled), and no two processes reconciled one object at overlapping times.
     */
    private static void assertServedByTheirOwners() {
        Map<String, String> wrong = new TreeMap<>();
        Waiting.until(OWNERS_SERVE, () -> "ConfigMaps last reconciled by another shard than their owner by hash: "
                + wrong + "; ranges " + shards.rangeOwners().assigned(), () -> {
                    wrong.clear();
                    wrong.putAll(notServedByTheirOwners());
                    return wrong.isEmpty();
                });
        shards.assertNoOverlappingReconciles();
    }

    /** The ConfigMaps whose last reconcile was not by their owner by hash, each with both. */
    private static Map<String, String> notServedByTheirOwners() {
        Map<String, ReconcileLine> last = shards.logs().reconciles().stream()
                .collect(Collectors.toMap(ReconcileLine::name, line -> line,
                        (a, b) -> Comparator.comparingLong(ReconcileLine::end).compare(a, b) >= 0 ? a : b));
        RangeOwners owners = shards.rangeOwners();
        Map<String, String> wrong = new TreeMap<>();
        for (ConfigMap configMap : shards.configMaps()) {
            String name = configMap.getMetadata().getName();
            String owner = owners.ownerOf(configMap.getMetadata().getUid()).orElse("(none)");
            String reconciledBy = last.containsKey(name) ? last.get(name).shard().replaceFirst("@.*", "") : "(never)";
            if (!owner.equals(reconciledBy)) {
                wrong.put(name, "owner " + owner + ", last reconciled by " + reconciledBy);
            }
        }
        return wrong;
    }

    private static Map<String, String> resourceVersions() {
        return shards.configMaps().stream().collect(Collectors.toMap(configMap -> configMap.getMetadata().getName(),
                configMap -> configMap.getMetadata().getResourceVersion(), (a, b) -> a, TreeMap::new));
    }
}
