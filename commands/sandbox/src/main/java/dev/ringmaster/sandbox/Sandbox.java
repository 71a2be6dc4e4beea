package dev.ringmaster.sandbox;

import dev.ringmaster.examples.checksum.Cost;
import dev.ringmaster.launcher.LaunchException;
import dev.ringmaster.launcher.Ringmaster;
import dev.ringmaster.launcher.run.RunFlag;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Properties;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * One sandbox: the embedded API server, the sharder in Felix as {@code run} starts it (with a
 * configuration folder of its own), the checksum shards, and what watches them. {@link #start}
 * brings the ring to rest with every object assigned and reconciled, {@link #run(Scenario)} plays a
 * scenario to its end, {@link #result} reads the outcome, {@link #close} takes it all down.
 */
final class Sandbox implements AutoCloseable {

    static final String RING = "sandbox";
    /** The namespace of the ConfigMaps, their Secrets and the shards' Leases. */
    static final String NAMESPACE = "sandbox";
    /** How long the ring must stay unchanged, at rest, for a phase to be over. */
    static final Duration STABLE = Duration.ofSeconds(2);
    private static final long POLL_MILLIS = 100;
    private static final long VIEW_MILLIS = 1000;

    private final Path home;
    private final SandboxOptions options;
    private final LiveView view;
    private final BooleanSupplier stopRequested;
    private final long startNanos;
    private final ReconcileLog reconciles = new ReconcileLog();

    private EmbeddedApiServer server;
    private KubernetesClient client;
    private Path root;
    private SandboxEtc etc;
    private Properties consistentSettings = new Properties();
    private Ringmaster ringmaster;
    private ClusterWatch watch;
    private Fleet fleet;
    private ScheduledExecutorService ticker;
    private volatile String strategy = SandboxEtc.INITIAL_STRATEGY;
    private volatile String phase = "starting";
    private volatile long movesBaseline;
    private volatile long scenarioNanos;
    /** The balance scenario: the leader's Balanced Events; null otherwise. */
    private BalancedEvents balancedEvents;
    /** The balance scenario: once spec.ranges.balancing is set, the ranges follow the load, not the hash placement. */
    private volatile boolean balancingSet;
    /** The balance scenario: whether it reached its end (balanced, settled, a Balanced Event). */
    private volatile boolean balanced;
    /** The balance scenario: what a reconcile of each ConfigMap costs, by name; empty otherwise. */
    private volatile Map<String, Duration> costOf = Map.of();

    /**
     * @param home          the distribution
     * @param options       the command line
     * @param view          the live view (possibly disabled)
     * @param stopRequested true once Ctrl-C or SIGTERM arrived
     * @param startNanos    {@link System#nanoTime()} when the command started
     */
    Sandbox(Path home, SandboxOptions options, LiveView view, BooleanSupplier stopRequested, long startNanos) {
        this.home = home;
        this.options = options;
        this.view = view;
        this.stopRequested = stopRequested;
        this.startNanos = startNanos;
    }

    /**
     * Starts everything and waits until every object is assigned to a shard, reconciled (its Secret
     * exists and is on its shard) and where the strategy puts it, and stays so for {@link #STABLE}.
     *
     * @param err where the framework reports errors
     */
    void start(PrintStream err) throws SandboxException, IOException, LaunchException {
        Deadline deadline = new Deadline(options.timeout());
        phase("starting the API server");
        server = EmbeddedApiServer.start();
        client = server.newClient();
        EmbeddedApiServer.createCluster(client, home, options.ringKind(), RING, NAMESPACE, options.rangeBuckets());
        root = Files.createTempDirectory("ringmaster-sandbox-");
        int opsPort = freePort();
        etc = SandboxEtc.write(home, root, server.url(), opsPort);
        consistentSettings = etc.properties(Placement.CONSISTENT_PID);
        view.event("API server " + server.url() + " (fabric8 mock server); " + options.ringKind().kind() + " " + RING
                + ": ConfigMaps in namespace " + NAMESPACE + ", and the Secrets they control");
        if (options.rangeMode()) {
            view.event("range mode: spec.ranges {key: uid, buckets: " + options.rangeBuckets() + "}; the sharder"
                    + " publishes hash ranges on the shard Leases and labels nothing; the mock server ignores the"
                    + " shardSelector, so the shards filter client-side");
        }

        phase("starting the sharder");
        // bundles see only what they import, never the fabric8 and Vert.x classes of this class path; the
        // ${ringmaster.run.*} placeholders left in the copied files take the defaults of run's flags
        ringmaster = startRingmaster(Map.of("felix.bootdelegation.implicit", "false"), err);
        view.event("sharder running in Felix as 'ringmaster run' runs it; configuration in " + etc.dir()
                + ", metrics on http://127.0.0.1:" + opsPort + "/metrics");

        phase("starting the shards");
        watch = new ClusterWatch(client, options.ringKind(), RING, NAMESPACE, NAMESPACE, options.rangeMode());
        fleet = new Fleet(server::newClient, options.shardImpl(), options.ringKind(), RING, NAMESPACE, reconciles);
        if (options.rangeMode()) {
            fleet.inRangeMode();
        }
        if (options.balancing()) {
            fleet.reportingLoad(Balancing.RESYNC, Balancing.LOAD_REPORT_PERIOD);
            balancedEvents = new BalancedEvents(client, RING, note -> view.event("Balanced: " + note));
        }
        startTicker();
        for (int i = 0; i < options.shards(); i++) {
            fleet.start(Fleet.name(i));
        }
        view.event("started " + String.join(", ", fleet.all()) + " (checksum controller, Lease " + NAMESPACE
                + "/<shard>, 15 s" + (options.rangeMode() ? ", --range-mode" : "") + ")");
        await("set-up", deadline, this::shardsNotReady);

        phase("creating " + options.objects() + " ConfigMaps");
        java.util.List<Duration> costs = options.balancing() ? Balancing.costs(options.objects()) : null;
        Map<String, Duration> costsByName = new HashMap<>();
        for (int i = 0; i < options.objects(); i++) {
            String name = "cm-" + i;
            Map<String, String> annotations = Map.of();
            if (costs != null) {
                costsByName.put(name, costs.get(i));
                annotations = Map.of(Cost.ANNOTATION, Balancing.annotation(costs.get(i)));
            }
            client.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder()
                    .withNewMetadata().withNamespace(NAMESPACE).withName(name).withAnnotations(annotations).endMetadata()
                    .addToData("index", String.valueOf(i))
                    .addToData("text", "object " + i + " of the sandbox")
                    .build()).createOr(NonDeletingOperation::update); // a retried POST finds it (EmbeddedApiServer)
        }
        costOf = Map.copyOf(costsByName);
        view.event("created " + options.objects() + " ConfigMaps; " + (options.rangeMode()
                ? "each belongs to the shard serving FNV-1a 64 of its uid, which writes its Secret"
                : "the sharder assigns them, the shards write their Secrets"));
        if (costs != null) {
            view.event("each ConfigMap's reconcile costs a wait (" + Cost.ANNOTATION + ", " + Balancing.COSTS + ", mean "
                    + Balancing.MEAN_COST.toMillis() + " ms); the shards resync every " + Balancing.RESYNC.toSeconds()
                    + " s and report their busy time on their Leases every " + Balancing.LOAD_REPORT_PERIOD.toSeconds()
                    + " s");
        }
        awaitAtRest("set-up", deadline, snapshot -> Optional.empty());
        movesBaseline = watch.moves();
        view.event("every object is assigned and reconciled");
    }

    /** Plays a scenario until the ring is at rest again with every object where it belongs. */
    void run(Scenario scenario) throws SandboxException, IOException {
        long scenarioStart = System.nanoTime();
        try {
            play(scenario, new Deadline(options.timeout()));
        } finally {
            scenarioNanos = System.nanoTime() - scenarioStart;
        }
        view.event(scenario + ": done, every object is where " + (options.rangeMode()
                ? "the range placement puts it" : strategy + " puts it"));
    }

    private void play(Scenario scenario, Deadline deadline) throws SandboxException, IOException {
        String what = scenario.text();
        switch (scenario) {
            case SCALE_OUT -> {
                String added = Fleet.name(fleet.all().size());
                fleet.start(added);
                view.event(what + ": started " + added + (options.rangeMode()
                        ? "; the sharder hands it ranges as their shards give them up"
                        : "; the sharder drains the objects that now belong to it"));
                awaitAtRest(what, deadline, snapshot -> snapshot.usable(fleet.running()).contains(added)
                        ? Optional.empty()
                        : Optional.of("waiting for " + added + "'s Lease to be ready (now " + snapshot.state(added) + ")"));
            }
            case SCALE_IN -> {
                String leaving = busiest();
                view.event(what + ": stopping " + leaving + " gracefully; it releases its Lease");
                fleet.stop(leaving);
                view.event(leaving + " stopped; the sharder moves its objects at once");
                awaitAtRest(what, deadline, snapshot -> stillHolds(snapshot, leaving));
            }
            case KILL_SHARD -> {
                String killed = busiest();
                view.event(what + ": killing " + killed + "; its Lease stays as it was");
                fleet.kill(killed);
                view.event(killed + " killed; its Lease expires after 15 s, is uncertain after 30 s, then the"
                        + " sharder acquires it, declares the shard dead and moves its objects");
                awaitAtRest(what, deadline, snapshot -> stillHolds(snapshot, killed));
            }
            case SWAP_STRATEGY -> {
                String next = RendezvousStrategy.NAME;
                etc.defaultStrategy(next);
                strategy = next;
                view.event(what + ": defaultStrategy = " + next + " saved in " + etc.dir().resolve(RunFlag.SHARDER_PID
                        + ".cfg") + "; the sharder takes it up and drains every object whose shard changes");
                awaitAtRest(what, deadline, snapshot -> Optional.empty());
            }
            case BALANCE -> {
                setBalancing();
                balancingSet = true;
                view.event(what + ": spec.ranges.balancing {" + Balancing.SETTINGS_TEXT + "} set on " + RING
                        + "; the leader moves ranges from busy shards to idle ones through the handover");
                awaitAtRest(what, deadline, snapshot -> {
                    balancedEvents.poll();
                    Set<String> usable = snapshot.usable(fleet.running());
                    return Balancing.pending(snapshot.busy(), usable, balancedEvents.notes().size());
                });
                balanced = true;
            }
            default -> throw new IllegalStateException("unknown scenario " + scenario);
        }
    }

    /** Sets the ring's {@code spec.ranges.balancing} to {@link Balancing#SETTINGS}. */
    @SuppressWarnings("unchecked")
    private void setBalancing() {
        client.genericKubernetesResources(RingContract.API_GROUP + "/" + RingContract.API_VERSION,
                options.ringKind().kind()).withName(RING).edit(ring -> {
                    Map<String, Object> spec = (Map<String, Object>) ring.getAdditionalProperties().get("spec");
                    Map<String, Object> ranges = new LinkedHashMap<>((Map<String, Object>) spec.get("ranges"));
                    ranges.put("balancing", new LinkedHashMap<>(Balancing.SETTINGS));
                    Map<String, Object> changed = new LinkedHashMap<>(spec);
                    changed.put("ranges", ranges);
                    ring.getAdditionalProperties().put("spec", changed);
                    return ring;
                });
    }

    /** Keeps the live view going until a signal arrives. */
    void runUntilStopped(String message) {
        phase(message);
        while (!stopRequested.getAsBoolean()) {
            pause();
        }
        stopping();
    }

    /** Says that the sandbox goes down (after a signal), which takes a few seconds. */
    void stopping() {
        view.event("stopping the sharder, the shards and the API server");
    }

    /** The outcome: read from the API server now (the informers' view if that fails). */
    Result result(Optional<Scenario> scenario, Optional<String> error) {
        stopTicker();
        view.clear();
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        double scenarioSeconds = scenarioNanos / 1e9;
        if (watch == null || fleet == null) {
            // the sandbox did not get as far as creating objects
            return new Result(scenario, options.shards(), options.objects(), seconds, scenarioSeconds,
                    new TreeMap<>(), new TreeMap<>(), Map.of(), options.objects(), 0, 0, 0, reconciles.overlaps(),
                    reconciles.reconciles(), error, Optional.empty());
        }
        Snapshot snapshot = fresh();
        Set<String> usable = snapshot.usable(fleet.running());
        SortedMap<String, Integer> perShard = snapshot.perShard(fleet.all());
        SortedMap<String, String> states = new TreeMap<>();
        perShard.keySet().forEach(shard -> states.put(shard, snapshot.state(shard)));
        return new Result(scenario, options.shards(), options.objects(), seconds, scenarioSeconds, perShard, states,
                processes(), snapshot.unassigned(), snapshot.draining(), snapshot.onUnusableShards(usable).size(),
                watch.moves() - movesBaseline, reconciles.overlaps(), reconciles.reconciles(), error,
                rangeFacts(snapshot), balanceFacts(snapshot));
    }

    /** Range mode's part of the result; empty in label mode. */
    private Optional<Result.RangeFacts> rangeFacts(Snapshot snapshot) {
        if (!options.rangeMode()) {
            return Optional.empty();
        }
        return Optional.of(new Result.RangeFacts(options.rangeBuckets(), snapshot.served(fleet.all()),
                watch.configMapWrites(), snapshot.labelled(), notReconciledByOwner(snapshot).size()));
    }

    /** The balance scenario's part of the result; empty for the other scenarios. */
    private Optional<Result.BalanceFacts> balanceFacts(Snapshot snapshot) {
        if (balancedEvents == null) {
            return Optional.empty();
        }
        try {
            balancedEvents.poll();
        } catch (RuntimeException e) {
            // the notes seen so far
        }
        Set<String> usable = snapshot.usable(fleet.running());
        SortedMap<String, Double> busy = snapshot.busy();
        return Optional.of(new Result.BalanceFacts(busy, objectLoad(snapshot, usable),
                Balancing.imbalance(busy, usable), balancedEvents.notes(), balanced));
    }

    /** The busy time the objects each usable shard serves cost it ({@link Balancing#load}). */
    private SortedMap<String, Double> objectLoad(Snapshot snapshot, Set<String> usable) {
        Map<String, String> shardOf = new HashMap<>();
        snapshot.objects().values().forEach(object -> shardOf.put(object.name(), object.shard()));
        return Balancing.load(shardOf, costOf, usable);
    }

    /** Range mode: objects whose latest reconcile was not by the shard serving them (or that have no owner). */
    private java.util.List<String> notReconciledByOwner(Snapshot snapshot) {
        return snapshot.objects().values().stream()
                .filter(object -> object.shard() == null || !reconciles.lastReconciler(NAMESPACE + "/" + object.name())
                        .equals(Optional.of(object.shard())))
                .map(Snapshot.ObjectState::name).toList();
    }

    private Snapshot fresh() {
        try {
            return watch.list();
        } catch (RuntimeException e) {
            return watch.snapshot();
        }
    }

    /** The first pair of overlapping reconciles, if any. */
    Optional<String> firstOverlap() {
        return reconciles.firstOverlap();
    }

    /** Stops the sharder first (so it moves nothing while the rest goes), then the shards, then the server. */
    @Override
    public void close() {
        stopTicker();
        quietly(ringmaster);
        quietly(fleet);
        quietly(watch);
        quietly(client);
        quietly(server);
        if (root != null) {
            deleteRecursively(root);
        }
    }

    private Ringmaster startRingmaster(Map<String, String> properties, PrintStream err) throws LaunchException {
        // threads the framework and its bundles create inherit this; it must not be this class path
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(ClassLoader.getPlatformClassLoader());
        try {
            return Ringmaster.start(home, etc.dir(), properties, false, err);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private Optional<String> shardsNotReady() {
        Snapshot snapshot = watch.snapshot();
        for (String shard : fleet.running()) {
            if (!"ready".equals(snapshot.state(shard))) {
                return Optional.of("Lease of " + shard + " is " + snapshot.state(shard) + ", waiting for ready");
            }
        }
        GenericKubernetesResource ring = client.genericKubernetesResources(
                RingContract.API_GROUP + "/" + RingContract.API_VERSION, options.ringKind().kind())
                .withName(RING).get();
        Object status = ring == null ? null : ring.getAdditionalProperties().get("status");
        Object available = status instanceof Map<?, ?> fields ? fields.get("availableShards") : null;
        if (!(available instanceof Number count) || count.intValue() != fleet.running().size()) {
            return Optional.of(options.ringKind().kind() + " " + RING + " shows " + (available == null ? "no" : available)
                    + " available shards, waiting for " + fleet.running().size());
        }
        return Optional.empty();
    }

    private static Optional<String> stillHolds(Snapshot snapshot, String shard) {
        int count = snapshot.count(shard);
        return count == 0 ? Optional.empty()
                : Optional.of(shard + " still holds " + count + " objects (Lease " + snapshot.state(shard) + ")");
    }

    /** The running shard with the most objects (the first by name among equals). */
    private String busiest() {
        Snapshot snapshot = watch.snapshot();
        return fleet.running().stream()
                .max(Comparator.comparingInt(snapshot::count).thenComparing(Comparator.<String>reverseOrder()))
                .orElseThrow(() -> new IllegalStateException("no shard runs"));
    }

    /** Polls {@code pending} (a reason while not done) until it is done. */
    private void await(String what, Deadline deadline, Supplier<Optional<String>> pending)
            throws SandboxException {
        while (true) {
            checkStop();
            Optional<String> reason;
            try {
                reason = pending.get();
            } catch (RuntimeException e) {
                reason = Optional.of(String.valueOf(e.getMessage()));
            }
            if (reason.isEmpty()) {
                return;
            }
            phase(what + ": " + reason.get());
            if (deadline.passed()) {
                throw new SandboxException(what + ": not done within " + options.timeout().toSeconds() + " s ("
                        + reason.get() + ")");
            }
            pause();
        }
    }

    /**
     * Waits until the ring is at rest: {@code extra} has nothing pending, every object is assigned to
     * a running, available shard, none is in drain, every Secret is in sync, every object is where the
     * strategy in force puts it, and all of this stays unchanged for {@link #STABLE}.
     */
    private void awaitAtRest(String what, Deadline deadline, Function<Snapshot, Optional<String>> extra)
            throws SandboxException {
        String atRest = null;
        long since = 0;
        while (true) {
            checkStop();
            Snapshot snapshot = watch.snapshot();
            Set<String> usable = snapshot.usable(fleet.running());
            Optional<String> pending = extra.apply(snapshot)
                    .or(() -> snapshot.unsettled(options.objects(), usable))
                    .or(() -> misplaced(snapshot, usable));
            long now = System.nanoTime();
            if (pending.isPresent()) {
                atRest = null;
                phase(what + ": " + pending.get());
            } else if (!snapshot.fingerprint().equals(atRest)) {
                atRest = snapshot.fingerprint();
                since = now;
                phase(what + ": at rest, checking that it stays so");
            } else if (now - since >= STABLE.toNanos()) {
                return;
            }
            if (deadline.passed()) {
                throw new SandboxException(what + ": not done within " + options.timeout().toSeconds() + " s ("
                        + pending.orElse("objects kept changing") + ")");
            }
            pause();
        }
    }

    private Optional<String> misplaced(Snapshot snapshot, Set<String> usable) {
        if (usable.isEmpty()) {
            return Optional.of("no shard available");
        }
        if (balancingSet) {
            // placed by load: the leader's placement is whatever it assigned; settled once served as assigned
            return snapshot.rangesSettled(usable).or(() -> notByOwner(snapshot));
        }
        if (options.rangeMode()) {
            // every object reconciled by the shard serving it: a handover ends with the gaining shard's reconciles
            return snapshot.rangesPending(usable, options.rangeBuckets()).or(() -> notByOwner(snapshot));
        }
        ShardRing ring = Placement.ring(strategy, usable, consistentSettings);
        int misplaced = snapshot.misplaced(ring);
        return misplaced == 0 ? Optional.empty()
                : Optional.of(misplaced + " not yet on the shard " + strategy + " picks");
    }

    private Optional<String> notByOwner(Snapshot snapshot) {
        int notByOwner = notReconciledByOwner(snapshot).size();
        return notByOwner == 0 ? Optional.empty() : Optional.of(notByOwner + " not yet reconciled by the shard serving them");
    }

    private void phase(String text) {
        phase = text;
    }

    private void startTicker() {
        ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "sandbox-live-view");
            thread.setDaemon(true);
            return thread;
        });
        ticker.scheduleWithFixedDelay(this::refreshView, 0, VIEW_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void stopTicker() {
        if (ticker != null) {
            ticker.shutdownNow();
            awaitQuietly(ticker);
        }
    }

    private void refreshView() {
        try {
            Snapshot snapshot = watch.snapshot();
            SortedMap<String, Integer> perShard = snapshot.perShard(fleet.all());
            Map<String, String> states = new LinkedHashMap<>();
            perShard.keySet().forEach(shard -> states.put(shard, snapshot.state(shard)));
            String summary = String.format("  unassigned %d   draining %d   moves %d   overlapping reconciles %d%n",
                    snapshot.unassigned(), snapshot.draining(), watch.moves() - movesBaseline, reconciles.overlaps());
            String table = options.rangeMode()
                    ? Table.render(perShard, states, processes(), snapshot.served(fleet.all()),
                            options.balancing() ? snapshot.busy() : null)
                    : Table.render(perShard, states, processes());
            if (options.rangeMode()) {
                summary += String.format("  range mode (%d buckets, client-side filtering): ConfigMap writes %d,"
                        + " labelled ConfigMaps %d%n", options.rangeBuckets(), watch.configMapWrites(), snapshot.labelled());
            }
            if (options.balancing()) {
                OptionalDouble imbalance = Balancing.imbalance(snapshot.busy(), snapshot.usable(fleet.running()));
                summary += String.format(Locale.ROOT, "  load: busiest shard at %s the mean busy time; balancing %s,"
                        + " %d Balanced Event(s)%n", imbalance.isPresent()
                        ? String.format(Locale.ROOT, "%.2f times", imbalance.getAsDouble()) : "? times",
                        balancingSet ? "on" : "off (placed by hash)", balancedEvents.notes().size());
                if (balancingSet) {
                    balancedEvents.poll();
                }
            }
            view.show(phase, table + summary);
        } catch (RuntimeException e) {
            // the view must never take the sandbox down; the next tick tries again
        }
    }

    private Map<String, String> processes() {
        Map<String, String> processes = new LinkedHashMap<>();
        fleet.all().forEach(shard -> processes.put(shard, String.valueOf(fleet.status(shard))));
        return processes;
    }

    private void checkStop() throws SandboxException.Stopped {
        if (stopRequested.getAsBoolean()) {
            throw new SandboxException.Stopped();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void quietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            // taking down is best effort
        }
    }

    private static void awaitQuietly(ScheduledExecutorService executor) {
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a left-over temporary folder is harmless
        }
    }

    /** A point in time by which something must be done. */
    private record Deadline(long nanos) {

        Deadline(Duration timeout) {
            this(System.nanoTime() + timeout.toNanos());
        }

        boolean passed() {
            return System.nanoTime() - nanos > 0;
        }
    }
}
