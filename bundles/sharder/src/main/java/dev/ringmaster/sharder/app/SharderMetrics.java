package dev.ringmaster.sharder.app;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.rebalance.MoveRecorder;
import dev.ringmaster.sharder.ring.Move;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The sharder's move counters, named and labelled as the reference sharder's (docs/monitoring.md):
 * {@code controller_sharding_assignments_total}, {@code _movements_total}, {@code _drains_total}
 * (labels ring, group, resource), {@code _ring_calculations_total} (ring); and ours per ring from this
 * replica's membership, {@code controller_sharding_ring_shards} and
 * {@code controller_sharding_ring_available_shards}, and {@code controller_sharding_ring_restarting_shards}
 * (shards held available for a restart, within their ring's restart grace). The reference's state metrics are
 * {@link RingStateMetrics}'.
 *
 * <p>A ring is labelled by its kind, as each era of the reference sharder labels it: a ClusterRing's
 * name in {@code clusterring}, a ControllerRing's in {@code controllerring}, the other label empty
 * (which Prometheus treats as absent), so every series has the same label names and dashboards of
 * either era select their rings.
 */
public final class SharderMetrics implements MoveRecorder {

    private final MeterRegistry registry;
    private final MultiGauge ringShards;
    private final MultiGauge ringAvailableShards;
    private final MultiGauge ringRestartingShards;
    private final MultiGauge ringKindServed;

    public SharderMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.ringShards = MultiGauge.builder("controller.sharding.ring.shards")
                .description("Shard leases of each ring").register(registry);
        this.ringAvailableShards = MultiGauge.builder("controller.sharding.ring.available.shards")
                .description("Shards of each ring that objects may be assigned to").register(registry);
        this.ringRestartingShards = MultiGauge.builder("controller.sharding.ring.restarting.shards")
                .description("Shards of each ring that stopped to restart and keep their objects for the ring's"
                        + " restart grace")
                .register(registry);
        this.ringKindServed = MultiGauge.builder("ringmaster.sharder.ring.kind.served")
                .description("1 for each ring kind the API server serves (its CRD installed) and the sharder watches")
                .register(registry);
    }

    /** Replaces the served-kind gauge: 1 for the kinds in {@code served}, 0 for the others. */
    public void ringKindsServed(Set<RingKind> served) {
        ringKindServed.register(Arrays.stream(RingKind.values())
                .<MultiGauge.Row<?>>map(kind -> MultiGauge.Row.of(Tags.of("kind", kind.kind()), served.contains(kind) ? 1 : 0))
                .collect(Collectors.toList()), true);
    }

    @Override
    public void written(RingKey ring, ResolvedResource resource, Move move) {
        String name = move instanceof Move.Assign ? "controller.sharding.assignments"
                : move instanceof Move.Drain ? "controller.sharding.drains"
                : move instanceof Move.Unlabel ? "ringmaster.ring.labels.removed"
                : "controller.sharding.movements";
        Counter.builder(name).tags(resourceTags(ring, resource.group(), resource.resource())).register(registry).increment();
    }

    /** The webhook assigned an object; counted with the assignments the controllers write. */
    public void webhookAssigned(RingKey ring, String group, String resource) {
        Counter.builder("controller.sharding.assignments").tags(resourceTags(ring, group, resource)).register(registry)
                .increment();
    }

    /** A ring was (re)built by its strategy. */
    public void ringCalculated(RingKey ring) {
        Counter.builder("controller.sharding.ring.calculations").tags(ringTags(ring)).register(registry).increment();
    }

    /** Replaces the ring gauges with the given membership; rings gone disappear. */
    public void membership(Membership membership) {
        List<MultiGauge.Row<?>> shards = new ArrayList<>();
        List<MultiGauge.Row<?>> available = new ArrayList<>();
        List<MultiGauge.Row<?>> restarting = new ArrayList<>();
        membership.shardsByRing().forEach((ring, infos) -> {
            shards.add(MultiGauge.Row.of(ringTags(ring), infos.size()));
            available.add(MultiGauge.Row.of(ringTags(ring), infos.stream().filter(ShardInfo::isAvailable).count()));
            restarting.add(MultiGauge.Row.of(ringTags(ring), infos.stream().filter(ShardInfo::restarting).count()));
        });
        ringShards.register(shards, true);
        ringAvailableShards.register(available, true);
        ringRestartingShards.register(restarting, true);
    }

    /** Removes the gauges, so a successor registering them anew does not collide with stale ones. */
    public void close() {
        ringShards.register(List.of(), true);
        ringAvailableShards.register(List.of(), true);
        ringRestartingShards.register(List.of(), true);
        ringKindServed.register(List.of(), true);
    }

    private static Tags resourceTags(RingKey ring, String group, String resource) {
        return ringTags(ring).and("group", group, "resource", resource);
    }

    /** {@code clusterring} and {@code controllerring}, the ring's name in its kind's label. */
    static Tags ringTags(RingKey ring) {
        Tags tags = Tags.empty();
        for (RingKind kind : RingKind.values()) {
            tags = tags.and(kind.lowerCaseKind(), kind == ring.kind() ? ring.name() : "");
        }
        return tags;
    }
}
