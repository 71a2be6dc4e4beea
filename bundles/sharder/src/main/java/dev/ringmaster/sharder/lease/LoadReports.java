package dev.ringmaster.sharder.lease;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.sharder.model.RingKey;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** How the leader reads a shard's load report ({@code ringmaster.dev/load}), for balancing and autoscaling alike. */
public final class LoadReports {

    /** Busy seconds per second a report may claim: more reconciles at once than any shard runs. */
    public static final double MAX_BUSY = 1024;

    private LoadReports() {
    }

    /**
     * The report an annotation holds, refused when its numbers cannot be true.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static LoadReport read(String text) {
        LoadReport report = LoadReport.parse(text);
        if (report.busy() > MAX_BUSY) {
            throw new IllegalArgumentException("busy time " + report.busy() + " s/s is more than " + MAX_BUSY
                    + " reconciles at once can spend");
        }
        return report;
    }

    /**
     * The busy time each of the ring's {@code shards} reports on its cached Lease; empty for a shard that reports
     * nothing readable or believable (the range assigner warns of those).
     */
    public static Map<String, Optional<Double>> busyByShard(RingKey ring, Collection<? extends Lease> leases,
            List<String> shards) {
        Map<String, Lease> byName = RingLeases.byName(ring, leases);
        Map<String, Optional<Double>> busy = new TreeMap<>();
        for (String shard : shards) {
            Lease lease = byName.get(shard);
            Map<String, String> annotations = lease == null || lease.getMetadata().getAnnotations() == null
                    ? Map.of() : lease.getMetadata().getAnnotations();
            busy.put(shard, busy(annotations.get(RingContract.LOAD_ANNOTATION)));
        }
        return busy;
    }

    /**
     * Every shard's busy time, a shard that reports none counted at the mean of those that do; empty when none
     * does.
     */
    public static Optional<Map<String, Double>> withMean(Map<String, Optional<Double>> busyByShard) {
        double[] reported = busyByShard.values().stream().flatMap(Optional::stream).mapToDouble(Double::doubleValue)
                .toArray();
        if (reported.length == 0) {
            return Optional.empty();
        }
        double mean = Arrays.stream(reported).sum() / reported.length;
        Map<String, Double> filled = new TreeMap<>();
        busyByShard.forEach((shard, busy) -> filled.put(shard, busy.orElse(mean)));
        return Optional.of(filled);
    }

    private static Optional<Double> busy(String text) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(read(text).busy());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
