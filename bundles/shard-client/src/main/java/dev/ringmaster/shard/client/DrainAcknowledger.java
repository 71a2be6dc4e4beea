package dev.ringmaster.shard.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands objects back to the sharder when it asks (docs/design.md section 1): when an object owned by
 * this shard carries the drain label, both the drain and the shard label are removed with one
 * optimistic JSON patch that carries the object's {@code resourceVersion}, so the API server
 * rejects it (409) if the object changed meanwhile. A conflict re-reads the object and decides
 * again, so calls are idempotent: an object already handed back costs no write.
 *
 * <p>Call {@link #acknowledgeIfDraining(HasMetadata)} first thing in the reconcile function and do
 * not reconcile the object when it returns {@code true}. Works for typed objects and for
 * {@code GenericKubernetesResource} (whose API the client resolves through discovery). Thread-safe.
 */
public final class DrainAcknowledger {

    private static final Logger LOG = LoggerFactory.getLogger(DrainAcknowledger.class);
    private static final int MAX_ATTEMPTS = 10;
    private static final int HTTP_UNPROCESSABLE = 422;

    private final KubernetesClient client;
    private final ShardLabels labels;

    /**
     * @param client the client used for the patch and, after a conflict, the re-read
     * @param labels this shard's labels
     */
    public DrainAcknowledger(KubernetesClient client, ShardLabels labels) {
        this.client = Objects.requireNonNull(client, "client");
        this.labels = Objects.requireNonNull(labels, "labels");
    }

    /**
     * Hands the object back if this shard owns it and the sharder asked for it.
     *
     * @param object the object as the shard's cache or event delivered it
     * @return {@code true} if the object carried this shard's drain label and is not this shard's
     *     any more (handed back by this call or before): do not reconcile it; {@code false} if it is
     *     not being drained from this shard (owned by another shard, not owned, no drain label, or,
     *     after a conflict, the drain was withdrawn)
     * @throws KubernetesClientException if the API server fails other than by a conflict, or keeps
     *     answering conflicts
     */
    public boolean acknowledgeIfDraining(HasMetadata object) {
        Objects.requireNonNull(object, "object");
        if (!labels.mustDrain(object.getMetadata().getLabels())) {
            return false;
        }
        HasMetadata candidate = object;
        for (int attempt = 1; ; attempt++) {
            if (candidate.getMetadata().getResourceVersion() == null) {
                // no version to lock on: read one first
                HasMetadata fresh = client.resource(candidate).get();
                if (fresh == null || !labels.owns(fresh.getMetadata().getLabels())) {
                    return true;
                }
                if (!labels.mustDrain(fresh.getMetadata().getLabels())) {
                    return false;
                }
                candidate = fresh;
            }
            try {
                client.resource(candidate).patch(PatchContext.of(PatchType.JSON), removeLabels(candidate));
                LOG.info("Shard {} handed back {} {}", labels.selector(), candidate.getKind(), describe(candidate));
                return true;
            } catch (KubernetesClientException e) {
                if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                    return true; // gone: nothing left to hand back
                }
                // 409: the object changed since it was read (a real API server checks the version
                // pin first, so even labels removed meanwhile come back as 409); 422: the patch no
                // longer applies to it. Either way: re-read and decide again.
                boolean stale = e.getCode() == HttpURLConnection.HTTP_CONFLICT || e.getCode() == HTTP_UNPROCESSABLE;
                if (!stale || attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
            }
            HasMetadata fresh = client.resource(candidate).get();
            if (fresh == null || !labels.owns(fresh.getMetadata().getLabels())) {
                return true; // already handed back (or deleted)
            }
            if (!labels.mustDrain(fresh.getMetadata().getLabels())) {
                return false; // the sharder withdrew the drain: still ours
            }
            candidate = fresh;
        }
    }

    /**
     * A JSON patch that pins the version read and replaces the labels with the labels read minus
     * the shard and drain label. Under the version pin this equals removing the two labels (any
     * other write since the read makes the API server answer 409), and it stays valid when the
     * labels were removed meanwhile (a {@code remove} op would fail with 422 instead).
     */
    private String removeLabels(HasMetadata object) {
        Map<String, String> remaining = new TreeMap<>(object.getMetadata().getLabels());
        remaining.remove(labels.shardLabel());
        remaining.remove(labels.drainLabel());
        StringJoiner labelsJson = new StringJoiner(",", "{", "}");
        remaining.forEach((key, value) -> labelsJson.add(quote(key) + ":" + quote(value)));
        return "[{\"op\":\"replace\",\"path\":\"/metadata/resourceVersion\",\"value\":"
                + quote(object.getMetadata().getResourceVersion()) + "},"
                + "{\"op\":\"replace\",\"path\":\"/metadata/labels\",\"value\":" + labelsJson + "}]";
    }

    private static String describe(HasMetadata object) {
        String namespace = object.getMetadata().getNamespace();
        return (namespace == null ? "" : namespace + "/") + object.getMetadata().getName();
    }

    private static String quote(String value) {
        StringBuilder json = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c < 0x20) {
                json.append(String.format("\\u%04x", (int) c));
            } else {
                json.append(c);
            }
        }
        return json.append('"').toString();
    }
}
