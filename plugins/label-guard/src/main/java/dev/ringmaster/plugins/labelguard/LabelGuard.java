package dev.ringmaster.plugins.labelguard;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Decides whether an UPDATE may change the shard and drain labels of a ring (docs/design.md section 1).
 * Changing them moves an object between shards; only the sharder does that safely (through the drain
 * protocol), so a stray {@code kubectl label} could give an object two owners or none that knows it.
 *
 * <p>Per ring whose labels the request changes, the change is allowed when
 * <ol>
 *   <li>the user is trusted: the sharder, a configured user, or a member of a configured group;
 *   <li>or the old object had no shard label of that ring: no shard owns it, so labelling it cannot
 *       give it two owners (this is also how the sharder's mutating webhook assigns an unassigned
 *       object on UPDATE, in the same request);
 *   <li>or it is a drain acknowledgement (when allowed): the old object carried the ring's drain and
 *       shard labels, the new one has no drain label. The shard removed both; the sharder's webhook
 *       may have assigned any shard in the same request, the old one too when its replica's view of
 *       the ring does not (yet) have the shard the object was drained for. Seen from here, that is
 *       the same as removing the drain label alone, which keeps the object with its one owner.
 * </ol>
 * Everything else is denied with 403 and a message naming the label, the user and the configuration
 * that would trust the user. Other operations are allowed: labels set at CREATE are the sharder
 * webhook's business, and DELETE changes no label.
 */
final class LabelGuard {

    /**
     * @param trustedUsers               user names whose requests may change any ring label (the sharder's among them)
     * @param trustedGroups              groups whose members may
     * @param allowDrainAcknowledgements whether anyone may acknowledge a drain (rule 3 above)
     */
    record Policy(Set<String> trustedUsers, Set<String> trustedGroups, boolean allowDrainAcknowledgements) {
        Policy {
            trustedUsers = Set.copyOf(trustedUsers);
            trustedGroups = Set.copyOf(trustedGroups);
        }
    }

    /** One denied label change. */
    record Violation(String label, String before, String after) {
    }

    private final Policy policy;
    private final String configurationPid;

    LabelGuard(Policy policy, String configurationPid) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.configurationPid = Objects.requireNonNull(configurationPid, "configurationPid");
    }

    AdmissionResponse review(AdmissionRequest request) {
        if (!"UPDATE".equals(request.operation())) {
            return AdmissionResponse.allow();
        }
        List<Violation> violations = violations(labels(request.oldObject()), labels(request.object()));
        if (violations.isEmpty() || trusted(request)) {
            return AdmissionResponse.allow();
        }
        return AdmissionResponse.deny(403, message(request, violations));
    }

    /** The ring label changes that only a trusted user may make. */
    List<Violation> violations(Map<String, String> oldLabels, Map<String, String> newLabels) {
        RingLabels before = RingLabels.of(oldLabels);
        RingLabels after = RingLabels.of(newLabels);
        List<Violation> violations = new ArrayList<>();
        for (String ring : before.ringsWith(after)) {
            String oldShard = before.shard(ring);
            String newShard = after.shard(ring);
            boolean shardChanged = !Objects.equals(oldShard, newShard);
            boolean drainChanged = before.draining(ring) != after.draining(ring);
            if (!shardChanged && !drainChanged) {
                continue;
            }
            if (oldShard == null) {
                continue; // nobody owns the object in this ring: an assignment
            }
            if (policy.allowDrainAcknowledgements() && before.draining(ring) && !after.draining(ring)) {
                continue; // the shard let go of the object
            }
            if (shardChanged) {
                violations.add(new Violation(RingContract.SHARD_LABEL_PREFIX + ring, oldShard, newShard));
            }
            if (drainChanged) {
                violations.add(new Violation(RingContract.DRAIN_LABEL_PREFIX + ring,
                        before.draining(ring) ? value(oldLabels, RingContract.DRAIN_LABEL_PREFIX + ring) : null,
                        after.draining(ring) ? value(newLabels, RingContract.DRAIN_LABEL_PREFIX + ring) : null));
            }
        }
        return violations;
    }

    private static String value(Map<String, String> labels, String key) {
        return Objects.requireNonNullElse(labels.get(key), "");
    }

    private boolean trusted(AdmissionRequest request) {
        return policy.trustedUsers().contains(request.username())
                || request.userGroups().stream().anyMatch(policy.trustedGroups()::contains);
    }

    private String message(AdmissionRequest request, List<Violation> violations) {
        Violation first = violations.get(0);
        String user = request.username().isEmpty() ? "(anonymous)" : request.username();
        StringBuilder message = new StringBuilder()
                .append("label-guard: user \"").append(user).append("\" may not ").append(describe(first))
                .append(" on ").append(object(request));
        if (violations.size() > 1) {
            message.append(" (and ").append(violations.size() - 1).append(" more ring label change")
                    .append(violations.size() > 2 ? "s" : "").append(')');
        }
        return message.append(". Only the sharder and trusted users change a ring's shard and drain labels, so")
                .append(" that no object is worked on by two shards; the sharder moves objects itself when")
                .append(" shards change. To trust this user, add \"").append(user)
                .append("\" to trustedUsers (or one of its groups to trustedGroups) in the configuration ")
                .append(configurationPid).append('.')
                .toString();
    }

    private static String describe(Violation violation) {
        if (violation.before() == null) {
            return "add label " + violation.label() + "=" + violation.after();
        }
        if (violation.after() == null) {
            return "remove label " + violation.label() + " (now \"" + violation.before() + "\")";
        }
        return "change label " + violation.label() + " from \"" + violation.before() + "\" to \""
                + violation.after() + "\"";
    }

    private static String object(AdmissionRequest request) {
        String resource = request.resourceGroup().isEmpty() ? request.resource()
                : request.resource() + "." + request.resourceGroup();
        String name = request.namespace().isEmpty() ? request.name() : request.namespace() + "/" + request.name();
        return resource + " " + name;
    }

    /** {@code metadata.labels} of an object as a JSON tree; non-string values as their text. */
    static Map<String, String> labels(Map<String, Object> object) {
        if (!(object.get("metadata") instanceof Map<?, ?> metadata)
                || !(metadata.get("labels") instanceof Map<?, ?> labels)) {
            return Map.of();
        }
        Map<String, String> result = new LinkedHashMap<>();
        labels.forEach((key, value) -> {
            if (key != null) {
                result.put(String.valueOf(key), value == null ? null : String.valueOf(value));
            }
        });
        return result;
    }
}
