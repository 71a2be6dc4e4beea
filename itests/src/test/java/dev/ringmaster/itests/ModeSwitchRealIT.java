package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.examples.checksum.ReconcileLine;
import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.RingObjects;
import dev.ringmaster.itests.support.ShardFleet;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * A ring switched from label mode to range mode while its label-mode shards run (issue 34, docs/design.md section 9):
 * on kube-apiserver v1.36 with the gate, {@code bin/ringmaster run}, two {@code bin/checksum-controller} shards in
 * label mode, then two in range mode beside them. The range-mode shards announce ranges with their Leases; the ring
 * grants them none (Ready=False, LabelsStillServed) while a shard that serves by labels still holds its Lease, and
 * once those stop, the range-mode shards get the whole space between them, and the sharder removes the shard labels
 * left from label mode (it keeps them until then). No ConfigMap is reconciled by two shards at overlapping times, and
 * each is reconciled by a range-mode shard in the end.
 */
public class ModeSwitchRealIT {

    private static final String RING = "mode-switch";
    private static final int OBJECTS = 40;
    private static final Duration SOON = Duration.ofMinutes(2);
    private static final List<String> LABEL_SHARDS = List.of("label-0", "label-1");
    private static final List<String> RANGE_SHARDS = List.of("range-0", "range-1");

    private RealCluster cluster;
    private KubernetesClient admin;
    private Cli.Started sharder;
    private ShardFleet shards;
    private RingObjects ring;

    @Before
    public void start() {
        cluster = RealCluster.shardedListAndWatch();
        admin = cluster.admin();
        cluster.configMapRing(RING, RING, false);
        ring = new RingObjects(admin, RING, RING);
        SharderHome replica = SharderHome.prepare(RING);
        sharder = cluster.runSharder(replica, cluster.sharderKubeconfig(replica));
        shards = new ShardFleet(cluster, replica.home(), RING, RING);
    }

    @After
    public void stop() throws InterruptedException {
        if (shards != null) {
            shards.close();
        }
        if (admin != null) {
            cluster.stopSharderAndDeleteRing(sharder, RING);
        }
    }

    @Test
    public void rangesAreGrantedOnlyOnceNoShardServesByLabelsAndNoObjectIsReconciledTwiceAtOnce() throws Exception {
        LABEL_SHARDS.forEach(shards::start);
        for (int i = 0; i < OBJECTS; i++) {
            admin.configMaps().inNamespace(RING).resource(new ConfigMapBuilder().withNewMetadata().withName("cm-" + i)
                    .endMetadata().addToData("value", "v" + i).build()).create();
        }
        // settled, not only labelled: a drain acknowledged after the switch would leave its object unlabelled
        ring.awaitSettledOn(Set.copyOf(LABEL_SHARDS), OBJECTS, SOON, sharder::err);

        cluster.rangeModeConfigMapRing(RING, RING, "uid", 16);
        RANGE_SHARDS.forEach(shard -> shards.start(shard, List.of("--range-mode")));
        Waiting.until(SOON, () -> "the ring waits for the label-mode shards, now " + ring.readyCondition() + "\n"
                + sharder.err(), () -> "LabelsStillServed".equals(ring.readyCondition().get("reason")));
        Waiting.throughout(Duration.ofSeconds(5), "no range granted beside the label-mode shards, and every label kept")
                .until(() -> assigned().values().stream().allMatch(String::isEmpty) && labelled() == OBJECTS);

        long stopped = System.currentTimeMillis();
        for (String shard : LABEL_SHARDS) {
            shards.stopGracefully(shard);
        }
        Waiting.until(SOON, () -> "the range-mode shards serve the whole space, now " + assigned() + "\n"
                + sharder.err(), () -> {
                    Map<String, String> assigned = assigned();
                    return ring.isReady() && RANGE_SHARDS.stream().allMatch(shard -> !assigned.getOrDefault(shard, "").isEmpty()
                            && assigned.get(shard).equals(served().get(shard)));
                });
        Waiting.until(SOON, () -> "every ConfigMap reconciled by a range-mode shard", () -> rangeModeReconciled(stopped)
                .size() == OBJECTS);
        Waiting.until(SOON, () -> "the labels left from label mode removed, now on " + labelled() + "\n" + sharder.err(),
                () -> labelled() == 0);
        assertEquals("reconciles of one object by two shards at overlapping times", 0, shards.overlaps());
        assertTrue("the label-mode shards reconciled before the switch", shards.reconciles().stream()
                .anyMatch(line -> LABEL_SHARDS.contains(line.shard())));
    }

    /** The ConfigMaps with the ring's shard or drain label. */
    private long labelled() {
        return ring.configMaps().stream().map(RingState::labels)
                .filter(labels -> labels.containsKey(ring.shardLabel()) || labels.containsKey(ring.drainLabel())).count();
    }

    /** The ConfigMaps a range-mode shard reconciled, after {@code since}. */
    private Set<String> rangeModeReconciled(long since) {
        return shards.reconciles().stream().filter(line -> RANGE_SHARDS.contains(line.shard()) && line.start() >= since)
                .map(ReconcileLine::name).collect(Collectors.toSet());
    }

    private Map<String, String> assigned() {
        return annotation(RingContract.ASSIGNED_RANGES_ANNOTATION);
    }

    private Map<String, String> served() {
        return annotation(RingContract.SERVED_RANGES_ANNOTATION);
    }

    /** Each shard Lease's {@code annotation}, empty when it has none. */
    private Map<String, String> annotation(String annotation) {
        Map<String, String> values = new TreeMap<>();
        for (Lease lease : admin.leases().inNamespace(RING).list().getItems()) {
            Map<String, String> annotations = lease.getMetadata().getAnnotations();
            values.put(lease.getMetadata().getName(), annotations == null ? ""
                    : Objects.requireNonNullElse(annotations.get(annotation), ""));
        }
        return values;
    }
}
