package dev.ringmaster.sharder.app;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingObject;
import dev.ringmaster.sharder.model.RingStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The state metrics every replica exports from its watches (docs/monitoring.md): the reference
 * sharder's (v0.12 on, its docs/monitoring.md), with its names and labels, and ours beside them.
 *
 * <ul>
 * <li>{@code controller_sharding_controllerring_{metadata_generation,observed_generation,status_shards,
 * status_available_shards}} {controllerring, uid}, from each ControllerRing object as watched; the same
 * for ClusterRings as {@code controller_sharding_clusterring_*} {clusterring, uid}, a family of their own.</li>
 * <li>{@code controller_sharding_shard_info} {namespace, shard, controllerring, uid} (1) and
 * {@code controller_sharding_shard_state} {namespace, shard, controllerring, state}, a stateset over the
 * reference's states and {@code unknown}, read from each shard Lease's state label as the reference reads
 * it. A ClusterRing's shard has its ring in {@code clusterring}; every series carries both labels, the
 * other one empty, which Prometheus stores as absent, so a ControllerRing's series are the reference's
 * exactly.</li>
 * <li>{@code ringmaster_ring_ready} {clusterring, controllerring, reason}: 1 while the ring's Ready
 * condition is True, else 0; {@code reason} is the condition's ({@value #NOT_OBSERVED} before the
 * sharder wrote one).</li>
 * <li>{@code ringmaster_sharder_leader}: 1 on the replica that leads.</li>
 * </ul>
 */
final class RingStateMetrics implements AutoCloseable {

    /** The {@code reason} of a ring without a Ready condition yet. */
    static final String NOT_OBSERVED = "NotObserved";
    /** The stateset's value for a Lease whose state label is none of the known states. */
    static final String UNKNOWN_STATE = "unknown";
    private static final List<String> SHARD_STATES = Stream.concat(
            Arrays.stream(ShardState.values()).map(ShardState::label), Stream.of(UNKNOWN_STATE)).toList();

    /** The reference's ring state gauges: a field of the ring object each; absent fields count 0, as in Go. */
    private enum RingField {
        METADATA_GENERATION("metadata.generation", "The generation of a %s", ring -> ring.getMetadata().getGeneration()),
        OBSERVED_GENERATION("observed.generation", "The latest generation observed by the %s controller",
                ring -> status(ring).getObservedGeneration()),
        STATUS_SHARDS("status.shards", "The %s's total number of shards observed by the %<s controller",
                ring -> status(ring).getShards()),
        STATUS_AVAILABLE_SHARDS("status.available.shards",
                "The %s's number of available shards observed by the %<s controller",
                ring -> status(ring).getAvailableShards());

        final String name;
        final String help;
        final Function<RingObject, Number> value;

        RingField(String name, String help, Function<RingObject, Number> value) {
            this.name = name;
            this.help = help;
            this.value = value;
        }

        private static RingStatus status(RingObject ring) {
            return ring.getStatus() == null ? new RingStatus() : ring.getStatus();
        }
    }

    /** One shard Lease in one ring, as the shard gauges label it. */
    private record ShardRow(String namespace, String shard, RingKey ring, String uid, String state) {

        static final Comparator<ShardRow> ORDER = Comparator.comparing(ShardRow::namespace)
                .thenComparing(ShardRow::shard).thenComparing(ShardRow::ring);

        /** A row per ring kind whose ring label the Lease carries (the reference selects by the label's presence). */
        static Stream<ShardRow> of(Lease lease) {
            Map<String, String> labels = Objects.requireNonNullElse(lease.getMetadata().getLabels(), Map.of());
            String state = labels.getOrDefault(RingContract.STATE_LABEL, "");
            String known = SHARD_STATES.contains(state) ? state : UNKNOWN_STATE;
            return Arrays.stream(RingKind.values()).filter(kind -> labels.containsKey(kind.leaseLabel()))
                    .map(kind -> new ShardRow(lease.getMetadata().getNamespace(), lease.getMetadata().getName(),
                            new RingKey(kind, labels.get(kind.leaseLabel())), Objects.requireNonNullElse(lease.getMetadata().getUid(), ""),
                            known));
        }

        Tags tags() {
            return Tags.of("namespace", namespace, "shard", shard).and(SharderMetrics.ringTags(ring));
        }
    }

    private final MeterRegistry registry;
    private final Map<RingKind, Map<RingField, MultiGauge>> ringGauges = new EnumMap<>(RingKind.class);
    private final MultiGauge ringReady;
    private final MultiGauge shardInfo;
    private final MultiGauge shardState;
    private final Gauge leader;
    /** The shard rows last exported: most Lease events are renewals, which change none. */
    private List<ShardRow> shards = List.of();

    RingStateMetrics(MeterRegistry registry, BooleanSupplier leading) {
        this.registry = registry;
        for (RingKind kind : RingKind.values()) {
            Map<RingField, MultiGauge> gauges = new EnumMap<>(RingField.class);
            for (RingField field : RingField.values()) {
                gauges.put(field, MultiGauge.builder("controller.sharding." + kind.lowerCaseKind() + "." + field.name)
                        .description(field.help.formatted(kind.kind())).register(registry));
            }
            ringGauges.put(kind, gauges);
        }
        this.ringReady = MultiGauge.builder("ringmaster.ring.ready")
                .description("1 while the ring's Ready condition is True; reason: the condition's reason")
                .register(registry);
        this.shardInfo = MultiGauge.builder("controller.sharding.shard.info").description("Information about a shard")
                .register(registry);
        this.shardState = MultiGauge.builder("controller.sharding.shard.state")
                .description("The shard's current state observed by the shardlease controller").register(registry);
        this.leader = Gauge.builder("ringmaster.sharder.leader", leading, supplier -> supplier.getAsBoolean() ? 1 : 0)
                .description("1 on the sharder replica that leads")
                .strongReference(true) // the supplier is a lambda nothing else holds: weakly held, it is collected
                .register(registry);
    }

    /** Replaces the ring gauges with these ring objects of both kinds; rings gone disappear. */
    synchronized void rings(Collection<? extends RingObject> rings) {
        for (RingKind kind : RingKind.values()) {
            List<? extends RingObject> ofKind = rings.stream().filter(ring -> ring.ringKind() == kind).toList();
            ringGauges.get(kind).forEach((field, gauge) -> gauge.register(ofKind.stream()
                    .<MultiGauge.Row<?>>map(ring -> MultiGauge.Row.of(Tags.of(kind.lowerCaseKind(),
                            ring.getMetadata().getName(), "uid", Objects.requireNonNullElse(ring.getMetadata().getUid(), "")),
                            Objects.requireNonNullElse(field.value.apply(ring), 0)))
                    .toList(), true));
        }
        ringReady.register(rings.stream().<MultiGauge.Row<?>>map(ring -> {
            Condition ready = RingField.status(ring).getConditions().stream()
                    .filter(condition -> "Ready".equals(condition.getType())).findFirst().orElse(null);
            String reason = ready == null ? NOT_OBSERVED : Objects.requireNonNullElse(ready.getReason(), "");
            return MultiGauge.Row.of(SharderMetrics.ringTags(ring.key()).and("reason", reason),
                    ready != null && "True".equals(ready.getStatus()) ? 1 : 0);
        }).toList(), true);
    }

    /** Replaces the shard gauges with these shard Leases, unless they would say the same. */
    synchronized void shards(Collection<Lease> leases) {
        List<ShardRow> rows = leases.stream().flatMap(ShardRow::of).sorted(ShardRow.ORDER).toList();
        if (rows.equals(shards)) {
            return;
        }
        shards = rows;
        shardInfo.register(rows.stream().<MultiGauge.Row<?>>map(row -> MultiGauge.Row.of(
                row.tags().and("uid", row.uid()), 1)).toList(), true);
        List<MultiGauge.Row<?>> states = new ArrayList<>();
        for (ShardRow row : rows) {
            SHARD_STATES.forEach(state -> states.add(MultiGauge.Row.of(row.tags().and("state", state),
                    state.equals(row.state()) ? 1 : 0)));
        }
        shardState.register(states, true);
    }

    /** Removes every gauge, so a successor registering them anew does not collide with stale ones. */
    @Override
    public synchronized void close() {
        ringGauges.values().forEach(gauges -> gauges.values().forEach(gauge -> gauge.register(List.of(), true)));
        ringReady.register(List.of(), true);
        shardInfo.register(List.of(), true);
        shardState.register(List.of(), true);
        shards = List.of();
        registry.remove(leader);
    }
}
