package dev.ringmaster.shard.client;

import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.Store;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Range mode's informer (docs/design.md section 9): caches the objects of one resource whose hash
 * ({@link RangeKey#hash}) lies in the ranges this shard serves. Its lists and watches carry the
 * KEP-5866 {@code shardSelector} of those ranges (added by an HTTP interceptor on a client of its own,
 * made from the given client's configuration), and every event is also filtered here before the
 * store view and the handlers see it, so it is correct on servers that ignore the selector (before
 * v1.36, or the {@code ShardedListAndWatch} gate off). {@link #serverFiltering()} says which the server
 * did, found once with a list of one object.
 *
 * <p>It serves nothing until told its ranges: {@link ShardRanges} does so from the shard's Lease, or
 * call {@link #serve(RangeSet, RangeKey)}. A change starts a fabric8 informer with the new selector;
 * while it lists, the one before answers reads of what it has not listed yet (restricted to the new
 * ranges at once), and is stopped once it has. Handlers see nothing more of the dropped ranges, and of the kept ones
 * only what changed: the new list's objects that the previous informer held at the same
 * resourceVersion are not added again, so a handover reconciles the moved objects only. Thread-safe.
 *
 * @param <T> the resource type
 */
public final class RangeInformer<T extends HasMetadata> implements RangeTarget, AutoCloseable {

    /** What the server did with the shard selector. */
    public enum ServerFiltering {
        /** Not found out yet (nothing served so far, or the probe failed). */
        UNKNOWN,
        /** The server applied the selector: the list's {@code metadata.shardInfo} echoed it. */
        APPLIED,
        /** The server ignored it (older server, gate off): only the client-side filter restricts the cache. */
        IGNORED
    }

    private static final Logger LOG = LoggerFactory.getLogger(RangeInformer.class);
    static final String INTERCEPTOR = "ringmaster-shard-selector";

    private final KubernetesClient client;
    private final boolean ownsClient;
    private final ShardSelectorInterceptor interceptor;
    private final Function<KubernetesClient, FilterWatchListDeletable<T, ? extends KubernetesResourceList<T>, ?>> operation;
    private final String name;
    private final List<ResourceEventHandler<? super T>> handlers = new CopyOnWriteArrayList<>();
    private final List<Supplier<? extends Collection<? extends HasMetadata>>> running = new CopyOnWriteArrayList<>();
    private final Store<T> store = new View();
    /** What is served, swapped whole: a read sees one state, never one half-way through a change. */
    private volatile Serving<T> serving = new Serving<>(RangeSet.EMPTY, RangeKey.UID, null, null);
    /** The version of each object the handlers were last given, and its hash: what a new list need not add again. */
    private final Map<String, Delivered> delivered = new ConcurrentHashMap<>();

    private record Delivered(String resourceVersion, long hash) {
    }

    /**
     * The ranges served and the informers serving them: {@code informer} lists and watches them (null
     * when nothing is served); {@code previous}, the last informer that had listed, answers reads of
     * what {@code informer} has not listed yet.
     */
    private record Serving<T>(RangeSet ranges, RangeKey key, SharedIndexInformer<T> informer,
                              SharedIndexInformer<T> previous) {

        /** The informers to read, the one listing first: {@code previous} only while {@code informer} has not listed. */
        List<SharedIndexInformer<T>> readable() {
            if (informer == null) {
                return List.of();
            }
            return informer.hasSynced() || previous == null ? List.of(informer) : List.of(informer, previous);
        }

        boolean holds(HasMetadata object) {
            return inRanges(object, ranges, key);
        }
    }
    private volatile ServerFiltering serverFiltering = ServerFiltering.UNKNOWN;
    private boolean closed;

    /**
     * An informer over {@code operation} of the resource {@code group/version/plural}.
     *
     * @param client    whose configuration the informer's own client (with the selector interceptor) is
     *                  made from; not used otherwise
     * @param group     the API group of the resource, empty for the core group
     * @param version   its version, e.g. {@code v1}
     * @param plural    its plural name, e.g. {@code configmaps}
     * @param operation the collection to list and watch on the given client, e.g.
     *                  {@code c -> c.configMaps().inAnyNamespace()}
     */
    public static <T extends HasMetadata> RangeInformer<T> of(KubernetesClient client, String group, String version,
            String plural, Function<KubernetesClient, FilterWatchListDeletable<T, ? extends KubernetesResourceList<T>, ?>> operation) {
        ShardSelectorInterceptor interceptor = new ShardSelectorInterceptor(group, version, plural);
        KubernetesClient own = new KubernetesClientBuilder().withConfig(client.getConfiguration())
                .withHttpClientBuilderConsumer(builder -> builder.addOrReplaceInterceptor(INTERCEPTOR, interceptor))
                .build();
        return new RangeInformer<>(own, true, interceptor, operation, plural);
    }

    /** The same for a typed resource: group, version and plural from {@code type}. */
    public static <T extends HasMetadata> RangeInformer<T> of(KubernetesClient client, Class<T> type,
            Function<KubernetesClient, FilterWatchListDeletable<T, ? extends KubernetesResourceList<T>, ?>> operation) {
        return of(client, HasMetadata.getGroup(type), HasMetadata.getVersion(type), HasMetadata.getPlural(type), operation);
    }

    RangeInformer(KubernetesClient client, boolean ownsClient, ShardSelectorInterceptor interceptor,
                  Function<KubernetesClient, FilterWatchListDeletable<T, ? extends KubernetesResourceList<T>, ?>> operation,
                  String name) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.interceptor = interceptor;
        this.operation = Objects.requireNonNull(operation, "operation");
        this.name = name;
    }

    /** Whether an object with this uid and namespace lies in {@code ranges} of {@code key}: the client-side filter. */
    static boolean inRanges(HasMetadata object, RangeSet ranges, RangeKey key) {
        if (object == null || object.getMetadata() == null || ranges.isEmpty()) {
            return false;
        }
        return ranges.contains(key.hash(object.getMetadata().getUid(), object.getMetadata().getNamespace()));
    }

    /** Whether this informer serves {@code object} now. */
    public boolean serves(HasMetadata object) {
        return serving.holds(object);
    }

    /** The ranges served now. */
    public RangeSet ranges() {
        return serving.ranges();
    }

    /** The key the ranges hash. */
    public RangeKey key() {
        return serving.key();
    }

    /** What the server did with the selector, found at the first list with a non-empty set. */
    public ServerFiltering serverFiltering() {
        return serverFiltering;
    }

    /** The cached objects in the ranges served now; empty while nothing is served. */
    public Store<T> getStore() {
        return store;
    }

    /** Whether the current fabric8 informer has synced its first list (true while nothing is served). */
    public boolean hasSynced() {
        SharedIndexInformer<T> now = serving.informer();
        return now == null || now.hasSynced();
    }

    /** Adds a handler; it is told of the objects cached now at once, then of the events in the ranges served. */
    public void addEventHandler(ResourceEventHandler<? super T> handler) {
        handlers.add(Objects.requireNonNull(handler, "handler"));
        store.list().forEach(handler::onAdd);
    }

    public void removeEventHandler(ResourceEventHandler<? super T> handler) {
        handlers.remove(handler);
    }

    /**
     * Adds a source of the objects being reconciled now ({@link ShardedReconciler} adds itself): a
     * shrink of the served ranges is acknowledged only when none of them lies outside the new ranges.
     */
    void addRunning(Supplier<? extends Collection<? extends HasMetadata>> reconciling) {
        running.add(reconciling);
    }

    void removeRunning(Supplier<? extends Collection<? extends HasMetadata>> reconciling) {
        running.remove(reconciling);
    }

    @Override
    public boolean busyOutside(RangeSet ranges, RangeKey key) {
        for (Supplier<? extends Collection<? extends HasMetadata>> source : running) {
            for (HasMetadata object : source.get()) {
                if (!inRanges(object, ranges, key)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Serves exactly {@code ranges} from now on: unless the set is empty, starts an informer listing and
     * watching with their selector, and stops the running one. No effect if they are served already.
     * Reads and events see the state before or after, never one in between: when this returns, nothing
     * of the dropped ranges is read or reconciled any more (a shrink then waits for what runs already).
     */
    @Override
    public synchronized void serve(RangeSet ranges, RangeKey key) {
        Objects.requireNonNull(ranges, "ranges");
        Objects.requireNonNull(key, "key");
        Serving<T> before = serving;
        if (closed || ranges.equals(before.ranges()) && key == before.key()) {
            return;
        }
        SharedIndexInformer<T> old = before.informer();
        SharedIndexInformer<T> readable = old != null && old.hasSynced() ? old : before.previous();
        if (key != before.key()) {
            delivered.clear(); // hashes of another key
        }
        Map<String, String> known = deliveredIn(ranges);
        if (ranges.isEmpty()) {
            serving = new Serving<>(ranges, key, null, null);
            stop(old);
            if (readable != old) {
                stop(readable);
            }
            interceptor.selector(null);
            LOG.info("Range informer {}: serving nothing", name);
            return;
        }
        interceptor.selector(ranges.selector(key));
        if (serverFiltering == ServerFiltering.UNKNOWN) {
            detect();
        }
        SharedIndexInformer<T> started = operation.apply(client).runnableInformer(0);
        // fabric8 gives up when the first list fails (a 403, a busy API server): the ranges would go unserved
        started.exceptionHandler((wasStarted, failure) -> {
            LOG.warn("Range informer {}: listing or watching {} failed, retrying: {}", name, ranges, failure.toString());
            return true;
        });
        started.addEventHandler(new Filtering(started, ranges, key, known));
        serving = new Serving<>(ranges, key, started, readable);
        if (old != readable) {
            stop(old); // had not listed: the one before it still answers reads
        }
        // not on the informer's own thread: serve() may be stopping that informer while holding the lock
        started.start().thenRunAsync(() -> retirePrevious(started));
        LOG.info("Range informer {}: serving {} of {} ({})", name, ranges, key.field(), serverFiltering == ServerFiltering.APPLIED
                ? "the server filters" : "filtered here; the server ignores the selector");
    }

    /**
     * The versions the handlers were given of objects in {@code ranges}, and forgets the others. Only what was
     * delivered counts: an informer's store is ahead of its handlers, whose queued events a swap drops.
     */
    private Map<String, String> deliveredIn(RangeSet ranges) {
        delivered.values().removeIf(object -> !ranges.contains(object.hash()));
        Map<String, String> versions = new ConcurrentHashMap<>();
        delivered.forEach((objectKey, object) -> versions.put(objectKey, object.resourceVersion()));
        return versions;
    }

    /** {@code started} has listed: the informer before it is no longer read. */
    private synchronized void retirePrevious(SharedIndexInformer<T> started) {
        Serving<T> now = serving;
        if (now.informer() == started && now.previous() != null) {
            serving = new Serving<>(now.ranges(), now.key(), started, null);
            stop(now.previous());
        }
    }

    private static void stop(SharedIndexInformer<?> informer) {
        if (informer != null) {
            informer.stop();
        }
    }

    /** Lists one object with the selector: the server applied it iff the list's {@code metadata.shardInfo.selector} is set. */
    private void detect() {
        try {
            KubernetesResourceList<T> list = operation.apply(client).list(new ListOptionsBuilder().withLimit(1L).build());
            ListMeta meta = list.getMetadata();
            Map<String, Object> extra = meta == null ? null : meta.getAdditionalProperties();
            boolean echoed = meta != null && meta.getShardInfo() != null && meta.getShardInfo().getSelector() != null
                    || extra != null && extra.get("shardInfo") != null;
            serverFiltering = echoed ? ServerFiltering.APPLIED : ServerFiltering.IGNORED;
            if (serverFiltering == ServerFiltering.APPLIED) {
                LOG.info("Range informer {}: the API server applies the shard selector (KEP-5866)", name);
            } else {
                LOG.info("Range informer {}: the API server ignores the shard selector (older than v1.36 or the"
                        + " ShardedListAndWatch gate off); objects are filtered by the client", name);
            }
        } catch (RuntimeException e) {
            LOG.warn("Range informer {}: could not find out whether the server applies the shard selector: {}", name, e.toString());
        }
    }

    /** Stops the informer and, if it made its client, closes that. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Serving<T> last = serving;
        serving = new Serving<>(RangeSet.EMPTY, last.key(), null, null);
        stop(last.informer());
        stop(last.previous());
        if (ownsClient) {
            client.close();
        }
    }

    /** Passes on the events of one fabric8 informer, while it is the current one, of the objects in its ranges. */
    private final class Filtering implements ResourceEventHandler<T> {

        private final SharedIndexInformer<T> source;
        private final RangeSet set;
        private final RangeKey setKey;
        /** The versions the handlers saw through the informer before: its first list adds only what differs. */
        private final Map<String, String> known;

        Filtering(SharedIndexInformer<T> source, RangeSet set, RangeKey setKey, Map<String, String> known) {
            this.source = source;
            this.set = set;
            this.setKey = setKey;
            this.known = known;
        }

        private boolean pass(T object) {
            return serving.informer() == source && inRanges(object, set, setKey);
        }

        private boolean seenBefore(T object) {
            String version = known.isEmpty() ? null : known.remove(Cache.metaNamespaceKeyFunc(object));
            return version != null && version.equals(object.getMetadata().getResourceVersion());
        }

        @Override
        public void onAdd(T object) {
            if (pass(object) && !seenBefore(object)) {
                handlers.forEach(handler -> handler.onAdd(object));
                remember(object);
            }
        }

        @Override
        public void onUpdate(T oldObject, T newObject) {
            if (pass(newObject)) {
                handlers.forEach(handler -> handler.onUpdate(oldObject, newObject));
                remember(newObject);
            }
        }

        @Override
        public void onDelete(T object, boolean deletedFinalStateUnknown) {
            if (pass(object)) {
                handlers.forEach(handler -> handler.onDelete(object, deletedFinalStateUnknown));
                delivered.remove(Cache.metaNamespaceKeyFunc(object));
            }
        }

        /** After the handlers had it: a version recorded here was certainly delivered. */
        private void remember(T object) {
            delivered.put(Cache.metaNamespaceKeyFunc(object), new Delivered(object.getMetadata().getResourceVersion(),
                    setKey.hash(object.getMetadata().getUid(), object.getMetadata().getNamespace())));
        }
    }

    /** The current informer's store, restricted to the served ranges. */
    private final class View implements Store<T> {

        /** The current informer's objects; while it lists, those of the one before it that it has not listed yet. */
        @Override
        public List<T> list() {
            Serving<T> now = serving;
            Map<String, T> objects = new LinkedHashMap<>();
            for (SharedIndexInformer<T> source : now.readable()) {
                source.getStore().list().forEach(object -> objects.putIfAbsent(Cache.metaNamespaceKeyFunc(object), object));
            }
            return objects.values().stream().filter(now::holds).toList();
        }

        @Override
        public List<String> listKeys() {
            return list().stream().map(Cache::metaNamespaceKeyFunc).toList();
        }

        @Override
        public T get(T object) {
            return getByKey(Cache.metaNamespaceKeyFunc(object));
        }

        @Override
        public T getByKey(String objectKey) {
            Serving<T> now = serving;
            for (SharedIndexInformer<T> source : now.readable()) {
                T object = source.getStore().getByKey(objectKey);
                if (object != null) {
                    return now.holds(object) ? object : null;
                }
            }
            return null;
        }

        @Override
        public String getKey(T object) {
            return Cache.metaNamespaceKeyFunc(object);
        }
    }
}
