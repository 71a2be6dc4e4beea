package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.examples.checksum.ReconcileLine;
import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.Ownership;
import dev.ringmaster.itests.support.RingObjects;
import dev.ringmaster.itests.support.ShardFleet;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.testing.apiserver.HashRanges;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
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
 * A ring switched from label mode to range mode and back while shards of both modes run beside each other (issue 34,
 * docs/design.md section 9): on kube-apiserver v1.36 with the gate, {@code bin/ringmaster run}, two
 * {@code bin/checksum-controller} shards in label mode and two in range mode, {@link #OBJECTS} ConfigMaps. Into range mode, the
 * sharder drains the label-mode shards' ConfigMaps bucket by bucket and grants each range once none of its ConfigMaps
 * is left with them, while they still run. Back in label mode with the label-mode shards stopped, the range-mode
 * shards keep their ranges; once label-mode shards start, the sharder takes the ranges back a slice at a time and
 * labels the ConfigMaps of each slice once the range-mode shards let it go. No ConfigMap is reconciled by two shards at
 * overlapping times, none goes without an owner for longer than {@link #HANDOVER}, and each ends where the target mode
 * puts it, reconciled by a shard of that mode.
 */
public class ModeSwitchRealIT {

    private static final String RING = "mode-switch";
    /**
     * 300 in the suite: the class computes most of the integration tests, beside the cluster tier's pods, which get
     * their CPU share first; the 3,000 with {@code -Dmode.switch.objects=3000} (docs/performance.md records
     * that run: at 3,000 the two switches take minutes beside the rest of CI).
     */
    private static final int OBJECTS = Integer.getInteger("mode.switch.objects", 300);
    private static final Duration SOON = Duration.ofMinutes(3);
    /** How long a switch may take: about a minute at 3,000 objects on a quiet machine, three times that beside CI. */
    private static final Duration SWITCH = Duration.ofMinutes(6);
    /**
     * The longest a ConfigMap may go without an owner: a handover's length under the load of a whole CI run. Into range
     * mode, the last hand-back of its bucket, the next pass and the claim of its range (20.5 s in a green clean-clone
     * run of 8fffee6, 11 s on a quiet machine); back, the release of its slice and the next pass (2.2 s, 0.8 s).
     */
    private static final Duration HANDOVER = Duration.ofSeconds(45);
    private static final List<String> LABEL_SHARDS = List.of("label-0", "label-1");
    private static final List<String> RANGE_SHARDS = List.of("range-0", "range-1");

    private RealCluster cluster;
    private KubernetesClient admin;
    private Cli.Started sharder;
    private ShardFleet shards;
    private RingObjects ring;
    private Ownership ownership;

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
        if (ownership != null) {
            ownership.close();
        }
        if (shards != null) {
            shards.close();
        }
        if (admin != null) {
            cluster.stopSharderAndDeleteRing(sharder, RING);
        }
    }

    @Test
    public void aSwitchIntoRangeModeAndBackHandsEveryObjectOverWithoutOverlapOrALongGap() throws Exception {
        LABEL_SHARDS.forEach(shards::start);
        ring.createConfigMaps(OBJECTS);
        ring.awaitSettledOn(Set.copyOf(LABEL_SHARDS), OBJECTS, SOON, sharder::err);
        RANGE_SHARDS.forEach(shard -> shards.start(shard, List.of("--range-mode")));
        ownership = new Ownership(admin, RING, ring.shardLabel());

        long intoRanges = System.currentTimeMillis();
        cluster.rangeModeConfigMapRing(RING, RING, "uid", 16);
        Waiting.until(SWITCH, () -> "the range-mode shards serve the whole space and no label is left, now "
                + served() + ", " + labelled() + " labelled\n" + sharder.err(), () -> labelled() == 0 && servedByRanges());
        assertEquals("the label-mode shards still run", Set.copyOf(LABEL_SHARDS), shards.running().stream()
                .filter(LABEL_SHARDS::contains).collect(Collectors.toSet()));
        Waiting.until(SOON, () -> "every ConfigMap reconciled by a range-mode shard", () -> reconciledBy(RANGE_SHARDS,
                intoRanges).size() == OBJECTS);
        Duration intoRangesGap = ownership.longestWithoutOwner();
        System.out.printf("MODE SWITCH label -> range, %d ConfigMaps: longest without an owner %d ms; seconds: %s%n",
                OBJECTS, intoRangesGap.toMillis(), ownership.histogram());
        ownership.reset();

        for (String shard : LABEL_SHARDS) {
            shards.stopGracefully(shard);
        }
        cluster.configMapRing(RING, RING, false);
        Waiting.until(SOON, () -> "the ring waits for the range-mode shards, now " + ring.readyCondition(),
                () -> "RangesStillServed".equals(ring.readyCondition().get("reason")));
        Waiting.throughout(Duration.ofSeconds(5), "the range-mode shards keep serving while no shard serves by labels")
                .until(this::servedByRanges);
        long intoLabels = System.currentTimeMillis();
        LABEL_SHARDS.forEach(shards::start);
        ring.awaitSettledOn(Set.copyOf(LABEL_SHARDS), OBJECTS, SWITCH, sharder::err);
        Waiting.until(SOON, () -> "the range-mode shards serve nothing, now " + served(), () -> served().values()
                .stream().allMatch(String::isEmpty));
        Waiting.until(SOON, () -> "every ConfigMap reconciled by a label-mode shard", () -> reconciledBy(LABEL_SHARDS,
                intoLabels).size() == OBJECTS);
        Duration intoLabelsGap = ownership.longestWithoutOwner();
        System.out.printf("MODE SWITCH range -> label, %d ConfigMaps: longest without an owner %d ms; seconds: %s%n",
                OBJECTS, intoLabelsGap.toMillis(), ownership.histogram());

        assertEquals("reconciles of one object by two shards at overlapping times", 0, shards.overlaps());
        assertTrue("into range mode, a ConfigMap went " + intoRangesGap + " without an owner",
                intoRangesGap.compareTo(HANDOVER) <= 0);
        assertTrue("back into label mode, a ConfigMap went " + intoLabelsGap + " without an owner",
                intoLabelsGap.compareTo(HANDOVER) <= 0);
    }

    /** The ConfigMaps with the ring's shard or drain label. */
    private long labelled() {
        return ring.configMaps().stream().map(RingState::labels)
                .filter(labels -> labels.containsKey(ring.shardLabel()) || labels.containsKey(ring.drainLabel())).count();
    }

    /** Whether the range-mode shards serve the whole space between them, each what it is assigned. */
    private boolean servedByRanges() {
        Map<String, String> assigned = assigned();
        Map<String, String> served = served();
        List<BigInteger[]> all = new ArrayList<>();
        for (String shard : RANGE_SHARDS) {
            String ranges = served.getOrDefault(shard, "");
            if (ranges.isEmpty() || !ranges.equals(assigned.get(shard))) {
                return false;
            }
            all.addAll(HashRanges.parse(ranges));
        }
        all.sort(Comparator.comparing(range -> range[0]));
        BigInteger next = BigInteger.ZERO;
        for (BigInteger[] range : all) {
            if (!range[0].equals(next)) {
                return false; // a gap, or two shards serving one range
            }
            next = range[1];
        }
        return next.equals(BigInteger.ONE.shiftLeft(64));
    }

    /** The ConfigMaps one of {@code shards} reconciled, after {@code since}. */
    private Set<String> reconciledBy(List<String> shardNames, long since) {
        return shards.reconciles().stream().filter(line -> shardNames.contains(line.shard()) && line.start() >= since)
                .map(ReconcileLine::name).collect(Collectors.toSet());
    }

    private Map<String, String> assigned() {
        return annotation(RingContract.ASSIGNED_RANGES_ANNOTATION);
    }

    private Map<String, String> served() {
        return annotation(RingContract.SERVED_RANGES_ANNOTATION);
    }

    /** Each range-mode shard Lease's {@code annotation}, empty when it has none. */
    private Map<String, String> annotation(String annotation) {
        Map<String, String> values = new TreeMap<>();
        for (Lease lease : admin.leases().inNamespace(RING).list().getItems()) {
            if (RANGE_SHARDS.contains(lease.getMetadata().getName())) {
                Map<String, String> annotations = lease.getMetadata().getAnnotations();
                values.put(lease.getMetadata().getName(), annotations == null ? ""
                        : Objects.requireNonNullElse(annotations.get(annotation), ""));
            }
        }
        return values;
    }
}
