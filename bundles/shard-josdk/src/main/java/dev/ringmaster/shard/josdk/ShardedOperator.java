package dev.ringmaster.shard.josdk;

import dev.ringmaster.shard.client.ShardLabels;
import dev.ringmaster.shard.client.ShardSelectorInterceptor;
import dev.ringmaster.shard.client.ShardLease;
import dev.ringmaster.shard.client.Sharding;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.RegisteredController;
import io.javaoperatorsdk.operator.api.config.ConfigurationService;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import io.javaoperatorsdk.operator.api.config.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.config.informer.InformerConfiguration;
import io.javaoperatorsdk.operator.api.monitoring.AggregatedMetrics;
import io.javaoperatorsdk.operator.api.reconciler.ContextInitializer;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnAddFilter;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A java-operator-sdk {@link Operator} that runs as one shard of a Ringmaster ring
 * ({@code docs/josdk.md}). It holds the shard's Lease from {@link #start()} to {@link #stop()}, and
 * every controller registered through it
 * <ul>
 *   <li>watches only this shard's primaries (the shard label selector is added to the controller's);</li>
 *   <li>hands a primary back to the sharder when the sharder drains it: the drained object's events
 *       do not reach the reconciler, the hand-back runs on a pool of its own and never while JOSDK
 *       executes that object (reconcile, finalizer, the patch of its {@code UpdateControl});</li>
 *   <li>calls the user's reconciler only while the shard holds its Lease (fencing); calls while the
 *       Lease is lost are rescheduled, not dropped.</li>
 * </ul>
 * Secondary resources of the shard's objects carry the shard label too (the sharder labels controlled
 * resources like their owner): give their informers {@link #selector()}. JOSDK's leader election must
 * stay off: every shard is active, for its own objects.
 *
 * <p>In range mode ({@link Sharding#rangeMode()}, docs/design.md section 9) the shard serves hash
 * ranges its Lease assigns instead of labelled objects: each controller's primary informers list and
 * watch with the KEP-5866 {@code shardSelector} of the ranges served (sent by an interceptor on the
 * Operator's client, a copy of the configured one) and are listed again when the ranges change; events
 * and reconciles of objects outside them are refused here whatever the server did; a shrink is
 * acknowledged on the Lease only once JOSDK executes no object outside the new ranges. No labels, no
 * drains, no hand-backs; {@link #selector()} does not apply.
 *
 * <p>The user's reconciles are timed into the shard's load meter ({@link Sharding#loadMeter()}), which also counts
 * the primaries in JOSDK's caches this shard holds; the Lease publishes it ({@link Sharding#lastLoadReport()}).
 * JOSDK has no hook for when an event queues an object: the queue wait is measured from when JOSDK submits the
 * execution to its executor.
 *
 * <pre>{@code
 * ShardedOperator operator = ShardedOperator.builder(sharding)
 *         .configuration(o -> o.withKubernetesClient(client))
 *         .build();
 * operator.register(new MyReconciler());
 * operator.start();     // the Operator, then the Lease
 * ...
 * operator.stop();      // the Operator (running reconciles finish), then the Lease is closed:
 *                       // released, or kept for a restart (the Sharding's ShardDeparture)
 * }</pre>
 */
public final class ShardedOperator implements AutoCloseable {

    /** Default period of the drain sweep, as {@code bin/checksum-controller}'s. */
    public static final Duration DEFAULT_DRAIN_SWEEP = Duration.ofSeconds(10);
    /** Default delay after which a call refused for want of the Lease is tried again. */
    public static final Duration DEFAULT_FENCED_RETRY = Duration.ofSeconds(2);
    /** Default number of hand-backs in flight at once per controller, as shard-client's. */
    public static final int DEFAULT_HAND_BACK_THREADS = 8;

    private final Sharding sharding;
    private final Operator operator;
    private final ExecutionGate gate;
    private final LoadTimer timer;
    private final PendingEvents pendingEvents = new PendingEvents();
    /** The primary caches the load meter counts, uncounted at {@link #halt()}. */
    private final List<Object> counted = new CopyOnWriteArrayList<>();
    private final boolean closeClient;
    private final Duration drainSweep;
    private final Duration fencedRetry;
    private final int handBackThreads;
    private final List<HandBacks<?>> handBacks = new CopyOnWriteArrayList<>();
    /** The configured client; in range mode the Operator has a copy of it with the shard selectors. */
    private final KubernetesClient configuredClient;
    /** Range mode: the shard selectors of the primary resources, on the Operator's client; null in label mode. */
    private final ShardSelectors selectors;
    private final List<RangeScope<?>> scopes = new CopyOnWriteArrayList<>();
    private final ShardLease.Listener listener = new ShardLease.Listener() {
        @Override
        public void onAcquired() {
            handBacks.forEach(HandBacks::onAcquired);
        }

        @Override
        public void onLost() {
            // nothing to drop: every call checks the Lease first
        }
    };
    private boolean halted;
    private boolean stopped;

    private ShardedOperator(Builder builder) {
        this.sharding = builder.sharding;
        this.drainSweep = builder.drainSweep;
        this.fencedRetry = builder.fencedRetry;
        this.handBackThreads = builder.handBackThreads;
        this.gate = new ExecutionGate();
        this.timer = new LoadTimer(sharding.loadMeter());
        ConfigurationService users = ConfigurationService.newOverriddenConfigurationService(builder.configuration);
        if (users.getLeaderElectionConfiguration().isPresent()) {
            throw new IllegalArgumentException("JOSDK's leader election must be off for a shard: every shard is active,"
                    + " for its own objects, and the shard's Lease fences it");
        }
        this.closeClient = users.closeClientOnStop();
        this.configuredClient = users.getKubernetesClient();
        KubernetesClient operatorClient = configuredClient;
        if (sharding.rangeMode()) {
            // fabric8 7.9.0 cannot send shardSelector: an interceptor on a client of the Operator's own adds it
            this.selectors = new ShardSelectors();
            operatorClient = new KubernetesClientBuilder().withConfig(configuredClient.getConfiguration())
                    .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("ringmaster-shard-selectors", selectors))
                    .build();
        } else {
            this.selectors = null;
        }
        KubernetesClient client = operatorClient;
        this.operator = new Operator(ConfigurationService.newOverriddenConfigurationService(users, o -> o
                .withMetrics(new AggregatedMetrics(List.of(users.getMetrics(), gate, timer, pendingEvents)))
                // the client outlives the Operator: the Lease is released after the last reconcile, through it
                .withCloseClientOnStop(false)
                // JOSDK 5.2.0 overrides an overridden configuration with a new default client and
                // cloner unless they are given again
                .withKubernetesClient(client)
                .withResourceCloner(users.getResourceCloner())));
    }

    /** Starts a builder for an operator that is the shard {@code sharding}; build the Sharding with the same client. */
    public static Builder builder(Sharding sharding) {
        return new Builder(Objects.requireNonNull(sharding, "sharding"));
    }

    /** The JOSDK Operator, e.g. for its client or runtime information; register and start through this class. */
    public Operator operator() {
        return operator;
    }

    /** The Sharding: the shard's labels, Lease and drain acknowledgement. */
    public Sharding sharding() {
        return sharding;
    }

    /**
     * The label selector of this shard's objects, {@code <shard label>=<shard>}, for the informers of
     * secondary resources, e.g. {@code InformerEventSourceConfiguration.from(Secret.class, MyPrimary.class)
     * .withLabelSelector(operator.selector())}.
     *
     * @throws IllegalStateException in range mode: objects are not labelled for shards there
     */
    public String selector() {
        if (sharding.rangeMode()) {
            throw new IllegalStateException("range mode: objects carry no shard label; secondaries are not"
                    + " restricted by a selector (a ring keyed by namespace keeps a namespace in one shard)");
        }
        return sharding.labels().selector();
    }

    /** Registers a sharded controller with the reconciler's own configuration. */
    public <P extends HasMetadata> RegisteredController<P> register(Reconciler<P> reconciler) {
        return register(reconciler, overrider -> { });
    }

    /**
     * Registers a sharded controller: the reconciler's configuration, changed by {@code overrider},
     * then restricted to this shard (its label selector, the drain filter; in range mode its ranges) and
     * gated by the Lease.
     *
     * @throws IllegalArgumentException if the reconciler is a {@link ContextInitializer} (not supported), or
     *                                  in range mode if its primary resource is not a typed one
     */
    public <P extends HasMetadata> RegisteredController<P> register(Reconciler<P> reconciler,
            Consumer<ControllerConfigurationOverrider<P>> overrider) {
        Objects.requireNonNull(reconciler, "reconciler");
        Objects.requireNonNull(overrider, "overrider");
        if (reconciler instanceof ContextInitializer<?>) {
            throw new IllegalArgumentException("a ContextInitializer cannot be sharded: its context would not be initialized");
        }
        ConfigurationService configurations = operator.getConfigurationService();
        ControllerConfigurationOverrider<P> users =
                ControllerConfigurationOverrider.override(configurations.getConfigurationFor(reconciler));
        overrider.accept(users);
        ControllerConfiguration<P> configured = users.build();
        if (sharding.rangeMode()) {
            return registerInRanges(reconciler, configured);
        }
        HandBacks<P> drains = new HandBacks<>(sharding, gate, handBackThreads, configured.getName());
        InformerConfiguration<P> informer = configured.getInformerConfig();
        OnAddFilter<? super P> onAdd = informer.getOnAddFilter();
        OnUpdateFilter<? super P> onUpdate = informer.getOnUpdateFilter();
        ControllerConfiguration<P> sharded = ControllerConfigurationOverrider.override(configured)
                .withLabelSelector(withShardSelector(informer.getLabelSelector()))
                // a drained object's events go to the hand-back, not to JOSDK's queue
                .withOnAddFilter(object -> !drains.submit(object) && (onAdd == null || onAdd.accept(object)))
                .withOnUpdateFilter((object, old) -> !drains.submit(object)
                        && (onUpdate == null || onUpdate.accept(object, old)))
                .build();
        drains.sweep(drained(configured), drainSweep);
        handBacks.add(drains);
        ShardLabels labels = sharding.labels();
        return operator.register(ShardGatedReconciler.wrap(reconciler, sharding.lease(),
                object -> labels.owns(object.getMetadata().getLabels()) && !drains.submit(object), object -> { }, cache -> {
                    drains.primaries(cache);
                    count(cache, object -> labels.owns(object.getMetadata().getLabels()));
                }, fencedRetry, timer), sharded);
    }

    /** Range mode: the controller serves the shard's ranges of its primary resource (see the class comment). */
    private <P extends HasMetadata> RegisteredController<P> registerInRanges(Reconciler<P> reconciler,
            ControllerConfiguration<P> configured) {
        Class<P> type = configured.getResourceClass();
        if (GenericKubernetesResource.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("range mode shards typed primary resources only, not "
                    + type.getSimpleName());
        }
        ShardSelectorInterceptor selector = new ShardSelectorInterceptor(HasMetadata.getGroup(type),
                HasMetadata.getVersion(type), HasMetadata.getPlural(type));
        selectors.add(selector);
        RangeScope<P> scope = new RangeScope<>(configured.getName(), gate, selector);
        pendingEvents.register(configured.getName(), scope);
        InformerConfiguration<P> informer = configured.getInformerConfig();
        OnAddFilter<? super P> onAdd = informer.getOnAddFilter();
        OnUpdateFilter<? super P> onUpdate = informer.getOnUpdateFilter();
        // always filtered here too: a server before v1.36 (or without the gate) ignores the selector; an add
        // of a version the reconciler completed already (a list again after a change of ranges) is not passed
        // on, unless JOSDK has an event of it pending (PendingEvents). Deletes pass: JOSDK clears its state of
        // the object on them.
        ControllerConfiguration<P> sharded = ControllerConfigurationOverrider.override(configured)
                .withOnAddFilter(object -> scope.serves(object) && (onAdd == null || onAdd.accept(object))
                        && scope.delivers(object))
                .withOnUpdateFilter((object, old) -> scope.serves(object)
                        && (onUpdate == null || onUpdate.accept(object, old)))
                .build();
        RegisteredController<P> registered = operator.register(ShardGatedReconciler.wrap(reconciler, sharding.lease(),
                scope::serves, scope::reconciled, cache -> count(cache, scope::serves), fencedRetry, timer), sharded);
        scope.controller(registered);
        scopes.add(scope);
        sharding.ranges().register(scope);
        return registered;
    }

    /** The load meter counts the primaries of {@code cache} this shard holds. */
    private <P extends HasMetadata> void count(IndexerResourceCache<P> cache, Predicate<P> holds) {
        sharding.loadMeter().count(cache, () -> cache.list(holds).toList());
        counted.add(cache);
    }

    private String withShardSelector(String selector) {
        return selector == null || selector.isBlank() ? selector() : selector + "," + selector();
    }

    /** Lists this shard's drained primaries of the controller from the API server, in the namespaces it watches. */
    private <P extends HasMetadata> Supplier<List<P>> drained(ControllerConfiguration<P> configuration) {
        KubernetesClient client = operator.getKubernetesClient();
        MixedOperation<P, KubernetesResourceList<P>, Resource<P>> resources =
                client.resources(configuration.getResourceClass());
        InformerConfiguration<P> informer = configuration.getInformerConfig();
        List<FilterWatchListDeletable<P, KubernetesResourceList<P>, Resource<P>>> scopes = informer.watchAllNamespaces()
                ? List.of(resources.inAnyNamespace())
                : informer.getEffectiveNamespaces(configuration).stream()
                        .<FilterWatchListDeletable<P, KubernetesResourceList<P>, Resource<P>>>map(resources::inNamespace)
                        .toList();
        ShardLabels labels = sharding.labels();
        return () -> scopes.stream()
                .flatMap(scope -> scope.withLabel(labels.shardLabel(), labels.shard()).withLabel(labels.drainLabel())
                        .list().getItems().stream())
                .toList();
    }

    /** Starts the Operator (its informers sync), then the shard's Lease: reconciles begin once it is held. */
    public synchronized void start() {
        sharding.lease().addListener(listener);
        operator.start();
        scopes.forEach(RangeScope::started);
        sharding.lease().start();
    }

    /**
     * Stops gracefully: the Operator (its running reconciles finish, up to its
     * {@code reconciliationTerminationTimeout}) and the hand-backs, then closes the Sharding
     * ({@link dev.ringmaster.shard.client.ShardLease#close()}), which asks its
     * {@link dev.ringmaster.shard.client.ShardDeparture}: for a leave (the default) it releases the
     * Lease, so the sharder moves the objects at once; for a restart it keeps the Lease marked
     * {@code ringmaster.dev/restarting}, so the objects wait for the shard's next instance. Either way
     * no other shard reconciles them while this one still does. Closes the client if the configuration
     * says so (JOSDK's default). Idempotent.
     */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        halt();
        sharding.close();
        if (selectors != null) {
            operator.getKubernetesClient().close(); // the Operator's own copy
        }
        if (closeClient) {
            configuredClient.close();
        }
    }

    /**
     * Stops the Operator (running reconciles finish) and the hand-backs, and leaves the Lease alone:
     * not released, and renewed for as long as its executor runs. For failure drills: stop the
     * Lease's executor first, and the shard ends as a crashed process would, its Lease expiring in
     * the sharder's eyes. Idempotent; {@link #stop()} calls it.
     */
    public synchronized void halt() {
        if (halted) {
            return;
        }
        halted = true;
        scopes.forEach(RangeScope::close); // no restart of an informer from now on
        operator.stop();
        Duration timeout = operator.getConfigurationService().reconciliationTerminationTimeout();
        handBacks.forEach(drains -> drains.close(timeout));
        counted.forEach(sharding.loadMeter()::uncount);
        sharding.lease().removeListener(listener);
    }

    /** {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /** Collects the operator's settings. Not thread-safe. */
    public static final class Builder {

        private final Sharding sharding;
        private Consumer<ConfigurationServiceOverrider> configuration = o -> { };
        private Duration drainSweep = DEFAULT_DRAIN_SWEEP;
        private Duration fencedRetry = DEFAULT_FENCED_RETRY;
        private int handBackThreads = DEFAULT_HAND_BACK_THREADS;

        private Builder(Sharding sharding) {
            this.sharding = sharding;
        }

        /** JOSDK's configuration, as for {@code new Operator(overrider)}; its leader election must stay off. */
        public Builder configuration(Consumer<ConfigurationServiceOverrider> configuration) {
            this.configuration = Objects.requireNonNull(configuration, "configuration");
            return this;
        }

        /** How often each controller lists its drained primaries from the API server; default 10 s. */
        public Builder drainSweep(Duration period) {
            this.drainSweep = positive("drain sweep period", period);
            return this;
        }

        /** After how long a call refused for want of the Lease is tried again; default 2 s. */
        public Builder fencedRetry(Duration delay) {
            this.fencedRetry = positive("fenced retry delay", delay);
            return this;
        }

        /** Hand-backs in flight at once per controller; default 8. */
        public Builder handBackThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("hand-back threads must be at least 1, got " + threads);
            }
            this.handBackThreads = threads;
            return this;
        }

        /**
         * Builds the Operator (JOSDK's configuration is resolved now).
         *
         * @throws IllegalArgumentException if the configuration turns JOSDK's leader election on
         */
        public ShardedOperator build() {
            return new ShardedOperator(this);
        }

        private static Duration positive(String what, Duration value) {
            Objects.requireNonNull(value, what);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, got " + value);
            }
            return value;
        }
    }
}
