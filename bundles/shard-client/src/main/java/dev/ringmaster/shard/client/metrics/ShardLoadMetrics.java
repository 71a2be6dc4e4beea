package dev.ringmaster.shard.client.metrics;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.load.LoadReport;
import dev.ringmaster.shard.client.ShardLabels;
import dev.ringmaster.shard.client.Sharding;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The load report a shard last wrote on its Lease ({@link Sharding#lastLoadReport()}, the {@code ringmaster.dev/load}
 * annotation) as gauges, so a shard's own dashboards and alerts see what the leader balances and autoscales by:
 * <ul>
 *   <li>{@code ringmaster_shard_load_seconds_per_second}: busy time, seconds reconciling per second of the window;</li>
 *   <li>{@code ringmaster_shard_queue_wait_seconds}: the mean time a key waited before its reconcile started;</li>
 *   <li>{@code ringmaster_shard_objects}: the objects the shard held when the report was taken;</li>
 *   <li>{@code ringmaster_shard_load_report_window_seconds}: the window the report covers.</li>
 * </ul>
 * Each has the sharder's ring tags ({@code clusterring} and {@code controllerring}, the other one empty) and
 * {@code shard}. The values are the report's, not a second measurement: they change when a renewal writes a report
 * (every {@link Sharding.Builder#loadReportPeriod}) and are NaN before the first one and with publishing off.
 * Per-cell loads stay on the Lease: their number depends on the ranges served.
 */
public final class ShardLoadMetrics implements MeterBinder {

    private final Tags tags;
    private final Supplier<Optional<LoadReport>> reports;

    /** The gauges of {@code sharding}'s reports. */
    public ShardLoadMetrics(Sharding sharding) {
        this(sharding.labels(), sharding::lastLoadReport);
    }

    ShardLoadMetrics(ShardLabels labels, Supplier<Optional<LoadReport>> reports) {
        Tags ring = Tags.empty();
        for (RingKind kind : RingKind.values()) {
            ring = ring.and(kind.lowerCaseKind(), kind == labels.kind() ? labels.ring() : "");
        }
        this.tags = ring.and("shard", labels.shard());
        this.reports = Objects.requireNonNull(reports, "reports");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        gauge(registry, "ringmaster.shard.load", "seconds.per.second",
                "Busy time of the shard: seconds reconciling per second, in its last load report", LoadReport::busy);
        gauge(registry, "ringmaster.shard.queue.wait", "seconds",
                "Mean time a key waited in the queue before its reconcile, in the shard's last load report",
                LoadReport::queueWait);
        gauge(registry, "ringmaster.shard.objects", null,
                "Objects the shard held when it took its last load report", LoadReport::objects);
        gauge(registry, "ringmaster.shard.load.report.window", "seconds",
                "The window the shard's last load report covers", report -> report.window().toNanos() / 1e9);
    }

    private void gauge(MeterRegistry registry, String name, String unit, String description,
                       ToDoubleFunction<LoadReport> value) {
        // a Supplier gauge holds its supplier strongly: nothing else need keep it reachable
        Gauge.builder(name, () -> reports.get().map(value::applyAsDouble).orElse(Double.NaN)).baseUnit(unit)
                .description(description).tags(tags).register(registry);
    }
}
