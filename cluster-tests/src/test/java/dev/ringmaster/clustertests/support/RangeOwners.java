package dev.ringmaster.clustertests.support;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.testing.apiserver.Fnv1a;
import dev.ringmaster.testing.apiserver.HashRanges;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A range-mode ring as the tests read it off the shard Leases (issue 34): each shard's assigned and served
 * ranges, and each object's owner, the shard whose assigned ranges hold FNV-1a 64 of the object's uid,
 * computed here (testing-real-apiserver's {@link Fnv1a}), not by the code under test.
 */
public final class RangeOwners {

    private static final BigInteger SPACE = BigInteger.ONE.shiftLeft(64);

    private final Map<String, String> assigned = new TreeMap<>();
    private final Map<String, String> served = new TreeMap<>();
    /** {@link #assigned} parsed, each range [start, end). */
    private final Map<String, List<BigInteger[]>> assignedRanges = new TreeMap<>();

    public RangeOwners(Map<String, Lease> leases) {
        leases.forEach((shard, lease) -> {
            Map<String, String> annotations = Objects.requireNonNullElse(lease.getMetadata().getAnnotations(), Map.of());
            Optional.ofNullable(annotations.get(RingContract.ASSIGNED_RANGES_ANNOTATION)).filter(text -> !text.isBlank())
                    .ifPresent(text -> assigned.put(shard, text));
            Optional.ofNullable(annotations.get(RingContract.SERVED_RANGES_ANNOTATION)).filter(text -> !text.isBlank())
                    .ifPresent(text -> served.put(shard, text));
        });
        assigned.forEach((shard, text) -> assignedRanges.put(shard, HashRanges.parse(text)));
    }

    /** Each shard's assigned ranges as the annotation says them. */
    public Map<String, String> assigned() {
        return Map.copyOf(assigned);
    }

    /**
     * Why the ranges are not settled on {@code shards}; empty if they are: each of them assigned ranges and
     * serving exactly those (its handovers done), no other shard holding any, and the assigned ranges
     * covering the hash space once.
     */
    public List<String> problems(Set<String> shards) {
        List<String> problems = new ArrayList<>();
        for (String shard : shards) {
            if (!assigned.containsKey(shard)) {
                problems.add(shard + " has no ranges assigned");
            } else if (!assigned.get(shard).equals(served.get(shard))) {
                problems.add(shard + " serves " + served.get(shard) + ", assigned " + assigned.get(shard));
            }
        }
        assigned.keySet().stream().filter(shard -> !shards.contains(shard))
                .forEach(shard -> problems.add(shard + ", not an available shard, is assigned " + assigned.get(shard)));
        List<BigInteger[]> ranges = new ArrayList<>();
        assignedRanges.values().forEach(ranges::addAll);
        ranges.sort(Comparator.comparing(range -> range[0]));
        BigInteger next = BigInteger.ZERO;
        for (BigInteger[] range : ranges) {
            if (!range[0].equals(next)) {
                problems.add("the assigned ranges do not cover the hash space once: " + assigned);
                return problems;
            }
            next = range[1];
        }
        if (!next.equals(SPACE)) {
            problems.add("the assigned ranges do not reach the end of the hash space: " + assigned);
        }
        return problems;
    }

    /** The shard whose assigned ranges hold the hash of {@code uid}, if any. */
    public Optional<String> ownerOf(String uid) {
        BigInteger hash = HashRanges.unsigned(Fnv1a.fnv1a64(uid));
        return assignedRanges.entrySet().stream().filter(entry -> entry.getValue().stream()
                .anyMatch(range -> hash.compareTo(range[0]) >= 0 && hash.compareTo(range[1]) < 0))
                .map(Map.Entry::getKey).findFirst();
    }
}
