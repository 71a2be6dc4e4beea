package dev.ringmaster.sandbox;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.ShardState;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What the sandbox sees of the ring at one moment: its ConfigMaps and the shard Leases. Pure data
 * and judgements on it; {@link ClusterWatch} takes snapshots.
 *
 * @param namespace the ConfigMaps' namespace
 * @param objects   every ConfigMap, by name
 * @param leases    every shard Lease of the ring, by name
 */
record Snapshot(String namespace, SortedMap<String, ObjectState> objects, SortedMap<String, LeaseState> leases) {

    /** Lease states in which the sharder assigns objects to a shard (docs/design.md section 3). */
    static final Set<String> AVAILABLE_STATES = Arrays.stream(ShardState.values())
            .filter(ShardState::isAvailable).map(ShardState::label).collect(Collectors.toUnmodifiableSet());

    /**
     * One ConfigMap.
     *
     * @param name         its name
     * @param shard        its shard label's value, null when unassigned
     * @param draining     whether it carries the drain label
     * @param secretInSync whether its Secret exists, holds its checksums and is on the same shard
     */
    record ObjectState(String name, String shard, boolean draining, boolean secretInSync) {
    }

    /**
     * One shard Lease.
     *
     * @param name   the shard
     * @param state  the sharder's state label, null until it wrote one
     * @param holder the holder identity, null when released
     */
    record LeaseState(String name, String state, String holder) {
    }

    Snapshot {
        objects = new TreeMap<>(objects);
        leases = new TreeMap<>(leases);
    }

    static Snapshot of(String namespace, Collection<ObjectState> objects, Collection<LeaseState> leases) {
        return new Snapshot(namespace,
                objects.stream().collect(Collectors.toMap(ObjectState::name, o -> o, (a, b) -> b, TreeMap::new)),
                leases.stream().collect(Collectors.toMap(LeaseState::name, l -> l, (a, b) -> b, TreeMap::new)));
    }

    /** The lease state label of a shard: {@code -} while it has none or no Lease. */
    String state(String shard) {
        LeaseState lease = leases.get(shard);
        return lease == null || lease.state() == null ? "-" : lease.state();
    }

    /**
     * The shards objects may be on: the sharder considers them available (state label) and their
     * process runs.
     */
    Set<String> usable(Set<String> running) {
        return leases.values().stream()
                .filter(lease -> lease.state() != null && AVAILABLE_STATES.contains(lease.state()))
                .map(LeaseState::name)
                .filter(running::contains)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Objects per shard label value, with a zero for each of {@code shards} that holds none. */
    SortedMap<String, Integer> perShard(Collection<String> shards) {
        SortedMap<String, Integer> counts = new TreeMap<>();
        shards.forEach(shard -> counts.put(shard, 0));
        for (ObjectState object : objects.values()) {
            if (object.shard() != null) {
                counts.merge(object.shard(), 1, Integer::sum);
            }
        }
        return counts;
    }

    int count(String shard) {
        return (int) objects.values().stream().filter(object -> shard.equals(object.shard())).count();
    }

    int unassigned() {
        return (int) objects.values().stream().filter(object -> object.shard() == null).count();
    }

    int draining() {
        return (int) objects.values().stream().filter(ObjectState::draining).count();
    }

    /** Objects whose Secret is missing, stale, or not (yet) on the ConfigMap's shard. */
    int secretsPending() {
        return (int) objects.values().stream().filter(object -> !object.secretInSync()).count();
    }

    /** Assigned objects whose shard is not one of {@code usable}. */
    List<String> onUnusableShards(Set<String> usable) {
        return objects.values().stream()
                .filter(object -> object.shard() != null && !usable.contains(object.shard()))
                .map(ObjectState::name).toList();
    }

    /**
     * Why the ring is not at rest yet, or empty when it is: all {@code expected} objects exist, each
     * is on one of the {@code usable} shards, none is in drain, and every Secret is in sync.
     */
    Optional<String> unsettled(int expected, Set<String> usable) {
        if (objects.size() < expected) {
            return Optional.of(objects.size() + " of " + expected + " ConfigMaps seen");
        }
        if (unassigned() > 0) {
            return Optional.of(unassigned() + " unassigned");
        }
        if (draining() > 0) {
            return Optional.of(draining() + " in drain");
        }
        List<String> stranded = onUnusableShards(usable);
        if (!stranded.isEmpty()) {
            Set<String> shards = stranded.stream().map(name -> objects.get(name).shard())
                    .collect(Collectors.toCollection(TreeSet::new));
            return Optional.of(stranded.size() + " on unavailable shard" + (shards.size() == 1 ? " " : "s ")
                    + String.join(", ", shards));
        }
        if (secretsPending() > 0) {
            return Optional.of(secretsPending() + " Secrets missing, stale or not on their ConfigMap's shard");
        }
        return Optional.empty();
    }

    /** Objects not on the shard {@code ring} picks for them (key {@code /ConfigMap/<namespace>/<name>}). */
    int misplaced(ShardRing ring) {
        return (int) objects.values().stream()
                .filter(object -> !Objects.equals(object.shard(), ring.shardFor(key(object.name())).orElse(null)))
                .count();
    }

    /** The partition key of a ConfigMap under the default resource interpreter. */
    String key(String name) {
        return RingContract.partitionKey("", "ConfigMap", namespace, name);
    }

    /** Everything that must stay the same while the ring is at rest: assignments, drains, Secrets. */
    String fingerprint() {
        return objects.values().toString();
    }

    /** Shard per object, as a map (for tests and messages). */
    Map<String, String> assignment() {
        return objects.values().stream().filter(object -> object.shard() != null)
                .collect(Collectors.toMap(ObjectState::name, ObjectState::shard, (a, b) -> b, TreeMap::new));
    }
}
