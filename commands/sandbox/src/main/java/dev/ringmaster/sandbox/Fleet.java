package dev.ringmaster.sandbox;

import dev.ringmaster.examples.checksum.ChecksumShard;
import dev.ringmaster.examples.checksum.Cost;
import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The example's shards, each as it would run in a process of its own: a {@link ChecksumShard} (or,
 * with {@code --shard-impl josdk}, the JOSDK operator's) with a client of its own, in this JVM on the
 * plain class path. What became of
 * each shard is remembered for the live view.
 */
final class Fleet implements AutoCloseable {

    /** What a shard of the fleet is doing. */
    enum Status {
        RUNNING("running"), STOPPED("stopped"), KILLED("killed");

        private final String text;

        Status(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    private record Member(ShardImpl.Running shard, KubernetesClient client) {
    }

    private final Supplier<KubernetesClient> clients;
    private final RingKind kind;
    private final ShardImpl impl;
    private final String ring;
    private final String namespace;
    private final Consumer<String> reconcileLog;
    private final Map<String, Member> running = new LinkedHashMap<>();
    private final Map<String, Status> status = new LinkedHashMap<>();
    private boolean rangeMode;
    private Duration resync;
    private Duration loadReportPeriod;

    /**
     * @param clients      a new client per shard
     * @param impl         what the shards run
     * @param kind         the ring's kind
     * @param ring         the ring
     * @param namespace    the shards' Leases and the ConfigMaps they reconcile
     * @param reconcileLog receives every shard's reconcile lines
     */
    Fleet(Supplier<KubernetesClient> clients, ShardImpl impl, RingKind kind, String ring, String namespace,
            Consumer<String> reconcileLog) {
        this.clients = clients;
        this.impl = impl;
        this.kind = kind;
        this.ring = ring;
        this.namespace = namespace;
        this.reconcileLog = reconcileLog;
    }

    /** Starts the shards from now on in range mode ({@code --range-mode}): they serve the ranges on their Leases. */
    synchronized Fleet inRangeMode() {
        rangeMode = true;
        return this;
    }

    /**
     * Starts the shards from now on with a resync every {@code resync} (so that every object costs its cost
     * again and again), costs spent waiting, and load reports every {@code loadReportPeriod}.
     */
    synchronized Fleet reportingLoad(Duration resync, Duration loadReportPeriod) {
        this.resync = resync;
        this.loadReportPeriod = loadReportPeriod;
        return this;
    }

    /** The name of the n-th shard. */
    static String name(int n) {
        return "shard-" + n;
    }

    /** Starts a shard with shard-client's default Lease timings (15 s, 10 s, 2 s). */
    synchronized void start(String name) {
        KubernetesClient client = clients.get();
        try {
            ChecksumShard.Options options = ChecksumShard.Options.of(ring, name, namespace).withRingKind(kind)
                    .withWatchNamespaces(List.of(namespace)).withRangeMode(rangeMode);
            if (resync != null) {
                options = options.withResync(resync).withCostAs(Cost.Mode.WAIT).withLoadReportPeriod(loadReportPeriod);
            }
            ShardImpl.Running shard = impl.start(client, options, reconcileLog);
            running.put(name, new Member(shard, client));
            status.put(name, Status.RUNNING);
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** Stops a shard gracefully: its running reconcile ends, then it releases its Lease. */
    void stop(String name) {
        Member member = remove(name, Status.STOPPED);
        member.shard().close().run();
        member.client().close();
    }

    /** Kills a shard: it stops renewing and reconciling, and its Lease stays as it was. */
    void kill(String name) {
        Member member = remove(name, Status.KILLED);
        member.shard().kill().run();
        member.client().close();
    }

    /** Shards whose process runs. */
    synchronized Set<String> running() {
        return new TreeSet<>(running.keySet());
    }

    /** Every shard ever started, in start order. */
    synchronized List<String> all() {
        return new ArrayList<>(status.keySet());
    }

    synchronized Status status(String name) {
        return status.get(name);
    }

    /** Stops every running shard gracefully. */
    @Override
    public void close() {
        for (String name : running()) {
            stop(name);
        }
    }

    private synchronized Member remove(String name, Status next) {
        Member member = running.remove(name);
        if (member == null) {
            throw new IllegalStateException("shard " + name + " is not running");
        }
        status.put(name, next);
        return member;
    }
}
