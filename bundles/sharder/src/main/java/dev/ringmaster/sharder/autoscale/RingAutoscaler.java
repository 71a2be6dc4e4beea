package dev.ringmaster.sharder.autoscale;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.sharder.kube.ObjectEvents;
import dev.ringmaster.sharder.model.RingAutoscaling;
import dev.ringmaster.sharder.lease.LoadReports;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.ScaleTargetRef;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.runtime.Reconciler;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's autoscaler (docs/design.md section 10.1): for a ring with {@code spec.autoscaling}, sets the replicas
 * of the shards' workload through its scale subresource to as many shards as keep the mean reported busy time per
 * shard at the target, stabilized as Kubernetes' HPA does. Level-based: each pass reads the view, the cached shard
 * Leases and the scale subresource, and writes the scale only when the stabilized recommendation differs from its
 * {@code spec.replicas}. What it found goes to {@link AutoscalingReports}, which the ring status controller writes into
 * the ring's status. A scale target that is missing or has no scale subresource is reported and left alone; the ring
 * shards as before. Its client is the leader's fenced one.
 */
public final class RingAutoscaler implements Reconciler<RingKey> {

    static final String REPORTING_CONTROLLER = "ringmaster.dev/sharder";
    static final String SCALED = "Scaled";
    /** How often a pass runs without a ring or Lease event: the shards' load changes without one. */
    public static final Duration PERIOD = Duration.ofSeconds(5);
    /** Guards the ceiling against a quotient a rounding error put just above a whole number. */
    private static final double EPSILON = 1e-9;

    private static final Logger LOG = LoggerFactory.getLogger(RingAutoscaler.class);

    private final RingRegistry registry;
    private final Supplier<? extends Collection<Lease>> leases;
    private final KubernetesClient client;
    private final Clock clock;
    private final AutoscalingReports reports;
    private final AutoscaleRecorder recorder;
    private final ObjectEvents events;
    private final Stabilizer stabilizer;
    /** The rings whose "nothing reported" was logged, so it is said once. */
    private final Set<RingKey> quiet = ConcurrentHashMap.newKeySet();

    /**
     * @param registry the rings' views: spec and available shards
     * @param leases   every cached shard Lease (of every ring)
     * @param client   reads and writes the scale subresource, records events; the leader's fenced client
     */
    public RingAutoscaler(RingRegistry registry, Supplier<? extends Collection<Lease>> leases, KubernetesClient client,
            Clock clock, AutoscalingReports reports, AutoscaleRecorder recorder) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.leases = Objects.requireNonNull(leases, "leases");
        this.client = Objects.requireNonNull(client, "client");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.reports = Objects.requireNonNull(reports, "reports");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.events = new ObjectEvents(client, clock, REPORTING_CONTROLLER);
        this.stabilizer = new Stabilizer(clock);
    }

    /**
     * The shards for a total load: {@code ceil(total / target)}, held to {@code [min, max]}.
     *
     * @param total      busy seconds per second of all shards
     * @param targetBusy busy seconds per second per shard to keep
     */
    static int recommend(double total, double targetBusy, int min, int max) {
        int shards = (int) Math.min(Integer.MAX_VALUE, Math.ceil(total / targetBusy - EPSILON));
        return Math.max(min, Math.min(max, shards));
    }

    /**
     * The total load of the shards: the sum of the reports, with each shard that reports nothing readable counted at
     * the mean of those that do; empty when none does.
     */
    static Optional<Double> totalLoad(Map<String, Optional<Double>> busyByShard) {
        return LoadReports.withMean(busyByShard).map(busy -> busy.values().stream().mapToDouble(Double::doubleValue).sum());
    }

    @Override
    public Result reconcile(RingKey ring) {
        Optional<RingView> found = registry.view(ring);
        RingAutoscaling spec = found.filter(RingView::isValid).map(view -> view.ring().getSpec().getAutoscaling())
                .orElse(null);
        if (spec == null) {
            // gone, not autoscaled, or invalid: nothing is decided (the workload keeps its replicas)
            forget(ring);
            return Result.done();
        }
        RingView view = found.get();
        RingAutoscaling.Settings settings = spec.settings();
        ScaleTarget target;
        try {
            target = resolve(settings.target());
        } catch (Unavailable e) {
            unavailable(ring, spec, e.getMessage());
            return Result.requeueAfter(PERIOD);
        }
        Scale scale;
        try {
            scale = target.resource().scale();
        } catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND && e.getCode() != HttpURLConnection.HTTP_FORBIDDEN) {
                throw e;
            }
            String what = e.getCode() == HttpURLConnection.HTTP_FORBIDDEN
                    ? "cannot be read by the sharder (403: grant get on its scale subresource)"
                    : exists(target) ? "has no scale subresource" : "does not exist";
            unavailable(ring, spec, target.describe() + " " + what);
            return Result.requeueAfter(PERIOD);
        }
        if (scale == null) {
            unavailable(ring, spec, target.describe() + " does not exist");
            return Result.requeueAfter(PERIOD);
        }
        int current = scale.getSpec() == null || scale.getSpec().getReplicas() == null ? 0 : scale.getSpec().getReplicas();
        AutoscalingReports.Report previous = reports.get(ring, spec).orElse(null);
        Instant lastScale = previous == null ? null : previous.lastScale();

        List<String> available = view.availableShards().stream().map(Shard::name).sorted().toList();
        // an unreadable report is the range assigner's to warn of
        Map<String, Optional<Double>> busy = LoadReports.busy(LoadReports.byShard(ring, leases.get(), available,
                (lease, unreadable) -> { }));
        Optional<Double> total = totalLoad(busy);
        if (total.isEmpty()) {
            String message = available.isEmpty() ? "no shard is available: the shard count is left as it is"
                    : "no available shard reports its load (" + RingContract.LOAD_ANNOTATION
                            + "): the shard count is left as it is";
            if (quiet.add(ring)) {
                LOG.info("{}: {}", ring, message);
            }
            reports.put(ring, new AutoscalingReports.Report(spec, current, null, lastScale, null, message));
            recorder.notAutoscaled(ring);
            return Result.requeueAfter(PERIOD);
        }
        quiet.remove(ring);
        int recommendation = recommend(total.get(), settings.targetBusy(), settings.minShards(), settings.maxShards());
        int desired = stabilizer.stabilize(ring, recommendation, current, settings.scaleUp(), settings.scaleDown());
        if (desired != current) {
            scale.getSpec().setReplicas(desired);
            target.resource().scale(scale);
            lastScale = clock.instant();
            String why = String.format(Locale.ROOT, "scaled %s from %d to %d shards: total load %.3f s/s over %d"
                    + " available shards (%d reporting), target %.2f s/s per shard", target.describe(), current,
                    desired, total.get(), available.size(), busy.values().stream().filter(Optional::isPresent).count(),
                    settings.targetBusy());
            LOG.info("{}: {}", ring, why);
            events.normal(ObjectEvents.about(view.ring()), SCALED, "Scale", why);
            current = desired;
        }
        reports.put(ring, new AutoscalingReports.Report(spec, current, desired, lastScale, null, null));
        recorder.shards(ring, current, desired);
        return Result.requeueAfter(PERIOD);
    }

    private void forget(RingKey ring) {
        stabilizer.forget(ring);
        quiet.remove(ring);
        reports.remove(ring);
        recorder.notAutoscaled(ring);
    }

    private void unavailable(RingKey ring, RingAutoscaling spec, String problem) {
        String message = problem + " (spec.autoscaling.scaleTargetRef); the shard count is not changed until it can be"
                + " scaled";
        AutoscalingReports.Report previous = reports.get(ring, spec).orElse(null);
        if (previous == null || !message.equals(previous.problem())) {
            LOG.warn("{}: {}", ring, message);
        }
        reports.put(ring, new AutoscalingReports.Report(spec, null, null,
                previous == null ? null : previous.lastScale(), message, null));
        recorder.notAutoscaled(ring);
    }

    /** The scale target's resource, found by API discovery; a kind the server does not serve is unavailable. */
    private ScaleTarget resolve(ScaleTargetRef ref) throws Unavailable {
        APIResourceList resources;
        try {
            resources = client.getApiResources(ref.getApiVersion());
        } catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                throw e;
            }
            resources = null;
        }
        if (resources == null) {
            throw new Unavailable(ref.describe() + ": API version " + ref.getApiVersion() + " is not served");
        }
        List<APIResource> all = Objects.requireNonNullElse(resources.getResources(), List.of());
        APIResource main = all.stream().filter(resource -> ref.getKind().equals(resource.getKind())
                && !resource.getName().contains("/")).findFirst()
                .orElseThrow(() -> new Unavailable(ref.describe() + ": kind " + ref.getKind() + " is not served in "
                        + ref.getApiVersion()));
        boolean scalable = all.stream().anyMatch(resource -> (main.getName() + "/scale").equals(resource.getName()));
        if (!scalable) {
            throw new Unavailable(ref.describe() + " has no scale subresource");
        }
        String group = ref.getApiVersion().contains("/") ? ref.getApiVersion().substring(0,
                ref.getApiVersion().indexOf('/')) : "";
        String version = ref.getApiVersion().substring(ref.getApiVersion().indexOf('/') + 1);
        ResourceDefinitionContext context = new ResourceDefinitionContext.Builder().withGroup(group)
                .withVersion(version).withKind(ref.getKind()).withPlural(main.getName())
                .withNamespaced(Boolean.TRUE.equals(main.getNamespaced())).build();
        Resource<GenericKubernetesResource> resource = Boolean.TRUE.equals(main.getNamespaced())
                ? client.genericKubernetesResources(context).inNamespace(ref.getNamespace()).withName(ref.getName())
                : client.genericKubernetesResources(context).withName(ref.getName());
        return new ScaleTarget(ref, resource);
    }

    private static boolean exists(ScaleTarget target) {
        try {
            return target.resource().get() != null;
        } catch (KubernetesClientException e) {
            return true; // cannot tell: say what the scale request said
        }
    }

    private record ScaleTarget(ScaleTargetRef ref, Resource<GenericKubernetesResource> resource) {

        String describe() {
            return ref.describe();
        }
    }

    /** The scale target cannot be used, for the reason in the message. */
    private static final class Unavailable extends Exception {

        Unavailable(String message) {
            super(message, null, false, false);
        }
    }
}
