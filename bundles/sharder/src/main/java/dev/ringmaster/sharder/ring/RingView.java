package dev.ringmaster.sharder.ring;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.ring.spi.PlacementPolicy;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.model.RingBalancing;
import dev.ringmaster.sharder.model.RingBalancingStatus;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.RingObject;
import dev.ringmaster.sharder.model.RingSpec;
import dev.ringmaster.sharder.model.RingValidation;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the sharder decides about one ring, compiled once when the ring, its shards or the
 * plug-ins change, never per object: the validated spec, the ring's labels, the role and the
 * interpreter of each resource, the strategy's ring over the available shards, and the one
 * placement decision ({@link #moveOf}). Admission, the rebalancer, the unassigned-object watch and
 * the status controller all decide through it. Immutable, so any number of threads read it.
 *
 * <p>The ring's kind ({@link #kind()}) is a property of the view: the code that uses a view does
 * not care which kind of ring object it was compiled from.
 */
public final class RingView {

    /** Ready=False reasons, in the order they are checked. */
    public static final String INVALID_SPEC = "InvalidSpec";
    public static final String STRATEGY_UNAVAILABLE = "StrategyUnavailable";
    public static final String POLICY_UNAVAILABLE = "PlacementPolicyUnavailable";
    public static final String INTERPRETER_UNAVAILABLE = "InterpreterUnavailable";
    public static final String RANGES_STILL_SERVED = "RangesStillServed";
    public static final String LABELS_STILL_SERVED = "LabelsStillServed";

    private static final Logger LOG = LoggerFactory.getLogger(RingView.class);
    /** The strategy in force, in a Ready message and in the message of a ring that fell back to it. */
    private static final Pattern IN_FORCE = Pattern.compile("sharding with strategy \"([^\"]+)\"");

    /** Why a ring can neither assign nor move objects now, in the words of its Ready condition. */
    public record Blocker(String reason, String message) {
    }

    /** Told of each object the ring's interpreter cannot key, e.g. to report it on the object. */
    @FunctionalInterface
    public interface InvalidKeys {
        InvalidKeys IGNORE = (object, invalid) -> { };

        void skipped(ObjectReference object, PartitionKey.Invalid invalid);
    }

    private final RingObject ring;
    private final RingKey key;
    private final List<String> problems;
    private final String shardLabel;
    private final String drainLabel;
    private final Map<GroupResource, RingResource> resources;
    private final LabelSelector namespaceSelector;
    /** Every resource's interpreter; empty while one the ring needs is not deployed. */
    private final Map<RingResource, ResourceInterpreter> interpreters;
    private final Set<String> missingInterpreters;
    private final String strategyName;
    private final boolean strategyFromSpec;
    /** The strategy asked for, when it is not bound and the ring goes on with the one in force before. */
    private final String unavailableStrategy;
    /** The strategy the ring's status names as in force (written by the leader); null if it names none. */
    private final String strategyInStatus;
    private final StrategyBinding binding;
    private final List<ShardInfo> shards;
    /**
     * The available shards that serve the ring's mode (by labels, or by ranges), or all available ones if none does: a
     * shard of the other mode would not serve what it is given while a shard of this one can.
     */
    private final List<Shard> availableShards;
    /** Whether some available shard serves the ring's mode. */
    private final boolean shardsOfItsMode;
    private final Set<String> availableNames;
    /** Shards whose objects only a drain may take: available, or still renewing their Lease. */
    private final Set<String> mayReconcileNames;
    /** The strategy's ring over the available shards; null while the strategy is missing or failed. */
    private final ShardRing shardRing;
    /** The key and bucket count of a valid range-mode ring ({@code spec.ranges}); null in label mode or when invalid. */
    private final RangeMode rangeMode;
    /** Whether the ring asks for range mode, valid or not: its objects are never labelled then. */
    private final boolean rangeModeAsked;
    /**
     * In label mode, the shards that may still be reconciling objects of ranges they serve (a ring that left range
     * mode, before they let their ranges go); the ring labels nothing beside them. Empty in range mode.
     */
    private final Set<String> rangesStillServed;
    /**
     * In range mode, the shards that may still be reconciling the objects labelled with them (a ring that entered range
     * mode, before they stopped); the ring grants no range beside them. Empty in label mode.
     */
    private final Set<String> labelsStillServed;
    /** The settings of a valid label-mode ring weighed by load ({@code spec.balancing}); null otherwise. */
    private final RingBalancing.Settings weightBalancing;
    /** The shard weights the leader set ({@code status.balancing}); the neutral ones without. */
    private final RingBalancingStatus weights;

    /**
     * How a range-mode ring cuts the hash space (docs/design.md section 9).
     *
     * @param key     the field hashed
     * @param buckets the bucket count, a power of two
     */
    public record RangeMode(RangeKey key, int buckets, Optional<Balancing> balancing) {
    }

    /**
     * How a balanced range-mode ring is placed ({@code spec.ranges.balancing}, docs/design.md section 10).
     *
     * @param settings the spec's settings with their defaults
     * @param policy   the placement policy service of that name; empty while none is bound, and the ranges stay
     *                 where they are
     */
    public record Balancing(RingBalancing.Settings settings, Optional<PlacementPolicy> policy) {
    }

    private RingView(RingObject ring, RingInputs inputs, RingView previous) {
        this.ring = ring;
        this.key = ring.key();
        this.problems = List.copyOf(RingValidation.validate(ring));
        this.shardLabel = key.shardLabel();
        this.drainLabel = key.drainLabel();
        RingSpec spec = problems.isEmpty() ? ring.getSpec() : new RingSpec();
        this.resources = resources(spec);
        this.namespaceSelector = spec.namespaceSelectorOrDefault();
        Set<String> missing = new TreeSet<>();
        Map<RingResource, ResourceInterpreter> byResource = new LinkedHashMap<>();
        spec.interpretersByResource().forEach((resource, requested) -> {
            String interpreter = requested.isEmpty() ? inputs.defaultInterpreter() : requested;
            ResourceInterpreter bound = inputs.interpreters().get(interpreter);
            if (bound == null) {
                missing.add(interpreter);
            } else {
                byResource.put(resources.get(resource), bound);
            }
        });
        this.missingInterpreters = Collections.unmodifiableSet(missing);
        this.interpreters = missing.isEmpty() ? Collections.unmodifiableMap(byResource) : Map.of();
        String requested = ring.getSpec() == null ? null : ring.getSpec().getStrategy();
        this.strategyFromSpec = requested != null && !requested.isEmpty();
        String asked = strategyFromSpec ? requested : inputs.defaultStrategy();
        this.strategyInStatus = strategyOfReadyMessage(readyMessageOf(ring)).orElse(null);
        boolean fallBack = asked != null && !inputs.strategies().containsKey(asked) && strategyInStatus != null
                && !strategyInStatus.equals(asked) && inputs.strategies().containsKey(strategyInStatus);
        this.unavailableStrategy = fallBack ? asked : null;
        this.strategyName = fallBack ? strategyInStatus : asked;
        this.binding = inputs.strategies().get(strategyName);
        this.shards = inputs.membership().shards(key);
        this.rangeModeAsked = ring.getSpec() != null && ring.getSpec().rangeMode();
        this.weightBalancing = !rangeModeAsked && problems.isEmpty() && spec.getBalancing() != null
                ? spec.getBalancing().settings() : null;
        this.weights = ring.getStatus() == null || ring.getStatus().getBalancing() == null
                ? new RingBalancingStatus() : ring.getStatus().getBalancing();
        List<ShardInfo> available = inputs.membership().availableShards(key);
        List<ShardInfo> ofItsMode = available.stream().filter(shard -> servesMode(shard, rangeModeAsked)).toList();
        this.shardsOfItsMode = !ofItsMode.isEmpty();
        this.availableShards = (shardsOfItsMode ? ofItsMode : available).stream()
                .map(shard -> weighed(shard, weights.percentOf(shard.name()))).toList();
        this.availableNames = availableShards.stream().map(Shard::name).collect(Collectors.toUnmodifiableSet());
        this.mayReconcileNames = shards.stream().filter(ShardInfo::mayReconcile).map(ShardInfo::name)
                .collect(Collectors.toUnmodifiableSet());
        this.rangeMode = rangeModeAsked && problems.isEmpty()
                ? new RangeMode(spec.getRanges().keyOrDefault(), spec.getRanges().bucketsOrDefault(),
                Optional.ofNullable(spec.getRanges().getBalancing()).map(RingBalancing::settings)
                        .map(settings -> new Balancing(settings, Optional.ofNullable(
                                inputs.policies().get(settings.policy()))))) : null;
        this.rangesStillServed = rangeModeAsked || !problems.isEmpty() ? Set.of()
                : stillServing(key, inputs, shards, ShardInfo::mayReconcileRanges, true);
        this.labelsStillServed = !rangeModeAsked || !problems.isEmpty() ? Set.of()
                : stillServing(key, inputs, shards, ShardInfo::mayReconcileLabels, false);
        // a range-mode ring places no object by the strategy: it needs none
        this.shardRing = rangeModeAsked ? null : sameStrategyRing(previous) ? previous.shardRing : build();
    }

    /**
     * The ring's shards that may be reconciling in the other mode ({@code serving}: by ranges, or by labels), except
     * those that are also shards of a ring of the other kind in that mode ({@code ofRangeModeRings}: whether that is
     * range mode), where that is their due. Only the other kind: a Lease is a shard of one ring per kind, so a
     * same-named shard of another ring of this kind is another Lease.
     */
    private static Set<String> stillServing(RingKey key, RingInputs inputs, List<ShardInfo> shards,
            Predicate<ShardInfo> serving, boolean ofRangeModeRings) {
        Set<String> theirs = inputs.rings().values().stream()
                .filter(other -> other.key().kind() != key.kind() && other.getSpec() != null
                        && other.getSpec().rangeMode() == ofRangeModeRings)
                .flatMap(other -> inputs.membership().shards(other.key()).stream()).map(ShardInfo::name)
                .collect(Collectors.toSet());
        return shards.stream().filter(serving).map(ShardInfo::name).filter(name -> !theirs.contains(name))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Whether {@code shard} serves a ring in range mode ({@code rangeMode}) or in label mode: it announces ranges, or not. */
    private static boolean servesMode(ShardInfo shard, boolean rangeMode) {
        return (shard.ranges() != ShardInfo.RangeClaim.UNANNOUNCED) == rangeMode;
    }

    /** The shard as the strategy places it: by its Lease's weight, or in a ring weighed by load at {@code percent}. */
    private Shard weighed(ShardInfo shard, int percent) {
        return weightBalancing == null ? shard.toShard()
                : new Shard(shard.name(), RingBalancingStatus.strategyWeight(shard.weight(), percent));
    }

    /**
     * The strategy's ring over the available shards weighed at {@code percents} (a shard not listed at
     * {@value RingBalancingStatus#NEUTRAL_PERCENT}), to try weights before setting them; empty without a ring weighed by
     * load or its strategy.
     */
    public Optional<ShardRing> ringWithWeights(Map<String, Integer> percents) {
        if (weightBalancing == null || binding == null) {
            return Optional.empty();
        }
        List<Shard> weighed = shards.stream().filter(shard -> availableNames.contains(shard.name()))
                .map(shard -> weighed(shard, percents.getOrDefault(shard.name(), RingBalancingStatus.NEUTRAL_PERCENT)))
                .toList();
        return Optional.of(binding.strategy().build(weighed));
    }

    /** The balancing settings of a valid label-mode ring weighed by load ({@code spec.balancing}). */
    public Optional<RingBalancing.Settings> weightBalancing() {
        return Optional.ofNullable(weightBalancing);
    }

    /** The shard weights in percent the ring's status holds ({@code status.balancing}), by shard. */
    public Map<String, Integer> weightPercents() {
        Map<String, Integer> percents = new TreeMap<>();
        availableShards.forEach(shard -> percents.put(shard.name(), weights.percentOf(shard.name())));
        return percents;
    }

    /** Compiles the ring against the inputs, reusing {@code previous}'s strategy ring if shards and strategy are the same. */
    static RingView compile(RingObject ring, RingInputs inputs, RingView previous) {
        return new RingView(ring, inputs, previous);
    }

    private boolean sameStrategyRing(RingView previous) {
        return previous != null && !previous.rangeModeAsked && previous.strategyName.equals(strategyName)
                && previous.availableShards.equals(availableShards)
                && (binding == null ? previous.binding == null : binding.sameAs(previous.binding));
    }

    private ShardRing build() {
        if (binding == null) {
            return null;
        }
        try {
            return binding.strategy().build(availableShards);
        } catch (RuntimeException e) {
            // a broken strategy plug-in must not take the sharder down: the ring waits as if it were
            // missing, and keeps the binding so the same failure is not retried on every change
            LOG.error("strategy {} failed to build ring {}: {}", strategyName, key, e.toString());
            return null;
        }
    }

    private static Map<GroupResource, RingResource> resources(RingSpec spec) {
        Map<GroupResource, RingResource> resources = new LinkedHashMap<>();
        spec.rolesByResource().forEach((resource, role) -> resources.put(resource,
                new RingResource(resource.getGroup(), resource.getResource(), role)));
        return Collections.unmodifiableMap(resources);
    }

    /** The namespaces whose objects the ring shards (the spec's selector or the default). */
    public LabelSelector namespaceSelector() {
        return namespaceSelector;
    }

    /** The kind of ring object this view was compiled from. */
    public RingKind kind() {
        return key.kind();
    }

    public String name() {
        return key.name();
    }

    /** The ring's kind and name. */
    public RingKey key() {
        return key;
    }

    /** The ring object as last seen (spec, status, metadata). */
    public RingObject ring() {
        return ring;
    }

    public String shardLabel() {
        return shardLabel;
    }

    public String drainLabel() {
        return drainLabel;
    }

    /** What is wrong with the spec, in field order; empty when it is valid. */
    public List<String> problems() {
        return problems;
    }

    public boolean isValid() {
        return problems.isEmpty();
    }

    /** Every resource of a valid ring with its role; none for an invalid one. */
    public Map<GroupResource, RingResource> resources() {
        return resources;
    }

    /** The ring's resource of this group and plural name, with its role. */
    public Optional<RingResource> resource(String group, String resource) {
        return Optional.ofNullable(resources.get(new GroupResource(group, resource)));
    }

    /** The partitioning strategy in force: the ring's own or the sharder's default. */
    public String strategyName() {
        return strategyName;
    }

    /** Where the strategy name comes from, for messages. */
    public String strategySource() {
        return unavailableStrategy != null ? "the strategy in force before" : askedSource();
    }

    /** Where the strategy asked for is named. */
    private String askedSource() {
        return strategyFromSpec ? "spec.strategy" : "the sharder's default";
    }

    /**
     * Why the ring is not Ready although it assigns and moves objects: the strategy asked for is not
     * available, and the ring goes on with the one its status names as in force before (a typo in
     * {@code spec.strategy}, or a plug-in not delivered yet, changes nothing until it is fixed).
     */
    public Optional<Blocker> degraded() {
        Optional<String> missingPolicy = Optional.ofNullable(rangeMode).flatMap(RangeMode::balancing)
                .filter(balancing -> balancing.policy().isEmpty()).map(balancing -> balancing.settings().policy());
        if (missingPolicy.isPresent()) {
            return Optional.of(new Blocker(POLICY_UNAVAILABLE, "placement policy \"" + missingPolicy.get()
                    + "\" (spec.ranges.balancing.policy) is not available; the ranges stay where they are until it is"));
        }
        if (rangeModeAsked || unavailableStrategy == null || blocker().isPresent()) {
            return Optional.empty();
        }
        return Optional.of(new Blocker(STRATEGY_UNAVAILABLE, "partitioning strategy \"" + unavailableStrategy + "\" ("
                + askedSource() + ") is not available; still "
                + readyMessage()));
    }

    /**
     * The message of the ring's Ready condition while it can act, naming the strategy in force, its
     * source and the bundle that provides it (so that a delivered plug-in's version is visible).
     */
    public String readyMessage() {
        if (rangeMode != null) {
            return "sharding by ranges of the hash of " + rangeMode.key().field() + " in " + rangeMode.buckets()
                    + " buckets (spec.ranges), published on the shard Leases" + rangeMode.balancing()
                    .map(balancing -> ", placed by load with policy \"" + balancing.settings().policy() + "\"")
                    .orElse("");
        }
        String message = "sharding with strategy \"" + strategyName + "\" (" + strategySource() + ")"
                + (weightBalancing == null ? "" : ", shards weighed by load (spec.balancing)");
        return binding == null || binding.provider().isEmpty() ? message : message + ", bundle " + binding.provider();
    }

    /**
     * The strategy in force that a Ready condition's message names ({@link #readyMessage()}, or the
     * message of a ring that went on with it, {@link #degraded()}); empty for any other message.
     */
    public static Optional<String> strategyOfReadyMessage(String message) {
        Matcher matcher = message == null ? null : IN_FORCE.matcher(message);
        return matcher != null && matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
    }

    /**
     * Whether this view's strategy is the one the ring's status names as in force, or the status
     * names none (a new ring, a blocked one). A replica whose plug-ins differ from the leader's for a
     * moment (a bundle delivered to one replica first) disagrees, and its webhook leaves objects to
     * the leader's unassigned watch rather than place them by another strategy.
     */
    public boolean strategyAgreesWithStatus() {
        return strategyInStatus == null || strategyInStatus.equals(strategyName);
    }

    /** The message of the ring's Ready condition as the sharder last wrote it; null if none. */
    private static String readyMessageOf(RingObject ring) {
        if (ring.getStatus() == null || ring.getStatus().getConditions() == null) {
            return null;
        }
        return ring.getStatus().getConditions().stream().filter(condition -> "Ready".equals(condition.getType()))
                .findFirst().map(condition -> condition.getMessage()).orElse(null);
    }

    /** The interpreters the ring needs that are not deployed, sorted. */
    public Set<String> missingInterpreters() {
        return missingInterpreters;
    }

    /** All of the ring's shards, sorted by name, as the lease controller last judged them. */
    public List<ShardInfo> shards() {
        return shards;
    }

    /**
     * The available shards the ring places on: those that serve its mode, all of them if none does (a ring that
     * switched modes, before its shards did).
     */
    public List<Shard> availableShards() {
        return availableShards;
    }

    /** Whether some available shard serves the ring's mode: announces ranges in range mode, none in label mode. */
    public boolean hasShardsOfItsMode() {
        return shardsOfItsMode;
    }

    /** Whether {@code shard} is one of the ring's available shards. */
    public boolean isAvailable(String shard) {
        return availableNames.contains(shard);
    }

    /** The strategy's ring over the available shards; empty while the strategy is missing or failing. */
    public Optional<ShardRing> shardRing() {
        return Optional.ofNullable(shardRing);
    }

    /** Why the ring can neither assign nor move objects now; empty when it can. */
    public Optional<Blocker> blocker() {
        if (!problems.isEmpty()) {
            return Optional.of(new Blocker(INVALID_SPEC, "the " + key.kind().kind() + " is invalid: " + String.join("; ", problems)));
        }
        if (rangeModeAsked) {
            // neither a strategy nor interpreters: the shards' API server filters by ranges
            return labelsStillServed.isEmpty() ? Optional.empty() : Optional.of(new Blocker(LABELS_STILL_SERVED,
                    "shards " + labelsStillServed + " announce no ranges (" + RingContract.SERVED_RANGES_ANNOTATION
                    + ") and may still reconcile the objects labelled with them; those objects are drained, and a"
                    + " range is granted only where none is left with them, so no object is reconciled by a shard of"
                    + " its label and a shard of its range at once"));
        }
        if (strategyName == null || strategyName.isEmpty()) {
            return Optional.of(new Blocker(STRATEGY_UNAVAILABLE,
                    "the ring names no strategy (spec.strategy) and the sharder has no default strategy"));
        }
        if (shardRing == null) {
            return Optional.of(new Blocker(STRATEGY_UNAVAILABLE, "partitioning strategy \"" + strategyName + "\" ("
                    + strategySource() + ") is not available; objects are neither assigned nor moved until it is"));
        }
        if (!missingInterpreters.isEmpty()) {
            return Optional.of(new Blocker(INTERPRETER_UNAVAILABLE, "resource interpreter "
                    + missingInterpreters.stream().map(missing -> "\"" + missing + "\"").collect(Collectors.joining(", "))
                    + " is not available; objects are neither assigned nor moved until it is"));
        }
        if (!rangesStillServed.isEmpty()) {
            return Optional.of(new Blocker(RANGES_STILL_SERVED, "shards " + rangesStillServed + " still serve ranges of"
                    + " the hash space (" + RingContract.SERVED_RANGES_ANNOTATION + "), taken back a slice at a time once"
                    + " a shard that serves by labels is available; only objects outside them are labelled, so no object"
                    + " is reconciled by a shard of its range and a shard of its label at once"));
        }
        return Optional.empty();
    }

    /**
     * Whether the ring assigns and moves objects by their shard label now: valid, in label mode, with its strategy
     * and interpreters. A range-mode ring never does ({@link #rangeMode()}).
     */
    public boolean canAct() {
        return !rangeModeAsked && problems.isEmpty() && shardRing != null && missingInterpreters.isEmpty()
                && rangesStillServed.isEmpty();
    }

    /**
     * Whether a label-mode ring whose shards still serve ranges labels the objects outside them (the ranges go back a
     * slice at a time): valid, with its strategy and interpreters, and a shard that serves by labels available.
     */
    public boolean labelsBesideRanges() {
        return !rangeModeAsked && problems.isEmpty() && shardRing != null && missingInterpreters.isEmpty()
                && shardsOfItsMode && !rangesStillServed.isEmpty();
    }

    /**
     * A range-mode ring's shards that may still be reconciling the objects labelled with them; while there are any,
     * a range is granted only where none of their objects is left.
     */
    public Set<String> labelsStillServed() {
        return labelsStillServed;
    }

    /**
     * Whether a range-mode ring still drains objects: while shards serving by labels hold some
     * ({@link #labelsStillServed()}). A label-mode ring drains whenever objects move.
     */
    public boolean drainsInRangeMode() {
        return rangeMode != null && !labelsStillServed.isEmpty();
    }

    /**
     * Whether the ring takes away the shard and drain labels its objects kept from label mode: a valid range-mode ring
     * ({@link #moveOf}).
     */
    public boolean clearsLabels() {
        return rangeMode != null;
    }

    /**
     * Whether a valid range-mode ring's {@code object} is a main object labelled for one of the shards that may still
     * reconcile it by that label ({@link #labelsStillServed()}): no range holding it may be granted until that shard
     * handed it back.
     */
    public boolean heldByLabel(ObjectReference object, RingResource resource) {
        String shard = object.labels().get(shardLabel);
        return rangeMode != null && resource.role() == Role.MAIN && shard != null && labelsStillServed.contains(shard);
    }

    /** The key and buckets of a valid range-mode ring; empty in label mode or while the spec is invalid. */
    public Optional<RangeMode> rangeMode() {
        return Optional.ofNullable(rangeMode);
    }

    /** Whether the ring asks for range mode ({@code spec.ranges} present), valid or not: it labels no object. */
    public boolean rangeModeAsked() {
        return rangeModeAsked;
    }

    /** The object's partition key, by the interpreter of its resource (one of {@link #resources()}). */
    public PartitionKey keyFor(ObjectReference object, RingResource resource) {
        ResourceInterpreter interpreter = interpreters.get(resource);
        return interpreter == null
                ? PartitionKey.notAssigned("resource " + resource.resource() + " is not part of the ring")
                : interpreter.keyFor(object, resource);
    }

    /** The shard a key belongs on; empty for no key, or while the ring has no available shard or cannot act. */
    public Optional<String> shardFor(PartitionKey key) {
        if (key instanceof PartitionKey.Key found && shardRing != null) {
            return shardRing.shardFor(found.value());
        }
        return Optional.empty();
    }

    /**
     * The move that puts the object where it belongs; objects the interpreter cannot key stay. In range mode the labels
     * left from label mode go: a main object a shard may still reconcile by its label is drained, so that the shard
     * lets go of it first ({@link #heldByLabel}), and the others lose their shard and drain labels.
     */
    public Move moveOf(ObjectReference object, RingResource resource, InvalidKeys invalidKeys) {
        if (rangeModeAsked) {
            Map<String, String> labels = object.labels();
            if (heldByLabel(object, resource)) {
                return labels.containsKey(drainLabel) ? Move.KEEP : new Move.Drain(labels.get(shardLabel));
            }
            return clearsLabels() && (labels.containsKey(shardLabel) || labels.containsKey(drainLabel))
                    ? new Move.Unlabel(labels.get(shardLabel)) : Move.KEEP;
        }
        PartitionKey key = keyFor(object, resource);
        if (key instanceof PartitionKey.Invalid invalid) {
            invalidKeys.skipped(object, invalid);
        }
        return Move.decide(object.labels(), shardLabel, drainLabel, resource.role(), shardFor(key), mayReconcileNames);
    }

    /** The labels to write for the move, given the object's current labels. */
    public Map<String, String> labelChanges(Move move, ObjectReference object) {
        return move.labelChanges(object.labels(), shardLabel, drainLabel);
    }

    /**
     * Whether {@code other} places every object as this view does: same resources and roles,
     * interpreters, namespaces, strategy ring and ability to act. A change of the ring's status or of shards that
     * are not available does not move anything.
     */
    boolean placesLike(RingView other) {
        return other != null && shardRing == other.shardRing && problems.equals(other.problems)
                && resources.equals(other.resources) && interpreters.equals(other.interpreters)
                && missingInterpreters.equals(other.missingInterpreters)
                && namespaceSelector.equals(other.namespaceSelector) && Objects.equals(rangeMode, other.rangeMode)
                && rangeModeAsked == other.rangeModeAsked && rangesStillServed.equals(other.rangesStillServed)
                && labelsStillServed.equals(other.labelsStillServed);
    }

    /** Whether {@code other} says exactly the same: same ring object, shards and decisions. */
    boolean sameAs(RingView other) {
        return placesLike(other) && ring == other.ring && shards.equals(other.shards)
                && Objects.equals(strategyName, other.strategyName);
    }

    @Override
    public String toString() {
        return key + blocker().map(blocked -> " (" + blocked.reason() + ")").orElse("")
                + " on " + availableShards.size() + " of " + shards.size() + " shards";
    }
}
