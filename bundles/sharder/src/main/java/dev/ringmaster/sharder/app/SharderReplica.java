package dev.ringmaster.sharder.app;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.sharder.admission.SharderAdmission;
import dev.ringmaster.sharder.certificates.WebhookCertificates;
import dev.ringmaster.sharder.ringcontrol.RingWatch;
import dev.ringmaster.sharder.ringcontrol.ValidatingWebhookCa;
import dev.ringmaster.sharder.ringcontrol.WebhookClientSettings;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.kube.WriteFence;
import dev.ringmaster.sharder.leader.LeaderElection;
import dev.ringmaster.sharder.lease.DefaultLeaseDetector;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.lease.ShardLeaseController;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingSpec;
import dev.ringmaster.sharder.rebalance.RebalanceLimits;
import dev.ringmaster.sharder.ring.RingInputs;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.runtime.Backoff;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sharder replica, as plain Java: the OSGi component wires plug-ins into it, and tests or an
 * embedded sandbox can run it without a framework.
 *
 * <p>Every replica keeps the ClusterRings and the shard membership cached and every ring's view
 * current, so every replica's webhook assigns objects; only the elected leader writes (lease states
 * and acquisitions, ring status, rebalancing, the unassigned-object watch).
 *
 * <p>Strategies, lease detectors and resource interpreters ({@link PlugIns}) are replaced at any time;
 * ring views are compiled again with them, and the lease detector in force is looked up by name on
 * each use.
 */
public final class SharderReplica implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SharderReplica.class);

    /**
     * @param defaultStrategy     strategy of rings that name none
     * @param leaseDetector       name of the lease detector in force
     * @param resourceInterpreter name of the default resource interpreter (a ring resource may name another)
     * @param limits              paging, concurrency and budget of moves, resync period
     * @param webhook             how ClusterRings' webhook configurations reach the webhook; empty: none
     * @param leaderElection      namespace and name of the leader election Lease
     * @param identity            this replica's holder identity in the election
     * @param clock               the time leases are judged by
     * @param certificates        the webhook's own certificates ({@code webhookCertificates = self-signed});
     *                            empty: cert-manager or files provide them
     * @param validatingWebhooks  ValidatingWebhookConfigurations given the webhook's CA (the label guard's);
     *                            with {@code certificates}, their CA bundle is the sharder's own
     * @param shardLeaseNamespaces the only namespaces whose Leases can be shards ({@code shardLeaseNamespaces});
     *                            empty: every namespace
     */
    public record Options(String defaultStrategy, String leaseDetector, String resourceInterpreter,
            RebalanceLimits limits, Optional<WebhookClientSettings> webhook, LeaseName leaderElection, String identity,
            Clock clock, Optional<WebhookCertificates.Settings> certificates,
            ValidatingWebhookCa.Settings validatingWebhooks, List<String> shardLeaseNamespaces) {

        public record LeaseName(String namespace, String name) {
        }

        public Options {
            Objects.requireNonNull(defaultStrategy, "defaultStrategy");
            Objects.requireNonNull(leaseDetector, "leaseDetector");
            Objects.requireNonNull(resourceInterpreter, "resourceInterpreter");
            Objects.requireNonNull(limits, "limits");
            Objects.requireNonNull(webhook, "webhook");
            Objects.requireNonNull(leaderElection, "leaderElection");
            Objects.requireNonNull(identity, "identity");
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(certificates, "certificates");
            Objects.requireNonNull(validatingWebhooks, "validatingWebhooks");
            shardLeaseNamespaces = List.copyOf(shardLeaseNamespaces);
        }

        public Options(String defaultStrategy, String leaseDetector, String resourceInterpreter, RebalanceLimits limits,
                Optional<WebhookClientSettings> webhook, LeaseName leaderElection, String identity, Clock clock,
                Optional<WebhookCertificates.Settings> certificates, ValidatingWebhookCa.Settings validatingWebhooks) {
            this(defaultStrategy, leaseDetector, resourceInterpreter, limits, webhook, leaderElection, identity, clock,
                    certificates, validatingWebhooks, List.of());
        }

        public Options(String defaultStrategy, String leaseDetector, String resourceInterpreter, RebalanceLimits limits,
                Optional<WebhookClientSettings> webhook, LeaseName leaderElection, String identity, Clock clock) {
            this(defaultStrategy, leaseDetector, resourceInterpreter, limits, webhook, leaderElection, identity, clock,
                    Optional.empty(), ValidatingWebhookCa.Settings.NONE);
        }

        /** The defaults of the sharder's configuration (docs/sharder.md), with the process as identity. */
        public static Options defaults() {
            return new Options(RingContract.DEFAULT_STRATEGY, DefaultLeaseDetector.NAME, RingInputs.DEFAULT_INTERPRETER,
                    RebalanceLimits.DEFAULT,
                    Optional.of(WebhookClientSettings.defaults()), new LeaseName("sharding-system", "sharder"),
                    "sharder-" + ProcessHandle.current().pid(), Clock.systemUTC());
        }

        public Options withIdentity(String identity) {
            return new Options(defaultStrategy, leaseDetector, resourceInterpreter, limits, webhook, leaderElection,
                    identity, clock, certificates, validatingWebhooks, shardLeaseNamespaces);
        }

        public Options withoutWebhook() {
            return new Options(defaultStrategy, leaseDetector, resourceInterpreter, limits, Optional.empty(),
                    leaderElection, identity, clock, certificates, validatingWebhooks, shardLeaseNamespaces);
        }

        public Options withDefaultStrategy(String defaultStrategy) {
            return new Options(defaultStrategy, leaseDetector, resourceInterpreter, limits, webhook, leaderElection,
                    identity, clock, certificates, validatingWebhooks, shardLeaseNamespaces);
        }

        public Options withLimits(RebalanceLimits limits) {
            return new Options(defaultStrategy, leaseDetector, resourceInterpreter, limits, webhook, leaderElection,
                    identity, clock, certificates, validatingWebhooks, shardLeaseNamespaces);
        }

        public Options withClock(Clock clock) {
            return new Options(defaultStrategy, leaseDetector, resourceInterpreter, limits, webhook, leaderElection,
                    identity, clock, certificates, validatingWebhooks, shardLeaseNamespaces);
        }

        /** With the webhook's own certificates (self-signed mode): the webhook configurations trust its CA. */
        public Options withCertificates(WebhookCertificates.Settings certificates) {
            return new Options(defaultStrategy, leaseDetector, resourceInterpreter, limits, webhook, leaderElection,
                    identity, clock, Optional.of(certificates), validatingWebhooks, shardLeaseNamespaces);
        }

        /** Shard Leases only in these namespaces (empty: every namespace). */
        public Options withShardLeaseNamespaces(List<String> shardLeaseNamespaces) {
            return new Options(defaultStrategy, leaseDetector, resourceInterpreter, limits, webhook, leaderElection,
                    identity, clock, certificates, validatingWebhooks, shardLeaseNamespaces);
        }

        public Options withValidatingWebhooks(ValidatingWebhookCa.Settings validatingWebhooks) {
            return new Options(defaultStrategy, leaseDetector, resourceInterpreter, limits, webhook, leaderElection,
                    identity, clock, certificates, validatingWebhooks, shardLeaseNamespaces);
        }
    }

    private final KubernetesClient client;
    /** The controllers' client: writes only while {@link #mayWrite()}. */
    private final KubernetesClient fenced;
    private final Options options;
    private final CompositeMeterRegistry meters = new CompositeMeterRegistry();
    private final SharderMetrics metrics = new SharderMetrics(meters);
    private final AtomicBoolean leading = new AtomicBoolean();
    private final RingStateMetrics ringStates = new RingStateMetrics(meters, leading::get);
    private final LeaderMetrics leaderMetrics = new LeaderMetrics(meters, metrics);
    private final RingRegistry registry = new RingRegistry(metrics::ringCalculated);
    private final AtomicReference<PlugIns> plugIns = new AtomicReference<>(PlugIns.NONE);
    /** Every known ring's restart grace, as the shard leases were last judged with. */
    private final AtomicReference<Map<RingKey, Duration>> restartGraces = new AtomicReference<>(Map.of());
    private final ShardLeaseController leases;
    private final List<RingWatch> rings;
    private final SharderAdmission admission;
    private final LeaderElection election;
    /** The webhook's own certificates, on every replica (self-signed mode). */
    private final Optional<WebhookCertificates> certificates;
    private final Optional<WebhookClientSettings> webhook;
    private final ValidatingWebhookCa.Settings validatingWebhooks;
    /** Volatile: the informers' threads read it without the lock ({@link #leaseChanged}). */
    private volatile LeaderControllers controllers;

    /** Prepares the replica; nothing talks to the API server before {@link #start()}. */
    public SharderReplica(KubernetesClient client, Options options) {
        this.client = Objects.requireNonNull(client, "client");
        this.options = Objects.requireNonNull(options, "options");
        registry.update(inputs -> inputs.withDefaultStrategy(options.defaultStrategy())
                .withDefaultInterpreter(options.resourceInterpreter()));
        // lease states are written only while this replica leads and its lease is certainly its own
        this.fenced = WriteFence.guard(client, this::mayWrite);
        this.leases = new ShardLeaseController(fenced, this::detector, options.clock(), this::mayWrite,
                ShardLeaseController.DEFAULT_WORKERS, Backoff.DEFAULT, this::restartGrace, options.shardLeaseNamespaces());
        leases.addListener(this::membershipChanged);
        // a ring's restart grace changed (or a ring came or went): every shard is judged with the new one at once
        registry.addListener(changes -> restartGracesChanged());
        // the state metrics every replica exports: every ring object and every shard Lease as watched
        leases.addLeaseListener(() -> ringStates.shards(leases.leases()));
        // the leader's range assigner looks at a range-mode ring again when one of its Leases changes
        leases.addLeaseListener(this::leaseChanged);
        registry.addListener(changes -> ringStates.rings(registry.inputs().rings().values()));
        this.rings = RingWatch.ofEveryKind(client, registry, this::ringKindsChanged);
        ringKindsChanged();
        this.admission = new SharderAdmission(registry, metrics);
        this.certificates = options.certificates().map(settings -> new WebhookCertificates(client, settings,
                options.clock()));
        // self-signed: the webhook configurations trust the sharder's own CA, as it is at each write
        this.webhook = certificates.isEmpty() ? options.webhook()
                : options.webhook().map(settings -> settings.withCaBundleSource(certificates.get()::caBundle));
        this.validatingWebhooks = certificates.isEmpty() ? options.validatingWebhooks()
                : new ValidatingWebhookCa.Settings(options.validatingWebhooks().names(), certificates.get()::caBundle,
                        null);
        certificates.ifPresent(manager -> manager.addListener(this::caBundleChanged));
        this.election = new LeaderElection(client, options.leaderElection().namespace(),
                options.leaderElection().name(), options.identity(), LeaderElection.Timing.DEFAULT, options.clock(),
                this::startLeading, this::stopLeading);
    }

    /** Starts watching rings and leases and campaigning for leadership; returns at once. */
    public void start() {
        certificates.ifPresent(WebhookCertificates::start);
        rings.forEach(RingWatch::start);
        leases.start();
        election.start();
    }

    /**
     * Why this replica cannot answer the webhook as the rings and shards are: its caches of them not filled,
     * or the listed shard Leases not all judged yet. Until then its ring views have no shards or only some,
     * and it would let new objects through unlabelled, so it stays out of the webhook's Service.
     */
    public Optional<String> notSynced() {
        Optional<String> rings = this.rings.stream().map(RingWatch::notSynced).flatMap(Optional::stream)
                .reduce((first, second) -> first + ", " + second);
        if (rings.isPresent()) {
            return rings;
        }
        if (!leases.hasSynced()) {
            return Optional.of("shard Leases not listed yet");
        }
        return leases.initialMembership().isDone() ? Optional.empty() : Optional.of("shard Leases not judged yet");
    }

    /** Answers the sharder's webhook requests (docs/design.md section 5), on every replica. */
    public AdmissionHandler admissionHandler() {
        return admission;
    }

    public boolean isLeader() {
        return election.isLeader();
    }

    /** Every ring's view, read-only (tests). */
    public RingRegistry registry() {
        return registry;
    }

    /** The {@code ring:*} shell commands over this replica's view. */
    public RingCommands shellCommands() {
        return new RingCommands(registry, new ResourceCatalog(client)::resolve);
    }

    /** The ring kinds whose CRD the API server serves, and whose rings this replica therefore watches. */
    public Set<RingKind> servedRingKinds() {
        return rings.stream().filter(RingWatch::served).map(RingWatch::kind)
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(RingKind.class)));
    }

    private void ringKindsChanged() {
        metrics.ringKindsServed(servedRingKinds());
    }

    public Membership membership() {
        return leases.membership();
    }

    /**
     * Puts these plug-ins in force: every ring's view is compiled with them (a ring whose placement
     * changes is rebalanced) and, if the lease detectors changed, every shard is judged again.
     */
    public void use(PlugIns next) {
        PlugIns before = plugIns.getAndSet(Objects.requireNonNull(next, "plugIns"));
        registry.update(inputs -> inputs.withStrategies(next.strategies()).withInterpreters(next.interpreters())
                .withPolicies(next.policies()));
        if (!before.detectors().equals(next.detectors())) {
            reevaluateShards();
        }
    }

    /** Every shard is judged again, e.g. because the detector in force changed or its inputs did. */
    public void reevaluateShards() {
        leases.reevaluateAll();
    }

    public void addMeterRegistry(MeterRegistry registry) {
        meters.add(registry);
    }

    public void removeMeterRegistry(MeterRegistry registry) {
        meters.remove(registry);
    }

    private LeaseDetector detector() {
        return plugIns.get().detectors().get(options.leaseDetector());
    }

    /** The restart grace of a ring this replica knows ({@code spec.shardRestartGraceSeconds}, default 60 s). */
    private Optional<Duration> restartGrace(RingKey ring) {
        return Optional.ofNullable(registry.inputs().rings().get(ring))
                .map(object -> object.getSpec() == null ? RingSpec.DEFAULT_SHARD_RESTART_GRACE
                        : object.getSpec().shardRestartGraceOrDefault());
    }

    private void restartGracesChanged() {
        Map<RingKey, Duration> graces = new TreeMap<>();
        registry.inputs().rings().keySet().forEach(ring -> graces.put(ring, restartGrace(ring).orElseThrow()));
        Map<RingKey, Duration> before = restartGraces.getAndSet(Map.copyOf(graces));
        if (!before.equals(graces)) {
            LOG.debug("Restart graces now {}; judging every shard again", graces);
            leases.reevaluateAll();
        }
    }

    private void membershipChanged(Membership membership) {
        Membership before = registry.inputs().membership();
        Set<RingKey> rings = new TreeSet<>(membership.shardsByRing().keySet());
        rings.addAll(before.shardsByRing().keySet());
        rings.forEach(ring -> {
            List<String> available = membership.availableShards(ring).stream().map(ShardInfo::name).toList();
            if (!available.equals(before.availableShards(ring).stream().map(ShardInfo::name).toList())) {
                LOG.info("{}: available shards now {} (leases: {})", ring, available, membership.shards(ring).stream()
                        .map(shard -> shard.name() + "=" + shard.state().label()).toList());
            }
        });
        registry.update(inputs -> inputs.withMembership(membership));
        metrics.membership(membership);
    }

    private synchronized void startLeading() {
        leading.set(true);
        // what this replica only observed as a follower is now acted on: acquisitions, deletions, labels;
        // with a lease duration of grace for every shard
        leases.startTerm(options.clock().instant());
        controllers = new LeaderControllers(fenced, registry, leases, leaderMetrics,
                new LeaderControllers.Settings(options.limits(), webhook, validatingWebhooks, options.clock()));
        controllers.start();
    }

    private void leaseChanged(Lease lease) {
        LeaderControllers current = controllers;
        if (current != null) {
            current.leaseChanged(lease);
        }
    }

    /** The sharder's CA changed: the leader writes it into every webhook configuration. */
    private synchronized void caBundleChanged() {
        if (controllers != null) {
            controllers.caBundleChanged();
        }
    }

    /** The webhook's own certificates, when this replica keeps them (tests). */
    public Optional<WebhookCertificates> certificates() {
        return certificates;
    }

    private boolean mayWrite() {
        return leading.get() && election.mayWrite();
    }

    private synchronized void stopLeading() {
        leading.set(false);
        leases.endTerm();
        if (controllers != null) {
            controllers.close();
            controllers = null;
        }
    }

    /** Gives up leadership (the controllers stop writing first), then stops watching. */
    @Override
    public void close() {
        election.close();
        certificates.ifPresent(WebhookCertificates::close);
        rings.forEach(RingWatch::close);
        leases.close();
        fenced.close();
        metrics.close();
        ringStates.close();
    }
}
