package dev.ringmaster.sharder.survey.internal;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.ringcontrol.RingStatusReconciler;
import dev.ringmaster.sharder.kube.ObjectPages;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.kube.ResourceCatalog;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.RestartHold;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingObject;
import dev.ringmaster.sharder.rebalance.NamespaceScope;
import dev.ringmaster.sharder.rebalance.RebalanceLimits;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import dev.ringmaster.sharder.survey.RingSurvey;
import dev.ringmaster.sharder.survey.RingSurveyException;
import dev.ringmaster.sharder.survey.SurveyedObject;
import dev.ringmaster.sharder.survey.SurveyedShard;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * One survey of one ring, read-only, through the code the sharder decides with: the ring's view
 * ({@link RingView}: validation, resources and roles, interpreters, namespace selector, labels), the
 * lease detector's verdicts ({@link ShardInfo#judge}), the rebalancer's listing in pages
 * ({@link ObjectPages}, {@link ResourceCatalog}) and namespace scope ({@link NamespaceScope}).
 */
final class LiveRingSurvey {

    private final KubernetesClient client;
    private final Map<String, ResourceInterpreter> interpreters;
    private final LeaseDetector detector;
    private final Clock clock;

    LiveRingSurvey(KubernetesClient client, Map<String, ResourceInterpreter> interpreters, LeaseDetector detector,
            Clock clock) {
        this.client = client;
        this.interpreters = interpreters;
        this.detector = detector;
        this.clock = clock;
    }

    RingSurvey survey(RingKind kind, String name) throws RingSurveyException {
        RingObject ring = client.resources(RingObject.typeOf(kind)).withName(name).get();
        if (ring == null) {
            throw new RingSurveyException("there is no " + kind.kind() + " named " + name);
        }
        Instant now = clock.instant();
        Map<String, Lease> leases = leases(kind, name);
        Duration restartGrace = ring.getSpec() == null ? RestartHold.DEFAULT_GRACE
                : ring.getSpec().shardRestartGraceOrDefault();
        List<ShardInfo> judged = leases.values().stream()
                .map(lease -> ShardInfo.judge(lease, detector, restartGrace, now)).toList();
        RingView view = view(ring, judged);
        if (!view.isValid()) {
            throw new RingSurveyException(view.key() + " is invalid: " + String.join("; ", view.problems()));
        }
        if (!view.missingInterpreters().isEmpty()) {
            throw new RingSurveyException(view.key() + " needs resource interpreter "
                    + String.join(", ", view.missingInterpreters()) + ", which is not deployed here (add its bundle to deploy/)");
        }
        List<SurveyedObject> objects = new ArrayList<>();
        List<String> unserved = new ArrayList<>();
        Predicate<ObjectReference> inScope = new NamespaceScope(() -> client.namespaces().list().getItems())
                .matching(view.namespaceSelector());
        ResourceCatalog catalog = new ResourceCatalog(client);
        view.resources().forEach((resource, ringResource) -> catalog.resolve(resource.getGroup(), resource.getResource())
                .ifPresentOrElse(served -> list(served, ringResource, view, inScope, objects),
                        () -> unserved.add(resource.getGroup() + "/" + resource.getResource())));
        Optional<String> specStrategy = Optional.ofNullable(ring.getSpec().getStrategy()).filter(strategy -> !strategy.isEmpty());
        List<SurveyedShard> shards = judged.stream().map(shard -> surveyed(shard, leases.get(shard.name()))).toList();
        return new RingSurvey(kind, name, specStrategy, reportedStrategy(ring), shards, objects, unserved);
    }

    /** Adds the resource's objects in scope to {@code objects}, listed in pages as the rebalancer lists them. */
    private void list(ResolvedResource served, RingResource ringResource, RingView view,
            Predicate<ObjectReference> inScope, List<SurveyedObject> objects) {
        new ObjectPages(client, RebalanceLimits.DEFAULT.pageSize()).forEachPage(served, null, page -> page.stream()
                .map(served::reference)
                .filter(inScope)
                .forEach(object -> objects.add(surveyed(view, object, ringResource))));
    }

    /**
     * The ring's Leases in every namespace, by shard name. A shard is its name within a ring: of Leases
     * of one name in several namespaces the first namespace's counts, as in the sharder's membership.
     */
    private Map<String, Lease> leases(RingKind kind, String name) {
        Map<String, Lease> byName = new TreeMap<>();
        client.leases().inAnyNamespace().withLabel(kind.leaseLabel(), name).list().getItems().stream()
                .sorted(Comparator.comparing((Lease lease) -> lease.getMetadata().getNamespace()))
                .forEach(lease -> byName.putIfAbsent(lease.getMetadata().getName(), lease));
        return byName;
    }

    /** A judged shard with the state the sharder labelled its Lease with. */
    private static SurveyedShard surveyed(ShardInfo judged, Lease lease) {
        String label = Objects.requireNonNullElse(lease.getMetadata().getLabels(), Map.<String, String>of())
                .get(RingContract.STATE_LABEL);
        Optional<ShardState> labelled = Arrays.stream(ShardState.values())
                .filter(state -> state.label().equals(label))
                .findFirst();
        return new SurveyedShard(judged.name(), judged.state(), judged.weight(), labelled);
    }

    private RingView view(RingObject ring, List<ShardInfo> shards) {
        RingKey key = ring.key();
        RingRegistry registry = new RingRegistry();
        registry.update(inputs -> inputs.withRings(key.kind(), List.of(ring))
                .withMembership(new Membership(Map.of(key, shards)))
                .withInterpreters(interpreters));
        return registry.view(key).orElseThrow();
    }

    private static SurveyedObject surveyed(RingView view, ObjectReference object, RingResource resource) {
        PartitionKey key = view.keyFor(object, resource);
        return new SurveyedObject(resource.role(), key, object.labels().get(view.shardLabel()),
                object.labels().containsKey(view.drainLabel()));
    }

    /**
     * The strategy the ring's Ready condition names in force, if the condition is for the ring's current
     * generation: True, or False while the sharder goes on with an earlier strategy ({@link RingView#degraded()}).
     */
    private static Optional<String> reportedStrategy(RingObject ring) {
        if (ring.getStatus() == null || ring.getStatus().getConditions() == null
                || !Objects.equals(ring.getStatus().getObservedGeneration(), ring.getMetadata().getGeneration())) {
            return Optional.empty();
        }
        return ring.getStatus().getConditions().stream()
                .filter(condition -> RingStatusReconciler.CONDITION_READY.equals(condition.getType()))
                .map(Condition::getMessage)
                .findFirst()
                .flatMap(RingView::strategyOfReadyMessage);
    }
}
