#!/usr/bin/env python3
"""Independent computation of Ringmaster's shard placements, for pinned test vectors.

Written from the specifications, not from the Java code:
  - XXH64 (seed 0) from the xxHash specification (doc/xxhash_spec.md, "XXH64 algorithm");
  - consistent-hash: docs/strategies.md (token i of shard S = XXH64(S + separator + decimal(i)),
    w x tokensPerShard tokens; a key belongs to the first token >= XXH64(key), wrapping);
  - rendezvous: docs/strategies.md (score w / -ln(h), h = SplitMix64 finaliser of
    XXH64(key) xor XXH64(shard), read as a fraction of 2^64), computed with the ideal real formula;
    weighted winners are reported only when no fixed-point error could change them;
  - jump-hash: Lamping & Veach, "A Fast, Minimal Memory, Consistent Hash Algorithm" (arXiv:1406.2294),
    over XXH64(key) and the shards sorted by name.

Usage: python3 placements.py <table>   (see TABLES at the end; no argument: self-check only)
"""
import bisect
import math
import sys

M64 = (1 << 64) - 1
P1 = 0x9E3779B185EBCA87
P2 = 0xC2B2AE3D27D4EB4F
P3 = 0x165667B19E3779F9
P4 = 0x85EBCA77C2B2AE63
P5 = 0x27D4EB2F165667C5


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def xxh64_round(acc, lane):
    return (rotl((acc + lane * P2) & M64, 31) * P1) & M64


def xxh64(data, seed=0):
    if isinstance(data, str):
        data = data.encode("utf-8")
    n = len(data)
    i = 0
    if n >= 32:
        v = [(seed + P1 + P2) & M64, (seed + P2) & M64, seed, (seed - P1) & M64]
        while i + 32 <= n:
            for lane in range(4):
                v[lane] = xxh64_round(v[lane], int.from_bytes(data[i + 8 * lane:i + 8 * lane + 8], "little"))
            i += 32
        acc = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M64
        for lane in v:
            acc = ((acc ^ xxh64_round(0, lane)) * P1 + P4) & M64
    else:
        acc = (seed + P5) & M64
    acc = (acc + n) & M64
    while i + 8 <= n:
        acc ^= xxh64_round(0, int.from_bytes(data[i:i + 8], "little"))
        acc = (rotl(acc, 27) * P1 + P4) & M64
        i += 8
    if i + 4 <= n:
        acc ^= (int.from_bytes(data[i:i + 4], "little") * P1) & M64
        acc = (rotl(acc, 23) * P2 + P3) & M64
        i += 4
    while i < n:
        acc ^= (data[i] * P5) & M64
        acc = (rotl(acc, 11) * P1) & M64
        i += 1
    acc ^= acc >> 33
    acc = (acc * P2) & M64
    acc ^= acc >> 29
    acc = (acc * P3) & M64
    acc ^= acc >> 32
    return acc


class ConsistentHashRing:
    def __init__(self, shards, tokens_per_shard=100, separator=""):
        """shards: {name: weight}. On a token collision the name sorting last owns the position."""
        owner = {}
        for name in sorted(shards):
            for i in range(shards[name] * tokens_per_shard):
                owner[xxh64(name + separator + str(i))] = name
        self.positions = sorted(owner)
        self.owner = owner

    def shard_for(self, key):
        index = bisect.bisect_left(self.positions, xxh64(key))
        return self.owner[self.positions[index % len(self.positions)]]


def splitmix64_finaliser(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def minus_log2_fraction(h):
    """-log2(h / 2^64) for 0 < h < 2^64, accurate also for h close to 2^64."""
    if h >= 1 << 63:
        return -math.log1p(-((1 << 64) - h) / 2.0 ** 64) / math.log(2)
    return 64 - math.log2(h)


# The fixed-point -log2 is within 1.8e-7 of the real one; a winner is reported only if it still wins
# with every score moved by a much larger error than that.
LOG2_TOLERANCE = 1e-6


def rendezvous(shards, key):
    """shards: {name: weight}. The winner of max w / -log2(h), or None if the margin is too thin."""
    key_hash = xxh64(key)
    scored = []
    for name, weight in shards.items():
        h = splitmix64_finaliser(key_hash ^ xxh64(name))
        scored.append((weight, minus_log2_fraction(h | 1), h, name))
    if len({weight for weight, _, _, _ in scored}) == 1:
        return max(scored, key=lambda s: s[2])[3]  # equal weights: exact, the largest h wins
    best = max(scored, key=lambda s: s[0] / s[1])
    worst_case_best = best[0] / (best[1] + LOG2_TOLERANCE)
    for weight, distance, _, name in scored:
        if name != best[3] and weight / max(distance - LOG2_TOLERANCE, 1e-300) >= worst_case_best:
            return None
    return best[3]


def jump(key, buckets):
    b, j = -1, 0
    while j < buckets:
        b = j
        key = (key * 2862933555777941757 + 1) & M64
        j = int((b + 1) * (float(1 << 31) / float((key >> 33) + 1)))
    return b


def jump_hash(shard_names, key):
    names = sorted(shard_names)
    return names[jump(xxh64(key), len(names))]


def self_check():
    published = {"": 0xEF46DB3751D8E999, "a": 0xD24EC4F1A98C6E5B, "abc": 0x44BC2CF5AD770999,
                 "Nobody inspects the spammish repetition": 0xFBCEA83C8A378BF1}
    for text, value in published.items():
        assert xxh64(text) == value, text
    ring = ConsistentHashRing({"shard-0": 1, "shard-1": 1, "shard-2": 1})
    reference = {"/ConfigMap/default/foo": "shard-0", "/ConfigMap/default/bar": "shard-1",
                 "apps/Deployment/default/web": "shard-0", "/ConfigMap/default/baz": "shard-2"}
    for key, shard in reference.items():
        assert ring.shard_for(key) == shard, (key, ring.shard_for(key), shard)


def strategy_keys():
    """50 keys of every shape: core and grouped, namespaced and cluster-scoped, short and >= 32 bytes."""
    shapes = ["/ConfigMap/default/cm-{}", "apps/Deployment/team-{}/web", "/Secret/kube-system/a-rather-long-secret-name-{}",
              "/PersistentVolume//pv-{}", "batch/Job/ns-{}/nightly"]
    return [shapes[i % len(shapes)].format(i) for i in range(50)]


def unweighted(*names):
    return {name: 1 for name in names}


SHARDS_3 = unweighted("shard-0", "shard-1", "shard-2")
SHARDS_4 = unweighted("shard-0", "shard-1", "shard-2", "shard-3")
WEIGHTED = {"shard-0": 1, "shard-1": 2, "shard-2": 4}


def csv(rows):
    for row in rows:
        print(", ".join(row))


def table(name):
    keys = strategy_keys()
    if name == "consistent":  # key, 3 shards, 4 shards, 3 shards with weights 1:2:4
        rings = [ConsistentHashRing(SHARDS_3), ConsistentHashRing(SHARDS_4), ConsistentHashRing(WEIGHTED)]
        csv([key] + [ring.shard_for(key) for ring in rings] for key in keys)
    elif name == "rendezvous":  # key, 3 shards, 4 shards
        csv([key, rendezvous(SHARDS_3, key), rendezvous(SHARDS_4, key)] for key in keys)
    elif name == "rendezvous-weighted":  # key, weights 1:2:4 (clear winners only)
        csv([key, shard] for key in keys if (shard := rendezvous(WEIGHTED, key)) is not None)
    elif name == "jump-hash":  # key, 3 shards, 10 shards (shard-0 .. shard-9)
        ten = ["shard-%d" % i for i in range(10)]
        csv([key, jump_hash(SHARDS_3, key), jump_hash(ten, key)] for key in keys)
    elif name == "sharder":  # the sharder tests' objects
        two = unweighted("shard-0", "shard-1")
        names = ["cm-%d" % i for i in range(30)] + ["drained", "waiting", "late"]
        for title, shards, place, listed in [
                ("rendezvous shard-0 shard-1", two, rendezvous, names),
                ("rendezvous shard-0 shard-1 shard-2", SHARDS_3, rendezvous, names[:30]),
                ("consistent-hash shard-0 shard-1", two, lambda s, k: ConsistentHashRing(s).shard_for(k), names[:30])]:
            print(title)
            for shard in sorted(shards):
                print("  %s: %s" % (shard, " ".join(n for n in listed if place(shards, "/ConfigMap/default/" + n) == shard)))
        print("rendezvous shard-0 shard-1: /PersistentVolume//pv-1 ->", rendezvous(two, "/PersistentVolume//pv-1"))
    elif name == "sharder-it":  # itests' SharderIT: ConfigMaps of namespace default over shard-0 and shard-1
        two = unweighted("shard-0", "shard-1")
        names = ["cm-%d" % i for i in range(12)] + ["late-0", "late-1", "fresh"]
        for title, place in [
                ("rendezvous", lambda k: rendezvous(two, k)),
                ("consistent-hash", lambda k: ConsistentHashRing(two).shard_for(k)),
                ("consistent-hash, 7 tokens per shard", lambda k: ConsistentHashRing(two, 7).shard_for(k))]:
            print(title)
            for shard in sorted(two):
                print("  %s: %s" % (shard, " ".join(n for n in names if place("/ConfigMap/default/" + n) == shard)))
        print("rendezvous, the namespace interpreter's key default ->", rendezvous(two, "default"))
    elif name == "checksum":  # the checksum controller's end-to-end test
        ring = ConsistentHashRing(unweighted("shard-a", "shard-b"))
        for shard in ["shard-a", "shard-b"]:
            print("%s: %s" % (shard, " ".join("cm-%d" % i for i in range(50)
                                               if ring.shard_for("/ConfigMap/sharded/cm-%d" % i) == shard)))
    elif name == "migration":  # itests' MigrationRealIT: a fleet as the reference sharder left it
        shards = unweighted("checksum-6d4b9c7f8-2xkqp", "checksum-6d4b9c7f8-hv4mn", "checksum-6d4b9c7f8-wz8rt")
        ring = ConsistentHashRing(shards)
        for namespace in ["migrate-controllerring", "migrate-clusterring"]:
            print(namespace)
            for shard in sorted(shards):
                print("  %s: %s" % (shard, " ".join("cm-%d" % i for i in range(60)
                                                     if ring.shard_for("/ConfigMap/%s/cm-%d" % (namespace, i)) == shard)))
            print("  fresh ->", ring.shard_for("/ConfigMap/%s/fresh" % namespace))
    elif name == "ring-preview":  # the cli's RingPreviewTest: consistent-hash -> rendezvous over shard-0..2
        preview(["/ConfigMap/preview/cm-%d" % i for i in range(60)], preview_label, range(20), SHARDS_3 | {"shard-3": 0})
    elif name == "ring-preview-real":  # itests' SimulateRingRealIT: ConfigMaps of namespace preview-ring
        keys = ["/ConfigMap/preview-ring/cm-%d" % i for i in range(40)]
        preview(keys, preview_label, range(10), SHARDS_3 | {"shard-3": 0})
        seven = ConsistentHashRing(SHARDS_3, 7)
        print("moved consistent-hash -> consistent-hash with 7 tokens per shard: %d"
              % sum(ConsistentHashRing(SHARDS_3).shard_for(key) != seven.shard_for(key) for key in keys))
        print("moved rendezvous -> jump-hash: %d"
              % sum(rendezvous(SHARDS_3, key) != jump_hash(SHARDS_3, key) for key in keys))
    elif name == "ring-preview-settled":  # itests' SimulateSettledRingRealIT: shard-a, shard-b over 30 ConfigMaps
        two = unweighted("shard-a", "shard-b")
        keys = ["/ConfigMap/preview-settled/cm-%d" % i for i in range(30)]
        for title, place in [("rendezvous", lambda k: rendezvous(two, k)),
                             ("consistent-hash", lambda k: ConsistentHashRing(two).shard_for(k))]:
            print("%s: %s" % (title, " ".join("%s=%d" % (shard, sum(place(k) == shard for k in keys))
                                              for shard in sorted(two))))
        print("moved rendezvous -> consistent-hash: %d"
              % sum(rendezvous(two, k) != ConsistentHashRing(two).shard_for(k) for k in keys))
    else:
        raise SystemExit("unknown table " + name)


def preview_label(i):
    """The labels of object i in the preview tests: (shard label or None, drain label present)."""
    if i % 10 == 9:
        return None, False
    return ("shard-gone" if i == 37 else "shard-%d" % (i % 4)), i % 10 == 8


def preview(keys, label, controlled, shards):
    """What simulate --ring reports for main objects `keys` labelled by `label(i)`, of which the first
    `controlled` each control one object, over `shards` ({name: weight}; weight 0: not available),
    consistent-hash (100 tokens) in force and rendezvous the candidate."""
    available = {name: weight for name, weight in shards.items() if weight > 0}
    current = ConsistentHashRing(available)
    rows = {name: [0, 0, 0] for name in sorted(shards)}  # labelled, current, candidate
    moved = controlled_moved = elsewhere = draining = unassigned = 0
    for i, key in enumerate(keys):
        before, after = current.shard_for(key), rendezvous(available, key)
        moved += before != after
        controlled_moved += (before != after) and i in controlled
        rows[before][1] += 1
        rows[after][2] += 1
        shard, drain = label(i)
        if shard is None:
            unassigned += 1
            continue
        rows.setdefault(shard, [0, 0, 0])[0] += 1
        if drain:
            draining += 1
        elif shard != before:
            elsewhere += 1
    for name, (labelled, before, after) in rows.items():
        print("%s labelled=%d current=%d candidate=%d" % (name, labelled, before, after))
    print("moved=%d controlledMoved=%d elsewhere=%d draining=%d unassigned=%d"
          % (moved, controlled_moved, elsewhere, draining, unassigned))


if __name__ == "__main__":
    self_check()
    for argument in sys.argv[1:]:
        table(argument)
