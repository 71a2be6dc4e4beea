package dev.ringmaster.sandbox;

import dev.ringmaster.flags.Flags;
import dev.ringmaster.flags.Given;
import dev.ringmaster.flags.UsageException;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ranges.RangePlacement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The flags of {@code ringmaster sandbox}.
 *
 * @param shards   shards at the start
 * @param objects  ConfigMaps to create
 * @param scenario what to do once every object is assigned; empty: nothing
 * @param exit     end after the scenario instead of running until a signal
 * @param json     the result as one JSON object (with {@code exit} only), no live view
 * @param quiet    no live view
 * @param timeout  how long the set-up and then the scenario may each take
 * @param ringKind the kind of the sandbox's ring
 * @param shardImpl what the shards run
 * @param rangeBuckets range mode ({@code --ranges}): the ring's {@code spec.ranges.buckets}; 0 in label mode
 */
record SandboxOptions(int shards, int objects, Optional<Scenario> scenario, boolean exit, boolean json, boolean quiet,
        Duration timeout, RingKind ringKind, ShardImpl shardImpl, int rangeBuckets) {

    /** The options in label mode. */
    SandboxOptions(int shards, int objects, Optional<Scenario> scenario, boolean exit, boolean json, boolean quiet,
            Duration timeout, RingKind ringKind, ShardImpl shardImpl) {
        this(shards, objects, scenario, exit, json, quiet, timeout, ringKind, shardImpl, 0);
    }

    static final String USAGE = """
            usage: ringmaster sandbox [--shards N] [--objects M] [--scenario %s]
                                      [--exit [--json]] [--quiet] [--timeout SECONDS]
                                      [--ring-kind clusterring|controllerring] [--shard-impl %s]
                                      [--ranges[=BUCKETS]]

            Runs the whole system with no cluster: an embedded API server (the fabric8 mock server), the
            sharder in Felix as 'ringmaster run' starts it, and N shards of the example checksum controller.
            It creates M ConfigMaps, waits until each is assigned and has its Secret, runs the scenario and
            shows live which shard holds how many objects.
              --shards N          shards at the start, 1 to %d (default %d)
              --objects M         ConfigMaps to shard, 1 to %d (default %d)
              --scenario NAME     scale-out      one more shard joins; objects are drained to it
                                  scale-in       the shard with the most objects stops gracefully
                                  kill-shard     that shard dies without releasing its Lease (about 35 s
                                                 until the sharder declares it dead)
                                  swap-strategy  the default strategy changes from consistent-hash to
                                                 rendezvous in etc/, as an operator would change it
                                  balance        --ranges only: each ConfigMap costs a wait per reconcile
                                                 (%s, mean %d ms, annotation checksums.ringmaster.dev/cost),
                                                 the shards resync every 2 s and report their load every 10 s;
                                                 once all is placed by hash, the ring gets spec.ranges.balancing
                                                 {maxImbalancePercent: 10, maxMovePercent: 30,
                                                 intervalSeconds: 10, stabilizationSeconds: 10}; done when the
                                                 busiest shard's reported busy time is within %s of the mean,
                                                 the ranges are served as assigned and a Balanced Event came
              --exit              end after the scenario and print the final distribution; exit code 0 only
                                  if every object is on an available shard and no object was reconciled by
                                  two shards at overlapping times
              --json              with --exit: print the result as one JSON object instead (no live view)
              --quiet             no live view
              --timeout SECONDS   how long the set-up, and then the scenario, may each take (default %d)
              --ring-kind KIND    clusterring (default) or controllerring: the kind of the ring, with its
                                  labels and Lease label (the reference sharder's ControllerRing since v0.9)
              --shard-impl IMPL   checksum (default): the checksum controller on shard-client; josdk: the same
                                  job as a java-operator-sdk operator on shard-josdk
              --ranges[=BUCKETS]  range mode (KEP-5866): the ring gets spec.ranges {key: uid, buckets: BUCKETS,
                                  a power of two, default %d}, the sharder publishes hash ranges on the
                                  shard Leases and labels nothing, the shards run with --range-mode. The
                                  embedded server ignores the shardSelector: the shards filter client-side.
                                  An object belongs to the shard whose served-ranges hold FNV-1a 64 of its
                                  uid; --exit also needs no ConfigMap written after its creation and every
                                  object last reconciled by its owner. Not with swap-strategy (no strategy);
                                  with balance, --exit also needs the load balanced in time
            Without --exit the sandbox keeps running until Ctrl-C or SIGTERM."""
            .formatted(Scenario.names(), ShardImpl.names(), SandboxOptions.MAX_SHARDS, SandboxOptions.DEFAULT_SHARDS,
                    SandboxOptions.MAX_OBJECTS, SandboxOptions.DEFAULT_OBJECTS, Balancing.COSTS,
                    Balancing.MEAN_COST.toMillis(), String.valueOf(Balancing.BALANCED_RATIO),
                    SandboxOptions.DEFAULT_TIMEOUT_SECONDS, RangePlacement.DEFAULT_BUCKETS);

    static final int DEFAULT_SHARDS = 3;
    static final int MAX_SHARDS = 20;
    static final int DEFAULT_OBJECTS = 100;
    static final int MAX_OBJECTS = 10_000;
    static final int DEFAULT_TIMEOUT_SECONDS = 120;
    private static final int MAX_TIMEOUT_SECONDS = 3600;

    private static final Flags FLAGS = Flags.of()
            .valued("--shards", "--objects", "--scenario", "--timeout", "--ring-kind", "--shard-impl")
            .switches("--exit", "--json", "--quiet")
            .optionalValue("--ranges");

    /**
     * @throws UsageException for an unknown flag, a missing or malformed value, or flags that do not
     *     go together
     */
    static SandboxOptions parse(List<String> args) throws UsageException {
        Given given = FLAGS.parse(args);
        int shards = given.number("--shards", 1, MAX_SHARDS).orElse(DEFAULT_SHARDS);
        int objects = given.number("--objects", 1, MAX_OBJECTS).orElse(DEFAULT_OBJECTS);
        int timeout = given.number("--timeout", 1, MAX_TIMEOUT_SECONDS).orElse(DEFAULT_TIMEOUT_SECONDS);
        Optional<Scenario> scenario = Optional.empty();
        if (given.has("--scenario")) {
            String name = given.value("--scenario").get();
            scenario = Optional.of(Scenario.named(name).orElseThrow(() -> new UsageException(
                    "unknown scenario '" + name + "'; scenarios: " + Scenario.names())));
        }
        RingKind ringKind = given.has("--ring-kind") ? ringKind(given.value("--ring-kind").get()) : RingKind.CLUSTER_RING;
        ShardImpl shardImpl = ShardImpl.CHECKSUM;
        if (given.has("--shard-impl")) {
            String name = given.value("--shard-impl").get();
            shardImpl = ShardImpl.named(name).orElseThrow(() -> new UsageException(
                    "unknown shard implementation '" + name + "'; use " + ShardImpl.names()));
        }
        int rangeBuckets = !given.has("--ranges") ? 0
                : given.value("--ranges").isEmpty() ? RangePlacement.DEFAULT_BUCKETS : buckets(given.value("--ranges").get());
        boolean exit = given.has("--exit");
        boolean json = given.has("--json");
        if (json && !exit) {
            throw new UsageException("--json needs --exit");
        }
        if (scenario.isPresent() && shards < scenario.get().minimumShards()) {
            throw new UsageException("--scenario " + scenario.get() + " needs --shards " + scenario.get().minimumShards()
                    + " or more");
        }
        if (rangeBuckets != 0 && scenario.filter(s -> !s.inRangeMode()).isPresent()) {
            throw new UsageException("--scenario " + scenario.get() + " does not go with --ranges: a range-mode ring has"
                    + " no strategy");
        }
        if (rangeBuckets == 0 && scenario.filter(s -> !s.inLabelMode()).isPresent()) {
            throw new UsageException("--scenario " + scenario.get() + " needs --ranges: load-aware balancing moves hash"
                    + " ranges");
        }
        return new SandboxOptions(shards, objects, scenario, exit, json, given.has("--quiet"), Duration.ofSeconds(timeout),
                ringKind, shardImpl, rangeBuckets);
    }

    /** Whether the scenario is {@code balance}: costs on the objects, load reports, and then balancing. */
    boolean balancing() {
        return scenario.filter(s -> s == Scenario.BALANCE).isPresent();
    }

    /** Whether the ring is in range mode ({@code --ranges}). */
    boolean rangeMode() {
        return rangeBuckets > 0;
    }

    private static int buckets(String value) throws UsageException {
        int buckets;
        try {
            buckets = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            buckets = -1;
        }
        if (buckets < 1 || buckets > RangePlacement.MAX_BUCKETS || Integer.bitCount(buckets) != 1) {
            throw new UsageException("--ranges must be a power of two from 1 to " + RangePlacement.MAX_BUCKETS
                    + ", not '" + value + "'");
        }
        return buckets;
    }

    /** Whether a live view is printed while the sandbox runs. */
    boolean liveView() {
        return !json && !quiet;
    }

    private static RingKind ringKind(String value) throws UsageException {
        try {
            return RingKind.ofKind(value);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--ring-kind must be clusterring or controllerring, not '" + value + "'");
        }
    }
}
