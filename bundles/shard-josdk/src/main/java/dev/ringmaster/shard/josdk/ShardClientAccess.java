package dev.ringmaster.shard.josdk;

import dev.ringmaster.ring.ranges.RangeKey;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.shard.client.ShardRanges;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The two pieces of shard-client's range mode that shard-client 0.4.0 keeps package-private, reached
 * by reflection until they are public: {@code ShardRanges.add(RangeTarget)} with the interface
 * {@code RangeTarget} (a JOSDK controller is not a {@code RangeInformer}, the only target
 * {@link ShardRanges#register} takes), and {@code ShardSelectorInterceptor} (the {@code shardSelector}
 * query parameter on one resource's list and watch). Works on a plain class path and in OSGi (no
 * module boundary); should shard-client make them public, the same lookups find the public members.
 */
final class ShardClientAccess {

    private static final String PACKAGE = "dev.ringmaster.shard.client.";

    private ShardClientAccess() {
    }

    /** What a {@code RangeTarget} does: serve the ranges handed over, tell whether a reconcile outside runs. */
    interface Target {
        void serve(RangeSet ranges, RangeKey key);

        boolean busyOutside(RangeSet ranges, RangeKey key);
    }

    /** Registers {@code target} with {@code ranges} as a {@code RangeTarget}: it is served the shard's ranges from now on. */
    static void add(ShardRanges ranges, Target target) {
        try {
            ClassLoader loader = ShardRanges.class.getClassLoader();
            Class<?> type = Class.forName(PACKAGE + "RangeTarget", false, loader);
            Object proxy = Proxy.newProxyInstance(loader, new Class<?>[] {type}, (self, method, args) -> switch (method.getName()) {
                case "serve" -> {
                    target.serve((RangeSet) args[0], (RangeKey) args[1]);
                    yield null;
                }
                case "busyOutside" -> target.busyOutside((RangeSet) args[0], (RangeKey) args[1]);
                case "equals" -> self == args[0];
                case "hashCode" -> System.identityHashCode(self);
                case "toString" -> "RangeTarget(" + target + ")";
                default -> throw new UnsupportedOperationException(method.toString());
            });
            Method add = ShardRanges.class.getDeclaredMethod("add", type);
            add.setAccessible(true);
            add.invoke(ranges, proxy);
        } catch (InvocationTargetException e) {
            throw rethrow(e);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("shard-client's ShardRanges.add(RangeTarget) is not reachable: " + e, e);
        }
    }

    /** A {@code ShardSelectorInterceptor} for the resource {@code group/version/plural}, its selector settable. */
    static Selector selector(String group, String version, String plural) {
        try {
            Class<?> type = Class.forName(PACKAGE + "ShardSelectorInterceptor", false, ShardRanges.class.getClassLoader());
            Constructor<?> constructor = type.getDeclaredConstructor(String.class, String.class, String.class);
            constructor.setAccessible(true);
            Method set = type.getDeclaredMethod("selector", String.class);
            set.setAccessible(true);
            return new Selector((Interceptor) constructor.newInstance(group, version, plural), set);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("shard-client's ShardSelectorInterceptor is not reachable: " + e, e);
        }
    }

    private static RuntimeException rethrow(InvocationTargetException e) {
        return e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
    }

    /** One resource's {@code shardSelector}, sent on its collection's lists and watches while set. */
    static final class Selector {

        private final Interceptor interceptor;
        private final Method set;

        private Selector(Interceptor interceptor, Method set) {
            this.interceptor = interceptor;
            this.set = set;
        }

        /** The selector to send from now on; null for none. */
        void set(String selector) {
            try {
                set.invoke(interceptor, selector);
            } catch (InvocationTargetException e) {
                throw rethrow(e);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * The operator client's one interceptor: the {@link Selector}s of the controllers registered so far
     * (each changes only its own resource's collection requests).
     */
    static final class Selectors implements Interceptor {

        private final List<Selector> selectors = new CopyOnWriteArrayList<>();

        void add(Selector selector) {
            selectors.add(selector);
        }

        @Override
        public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
            for (Selector selector : selectors) {
                selector.interceptor.before(builder, request, tags);
            }
        }
    }
}
