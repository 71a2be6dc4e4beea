package dev.ringmaster.sandbox;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.ranges.RangePlacement;
import dev.ringmaster.ring.ranges.RangeSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
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
     * @param labelled     range mode: whether it carries the ring's shard or drain label (nobody may write one)
     */
    record ObjectState(String name, String shard, boolean draining, boolean secretInSync, boolean labelled) {

        ObjectState(String name, String shard, boolean draining, boolean secretInSync) {
            this(name, shard, draining, secretInSync, false);
        }
    }

    /**
     * One shard Lease.
     *
     * @param name   the shard
     * @param state  the sharder's state label, null until it wrote one
     * @param holder the holder identity, null when released
     * @param assigned range mode: {@code ringmaster.dev/assigned-ranges} (empty when absent or unreadable)
     * @param served   range mode: {@code ringmaster.dev/served-ranges} (empty when absent or unreadable)
     * @param busy     the busy time (s/s) of the shard's {@code ringmaster.dev/load} report (empty when absent
     *                 or unreadable)
     */
    record LeaseState(String name, String state, String holder, RangeSet assigned, RangeSet served, OptionalDouble busy) {

        LeaseState(String name, String state, String holder) {
            this(name, state, holder, RangeSet.EMPTY, RangeSet.EMPTY);
        }

        LeaseState(String name, String state, String holder, RangeSet assigned, RangeSet served) {
            this(name, state, holder, assigned, served, OptionalDouble.empty());
        }

        /** Whether the shard itself holds its Lease (not released, not taken over by the sharder). */
        boolean heldByShard() {
            return name.equals(holder);
        }
    }

    /**
     * Range mode: the shard an object with this hash belongs to, the one holding its own Lease whose
     * served ranges contain the hash (the first by name, should two claim it); null if none does.
     */
    static String owner(long hash, Collection<LeaseState> leases) {
        return leases.stream().filter(LeaseState::heldByShard).filter(lease -> lease.served().contains(hash))
                .map(LeaseState::name).sorted().findFirst().orElse(null);
    }

    /**
     * Range mode: why the ranges are not where the sharder's placement puts them, or empty when every
     * {@code usable} shard is assigned and serves exactly its share of {@link RangePlacement#place} over them.
     */
    Optional<String> rangesPending(Set<String> usable, int buckets) {
        if (usable.isEmpty()) {
            return Optional.of("no shard available");
        }
        Map<String, RangeSet> placed = RangePlacement.place(usable, buckets);
        List<String> pending = new ArrayList<>();
        for (String shard : usable) {
            LeaseState lease = leases.get(shard);
            RangeSet wanted = placed.get(shard);
            if (lease == null || !wanted.equals(lease.assigned()) || !wanted.equals(lease.served())) {
                pending.add(shard);
            }
        }
        return pending.isEmpty() ? Optional.empty()
                : Optional.of("ranges of " + String.join(", ", pending) + " not yet assigned and served as placed");
    }

    /**
     * Range mode: the ranges each of {@code shards} serves; empty when it has no Lease or does not hold it
     * (released, or taken over by the sharder: what its Lease still says it served counts for nothing).
     */
    SortedMap<String, RangeSet> served(Collection<String> shards) {
        SortedMap<String, RangeSet> served = new TreeMap<>();
        shards.forEach(shard -> {
            LeaseState lease = leases.get(shard);
            served.put(shard, lease != null && lease.heldByShard() ? lease.served() : RangeSet.EMPTY);
        });
        return served;
    }

    /**
     * Range mode, with any placement (balanced by load, not {@link RangePlacement#place}): why the ranges are
     * not settled, or empty when every {@code usable} shard serves exactly what it is assigned and they serve
     * the whole hash space together.
     */
    Optional<String> rangesSettled(Set<String> usable) {
        if (usable.isEmpty()) {
            return Optional.of("no shard available");
        }
        List<String> pending = new ArrayList<>();
        double share = 0;
        for (String shard : usable) {
            LeaseState lease = leases.get(shard);
            if (lease == null || !lease.assigned().equals(lease.served())) {
                pending.add(shard);
            } else {
                share += lease.served().fraction();
            }
        }
        if (!pending.isEmpty()) {
            return Optional.of("ranges of " + String.join(", ", pending) + " not yet served as assigned");
        }
        return Math.abs(share - 1) < 1e-9 ? Optional.empty()
                : Optional.of(String.format(java.util.Locale.ROOT, "the shards serve %.1f%% of the hash space", 100 * share));
    }

    /** The busy time (s/s) each shard holding its own Lease reported last; shards without a report are left out. */
    SortedMap<String, Double> busy() {
        SortedMap<String, Double> busy = new TreeMap<>();
        leases.values().stream().filter(LeaseState::heldByShard).filter(lease -> lease.busy().isPresent())
                .forEach(lease -> busy.put(lease.name(), lease.busy().getAsDouble()));
        return busy;
    }

    /** Range mode: objects carrying the ring's shard or drain label. */
    int labelled() {
        return (int) objects.values().stream().filter(ObjectState::labelled).count();
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

    /** Everything that must stay the same while the ring is at rest: assignments, drains, Secrets, served ranges. */
    String fingerprint() {
        return objects.values().toString() + leases.values().stream().filter(lease -> !lease.served().isEmpty())
                .map(lease -> lease.name() + "=" + lease.served()).toList();
    }

    /** Shard per object, as a map (for tests and messages). */
    Map<String, String> assignment() {
        return objects.values().stream().filter(object -> object.shard() != null)
                .collect(Collectors.toMap(ObjectState::name, ObjectState::shard, (a, b) -> b, TreeMap::new));
    }
}
