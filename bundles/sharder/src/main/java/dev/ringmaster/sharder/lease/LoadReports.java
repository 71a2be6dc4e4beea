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
import java.util.function.BiConsumer;

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
     * The report each of the ring's {@code shards} has on its cached Lease; empty for a shard with none, or with one
     * that cannot be read or believed, which {@code unreadable} is told of.
     */
    public static Map<String, Optional<LoadReport>> byShard(RingKey ring, Collection<? extends Lease> leases,
            List<String> shards, BiConsumer<Lease, IllegalArgumentException> unreadable) {
        Map<String, Lease> byName = RingLeases.byName(ring, leases);
        Map<String, Optional<LoadReport>> reports = new TreeMap<>();
        for (String shard : shards) {
            Lease lease = byName.get(shard);
            String text = lease == null || lease.getMetadata().getAnnotations() == null ? null
                    : lease.getMetadata().getAnnotations().get(RingContract.LOAD_ANNOTATION);
            Optional<LoadReport> report = Optional.empty();
            if (text != null) {
                try {
                    report = Optional.of(read(text));
                } catch (IllegalArgumentException e) {
                    unreadable.accept(lease, e);
                }
            }
            reports.put(shard, report);
        }
        return reports;
    }

    /** The busy time of each report, empty for a shard without one. */
    public static Map<String, Optional<Double>> busy(Map<String, Optional<LoadReport>> reports) {
        Map<String, Optional<Double>> busy = new TreeMap<>();
        reports.forEach((shard, report) -> busy.put(shard, report.map(LoadReport::busy)));
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
}
