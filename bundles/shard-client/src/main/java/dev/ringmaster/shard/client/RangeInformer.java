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
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * call {@link #serve(RangeSet, RangeKey)}. A change stops the running fabric8 informer and starts one
 * with the new selector; handlers then see the new set's objects added again (level-based
 * reconcilers do not mind) and nothing more of the dropped ones. Thread-safe.
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
    private volatile RangeSet ranges = RangeSet.EMPTY;
    private volatile RangeKey key = RangeKey.UID;
    private volatile SharedIndexInformer<T> informer;
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
        return inRanges(object, ranges, key);
    }

    /** The ranges served now. */
    public RangeSet ranges() {
        return ranges;
    }

    /** The key the ranges hash. */
    public RangeKey key() {
        return key;
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
        SharedIndexInformer<T> now = informer;
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
     * Serves exactly {@code ranges} from now on: stops the running informer and, unless the set is
     * empty, starts one listing and watching with their selector. No effect if they are served already.
     */
    @Override
    public synchronized void serve(RangeSet ranges, RangeKey key) {
        Objects.requireNonNull(ranges, "ranges");
        Objects.requireNonNull(key, "key");
        if (closed || ranges.equals(this.ranges) && key == this.key) {
            return;
        }
        SharedIndexInformer<T> old = informer;
        informer = null;
        this.key = key;
        this.ranges = ranges;
        if (old != null) {
            old.stop();
        }
        if (ranges.isEmpty()) {
            interceptor.selector(null);
            LOG.info("Range informer {}: serving nothing", name);
            return;
        }
        interceptor.selector(ranges.selector(key));
        if (serverFiltering == ServerFiltering.UNKNOWN) {
            detect();
        }
        SharedIndexInformer<T> started = operation.apply(client).runnableInformer(0);
        started.addEventHandler(new Filtering(started, ranges, key));
        informer = started;
        started.start();
        LOG.info("Range informer {}: serving {} of {} ({})", name, ranges, key.field(), serverFiltering == ServerFiltering.APPLIED
                ? "the server filters" : "filtered here; the server ignores the selector");
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
        SharedIndexInformer<T> old = informer;
        informer = null;
        ranges = RangeSet.EMPTY;
        if (old != null) {
            old.stop();
        }
        if (ownsClient) {
            client.close();
        }
    }

    /** Passes on the events of one fabric8 informer, while it is the current one, of the objects in its ranges. */
    private final class Filtering implements ResourceEventHandler<T> {

        private final SharedIndexInformer<T> source;
        private final RangeSet set;
        private final RangeKey setKey;

        Filtering(SharedIndexInformer<T> source, RangeSet set, RangeKey setKey) {
            this.source = source;
            this.set = set;
            this.setKey = setKey;
        }

        private boolean pass(T object) {
            return informer == source && inRanges(object, set, setKey);
        }

        @Override
        public void onAdd(T object) {
            if (pass(object)) {
                handlers.forEach(handler -> handler.onAdd(object));
            }
        }

        @Override
        public void onUpdate(T oldObject, T newObject) {
            if (pass(newObject)) {
                handlers.forEach(handler -> handler.onUpdate(oldObject, newObject));
            }
        }

        @Override
        public void onDelete(T object, boolean deletedFinalStateUnknown) {
            if (pass(object)) {
                handlers.forEach(handler -> handler.onDelete(object, deletedFinalStateUnknown));
            }
        }
    }

    /** The current informer's store, restricted to the served ranges. */
    private final class View implements Store<T> {

        @Override
        public List<T> list() {
            SharedIndexInformer<T> now = informer;
            RangeSet set = ranges;
            RangeKey setKey = key;
            return now == null ? List.of() : now.getStore().list().stream().filter(o -> inRanges(o, set, setKey)).toList();
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
            SharedIndexInformer<T> now = informer;
            T object = now == null ? null : now.getStore().getByKey(objectKey);
            return inRanges(object, ranges, key) ? object : null;
        }

        @Override
        public String getKey(T object) {
            return Cache.metaNamespaceKeyFunc(object);
        }
    }
}
