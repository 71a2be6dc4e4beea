package dev.ringmaster.bench.sharder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * The ConfigMaps of the benchmark cluster, served the way a real API server serves them, in front of
 * the mock server's CRUD dispatcher (which keeps every other kind).
 *
 * <p>Why not the CRUD dispatcher itself: it ignores {@code limit} and {@code continue}, so every list
 * is one page holding every object — the sharder would then hold all N objects at once and its heap
 * would grow with N because of the server, not itself — and it finds an object by scanning every
 * stored object under one lock, so each GET and PATCH costs O(N) (100,000 objects × 25,000 moves).
 * This store keeps the objects sorted by {@code namespace/name} and supports exactly what the sharder
 * asks of a real API server:
 * <ul>
 *   <li>list, cluster-wide or per namespace, with {@code limit}, {@code continue}, {@code labelSelector}
 *       (equality, set and existence requirements) and {@code resourceVersion} (accepted, ignored);
 *       metadata only ({@code PartialObjectMetadataList}) when the Accept header asks for it;
 *   <li>get one object;
 *   <li>JSON merge patch of {@code metadata.labels}, with the {@code metadata.resourceVersion}
 *       precondition (409 Conflict when stale, 404 when gone); a patch that changes nothing does not
 *       bump the resourceVersion.
 * </ul>
 * Watches, creation, updates and deletion of ConfigMaps are refused (405): the benchmark needs none.
 * Objects carry a creation timestamp, a uid, one managedFields entry and a small {@code data} entry,
 * so the bytes per object are close to a real cluster's.
 */
final class ConfigMapStore {

    /** One stored ConfigMap; immutable, replaced on every change. */
    private record Stored(String namespace, String name, String uid, long resourceVersion, Map<String, String> labels) {
    }

    private static final String PREFIX = "/api/v1/";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CREATED = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    private static final String MANAGED_FIELDS = "[{\"manager\":\"bench-cluster\",\"operation\":\"Update\","
            + "\"apiVersion\":\"v1\",\"time\":\"" + CREATED + "\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":"
            + "{\"f:data\":{\".\":{},\"f:settings.yaml\":{}},\"f:metadata\":{\"f:labels\":{\".\":{}}}}}]";
    private static final String DATA = "{\"settings.yaml\":\"replicas: 1\\nlogLevel: info\\nfeatureGates:"
            + " [a, b, c]\\ntimeoutSeconds: 30\\n\"}";

    private final NavigableMap<String, Stored> objects = new ConcurrentSkipListMap<>();
    /** Keys of objects carrying the drain label, with when it was written (nanoTime). */
    private final Map<String, Long> draining = new ConcurrentHashMap<>();
    private final Object writeLock = new Object();
    private final AtomicLong resourceVersion = new AtomicLong(1_000_000);
    private final String drainLabel;
    private final String shardLabel;

    final AtomicLong lists = new AtomicLong();
    final AtomicLong listedItems = new AtomicLong();
    final AtomicLong gets = new AtomicLong();
    final AtomicLong patches = new AtomicLong();
    final AtomicLong conflicts = new AtomicLong();
    final AtomicLong notFound = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong acknowledged = new AtomicLong();

    ConfigMapStore(String shardLabel, String drainLabel) {
        this.shardLabel = shardLabel;
        this.drainLabel = drainLabel;
    }

    /** Creates an object directly in the store (no request), as a fixture. */
    void create(String namespace, String name, Map<String, String> labels) {
        long version = resourceVersion.incrementAndGet();
        String uid = String.format("00000000-0000-4000-8000-%012d", version);
        objects.put(key(namespace, name), new Stored(namespace, name, uid, version, Map.copyOf(labels)));
    }

    int size() {
        return objects.size();
    }

    /** Calls {@code visitor} with the name and labels of every object. */
    void forEach(BiConsumer<String, Map<String, String>> visitor) {
        objects.values().forEach(stored -> visitor.accept(stored.name(), stored.labels()));
    }

    int draining() {
        return draining.size();
    }

    /**
     * What a shard does when it sees the drain label on one of its objects: removes the shard and the
     * drain label in one write (the new resourceVersion makes any write based on the old one conflict).
     *
     * @param olderThanNanos only drains written at least this long ago
     * @return the number of objects handed back
     */
    int acknowledgeDrains(long olderThanNanos) {
        long now = System.nanoTime();
        int handedBack = 0;
        for (Map.Entry<String, Long> drain : draining.entrySet()) {
            if (now - drain.getValue() < olderThanNanos) {
                continue;
            }
            synchronized (writeLock) {
                Stored stored = objects.get(drain.getKey());
                if (stored != null && stored.labels().containsKey(drainLabel)) {
                    Map<String, String> labels = new TreeMap<>(stored.labels());
                    labels.remove(drainLabel);
                    labels.remove(shardLabel);
                    replace(stored, labels);
                    handedBack++;
                }
                draining.remove(drain.getKey());
            }
        }
        acknowledged.addAndGet(handedBack);
        return handedBack;
    }

    /** Answers a request for ConfigMaps, or returns null for any other request. */
    MockResponse handle(RecordedRequest request) {
        String pathAndQuery = request.getPath();
        int question = pathAndQuery.indexOf('?');
        String path = question < 0 ? pathAndQuery : pathAndQuery.substring(0, question);
        Map<String, String> query = question < 0 ? Map.of() : query(pathAndQuery.substring(question + 1));
        if (!path.startsWith(PREFIX)) {
            return null;
        }
        String[] parts = path.substring(PREFIX.length()).split("/");
        String namespace;
        String name;
        if (parts.length == 1 && parts[0].equals("configmaps")) {
            namespace = null;
            name = null;
        } else if (parts.length == 3 && parts[0].equals("namespaces") && parts[2].equals("configmaps")) {
            namespace = parts[1];
            name = null;
        } else if (parts.length == 4 && parts[0].equals("namespaces") && parts[2].equals("configmaps")) {
            namespace = parts[1];
            name = parts[3];
        } else {
            return null;
        }
        String method = request.getMethod();
        if (name == null && method.equals("GET") && !"true".equals(query.get("watch"))) {
            return list(namespace, query, request.getHeader("Accept"));
        }
        if (name != null && method.equals("GET")) {
            return get(namespace, name);
        }
        if (name != null && method.equals("PATCH")) {
            return patch(namespace, name, request.getHeader("Content-Type"), request.getUtf8Body());
        }
        refused.incrementAndGet();
        return status(405, "MethodNotAllowed", method + " " + pathAndQuery + " is not supported by the benchmark's"
                + " ConfigMap store (it serves list, get and merge patch of labels)");
    }

    private MockResponse list(String namespace, Map<String, String> query, String accept) {
        lists.incrementAndGet();
        Predicate<Map<String, String>> selector;
        try {
            selector = LabelSelector.parse(query.getOrDefault("labelSelector", ""));
        } catch (IllegalArgumentException e) {
            return status(400, "BadRequest", "unable to parse requirement: " + e.getMessage());
        }
        int limit = Integer.parseInt(query.getOrDefault("limit", "0"));
        String continueToken = query.get("continue");
        NavigableMap<String, Stored> range = namespace == null ? objects
                : objects.subMap(namespace + "/", true, namespace + "0", false);
        if (continueToken != null && !continueToken.isEmpty()) {
            String after = new String(Base64.getUrlDecoder().decode(continueToken), StandardCharsets.UTF_8);
            range = range.tailMap(after, false);
        }
        boolean metadataOnly = accept != null && accept.contains("as=PartialObjectMetadataList");
        StringBuilder items = new StringBuilder(limit > 0 ? limit * 900 : 4096);
        int count = 0;
        String last = null;
        boolean more = false;
        for (Iterator<Stored> it = range.values().iterator(); it.hasNext(); ) {
            Stored stored = it.next();
            if (!selector.test(stored.labels())) {
                continue;
            }
            if (limit > 0 && count == limit) {
                more = true;
                break;
            }
            if (count > 0) {
                items.append(',');
            }
            if (metadataOnly) {
                items.append("{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":");
                appendMetadata(items, stored);
                items.append('}');
            } else {
                appendObject(items, stored);
            }
            count++;
            last = key(stored.namespace(), stored.name());
        }
        listedItems.addAndGet(count);
        StringBuilder body = new StringBuilder(items.length() + 256);
        body.append(metadataOnly ? "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\""
                : "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\"");
        body.append(",\"metadata\":{\"resourceVersion\":\"").append(resourceVersion.get()).append('"');
        if (more) {
            body.append(",\"continue\":\"")
                    .append(Base64.getUrlEncoder().withoutPadding().encodeToString(last.getBytes(StandardCharsets.UTF_8)))
                    .append('"');
        }
        body.append("},\"items\":[").append(items).append("]}");
        return json(200, body);
    }

    private MockResponse get(String namespace, String name) {
        gets.incrementAndGet();
        Stored stored = objects.get(key(namespace, name));
        if (stored == null) {
            notFound.incrementAndGet();
            return notFound(name);
        }
        StringBuilder body = new StringBuilder(1024);
        appendObject(body, stored);
        return json(200, body);
    }

    private MockResponse patch(String namespace, String name, String contentType, String body) {
        patches.incrementAndGet();
        if (contentType == null || !contentType.startsWith("application/merge-patch+json")) {
            refused.incrementAndGet();
            return status(415, "UnsupportedMediaType", "the benchmark's ConfigMap store accepts JSON merge patches only,"
                    + " not " + contentType);
        }
        JsonNode patch;
        try {
            patch = JSON.readTree(body);
        } catch (Exception e) {
            return status(400, "BadRequest", "invalid JSON: " + e.getMessage());
        }
        JsonNode metadata = patch.path("metadata");
        Set<String> fields = new HashSet<>();
        patch.fieldNames().forEachRemaining(fields::add);
        metadata.fieldNames().forEachRemaining(field -> fields.add("metadata." + field));
        fields.removeAll(Set.of("metadata", "metadata.labels", "metadata.resourceVersion"));
        if (!fields.isEmpty()) {
            refused.incrementAndGet();
            return status(422, "Invalid", "the benchmark's ConfigMap store patches labels only, not " + fields);
        }
        String key = key(namespace, name);
        Stored updated;
        synchronized (writeLock) {
            Stored stored = objects.get(key);
            if (stored == null) {
                notFound.incrementAndGet();
                return notFound(name);
            }
            JsonNode precondition = metadata.get("resourceVersion");
            if (precondition != null && !precondition.isNull()
                    && !precondition.asText().equals(Long.toString(stored.resourceVersion()))) {
                conflicts.incrementAndGet();
                return status(409, "Conflict", "Operation cannot be fulfilled on configmaps \"" + name
                        + "\": the object has been modified; please apply your changes to the latest version and try again");
            }
            Map<String, String> labels = new TreeMap<>(stored.labels());
            metadata.path("labels").fields().forEachRemaining(label -> {
                if (label.getValue().isNull()) {
                    labels.remove(label.getKey());
                } else {
                    labels.put(label.getKey(), label.getValue().asText());
                }
            });
            updated = labels.equals(stored.labels()) ? stored : replace(stored, labels);
        }
        StringBuilder response = new StringBuilder(1024);
        appendObject(response, updated);
        return json(200, response);
    }

    /** Stores a new version of the object. Callers hold the write lock. */
    private Stored replace(Stored stored, Map<String, String> labels) {
        Stored updated = new Stored(stored.namespace(), stored.name(), stored.uid(), resourceVersion.incrementAndGet(),
                Collections.unmodifiableMap(new TreeMap<>(labels)));
        String key = key(stored.namespace(), stored.name());
        objects.put(key, updated);
        if (labels.containsKey(drainLabel)) {
            draining.putIfAbsent(key, System.nanoTime());
        } else {
            draining.remove(key);
        }
        return updated;
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }

    private static void appendObject(StringBuilder out, Stored stored) {
        out.append("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":");
        appendMetadata(out, stored);
        out.append(",\"data\":").append(DATA).append('}');
    }

    private static void appendMetadata(StringBuilder out, Stored stored) {
        out.append("{\"name\":");
        string(out, stored.name());
        out.append(",\"namespace\":");
        string(out, stored.namespace());
        out.append(",\"uid\":\"").append(stored.uid()).append("\",\"resourceVersion\":\"")
                .append(stored.resourceVersion()).append("\",\"creationTimestamp\":\"").append(CREATED).append('"');
        if (!stored.labels().isEmpty()) {
            out.append(",\"labels\":{");
            boolean first = true;
            for (Map.Entry<String, String> label : stored.labels().entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                string(out, label.getKey());
                out.append(':');
                string(out, label.getValue());
            }
            out.append('}');
        }
        out.append(",\"managedFields\":").append(MANAGED_FIELDS).append('}');
    }

    private static void string(StringBuilder out, String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    private static Map<String, String> query(String query) {
        Map<String, String> parameters = new HashMap<>();
        for (String parameter : query.split("&")) {
            int equals = parameter.indexOf('=');
            String name = URLDecoder.decode(equals < 0 ? parameter : parameter.substring(0, equals), StandardCharsets.UTF_8);
            String value = equals < 0 ? "" : URLDecoder.decode(parameter.substring(equals + 1), StandardCharsets.UTF_8);
            parameters.put(name, value);
        }
        return parameters;
    }

    private static MockResponse json(int code, CharSequence body) {
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                .setBody(body.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static MockResponse notFound(String name) {
        return status(404, "NotFound", "configmaps \"" + name + "\" not found");
    }

    private static MockResponse status(int code, String reason, String message) {
        StringBuilder body = new StringBuilder("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                + "\"status\":\"Failure\",\"message\":");
        string(body, message);
        body.append(",\"reason\":\"").append(reason).append("\",\"code\":").append(code).append('}');
        return json(code, body);
    }

    /** Kubernetes label selectors: {@code k}, {@code !k}, {@code k=v}, {@code k==v}, {@code k!=v}, {@code k in (a,b)}, {@code k notin (a,b)}. */
    static final class LabelSelector {

        private LabelSelector() {
        }

        static Predicate<Map<String, String>> parse(String selector) {
            List<Predicate<Map<String, String>>> requirements = new ArrayList<>();
            for (String requirement : split(selector.trim())) {
                requirements.add(requirement(requirement.trim()));
            }
            return labels -> {
                for (Predicate<Map<String, String>> requirement : requirements) {
                    if (!requirement.test(labels)) {
                        return false;
                    }
                }
                return true;
            };
        }

        /** Splits at commas outside parentheses. */
        private static List<String> split(String selector) {
            List<String> parts = new ArrayList<>();
            if (selector.isEmpty()) {
                return parts;
            }
            int depth = 0;
            int start = 0;
            for (int i = 0; i < selector.length(); i++) {
                char c = selector.charAt(i);
                if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth--;
                } else if (c == ',' && depth == 0) {
                    parts.add(selector.substring(start, i));
                    start = i + 1;
                }
            }
            parts.add(selector.substring(start));
            return parts;
        }

        private static Predicate<Map<String, String>> requirement(String requirement) {
            if (requirement.isEmpty()) {
                throw new IllegalArgumentException("empty requirement");
            }
            if (requirement.startsWith("!")) {
                String key = requirement.substring(1).trim();
                return labels -> !labels.containsKey(key);
            }
            int notEquals = requirement.indexOf("!=");
            if (notEquals > 0) {
                String key = requirement.substring(0, notEquals).trim();
                String value = requirement.substring(notEquals + 2).trim();
                return labels -> !value.equals(labels.get(key));
            }
            int equals = requirement.indexOf('=');
            if (equals > 0) {
                String key = requirement.substring(0, equals).trim();
                String value = requirement.substring(requirement.startsWith("==", equals) ? equals + 2 : equals + 1).trim();
                return labels -> value.equals(labels.get(key));
            }
            String[] words = requirement.split("\\s+", 3);
            if (words.length == 3 && (words[1].equals("in") || words[1].equals("notin"))) {
                String list = words[2].trim();
                if (!list.startsWith("(") || !list.endsWith(")")) {
                    throw new IllegalArgumentException(requirement);
                }
                Set<String> values = new HashSet<>();
                for (String value : list.substring(1, list.length() - 1).split(",")) {
                    values.add(value.trim());
                }
                String key = words[0];
                return words[1].equals("in") ? labels -> values.contains(labels.get(key))
                        : labels -> !values.contains(labels.get(key));
            }
            if (words.length == 1) {
                String key = words[0];
                return labels -> labels.containsKey(key);
            }
            throw new IllegalArgumentException(requirement);
        }
    }
}
