package dev.ringmaster.webhook.dispatch;

import dev.ringmaster.ring.spi.AdmissionHandler;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admission handler services currently bound, and the {@link HandlerTable} they make. Every
 * change rebuilds the table from all bindings, in service ranking order (then registration order),
 * so when two handlers claim one prefix the first keeps it and the other takes over once the first
 * goes. Requests read {@link #table()} without locking.
 */
public final class HandlerWhiteboard {

    private static final Logger LOG = LoggerFactory.getLogger(HandlerWhiteboard.class);
    private static final String SERVICE_RANKING = "service.ranking";
    private static final String SERVICE_ID = "service.id";

    private record Binding(String name, List<String> prefixes, int ranking, long serviceId) {
    }

    private final Map<AdmissionHandler, Binding> bindings = new IdentityHashMap<>();
    private volatile HandlerTable table = HandlerTable.empty();

    /** The handlers now, as one consistent snapshot. */
    public HandlerTable table() {
        return table;
    }

    /** Adds a handler service, or replaces its binding when its properties changed. */
    public synchronized void bind(AdmissionHandler handler, Map<String, ?> properties) {
        Binding binding = binding(properties);
        if (binding.prefixes().isEmpty()) {
            LOG.warn("admission handler {} ({}) has no usable {} service property: it serves no path",
                    binding.name(), handler.getClass().getName(), AdmissionHandler.PATH_PREFIX);
        }
        bindings.put(handler, binding);
        rebuild();
        LOG.info("admission handler {} serves {}", binding.name(), binding.prefixes());
    }

    public synchronized void unbind(AdmissionHandler handler) {
        Binding removed = bindings.remove(handler);
        if (removed != null) {
            rebuild();
            LOG.info("admission handler {} no longer serves {}", removed.name(), removed.prefixes());
        }
    }

    private void rebuild() {
        List<Map.Entry<AdmissionHandler, Binding>> ordered = new ArrayList<>(bindings.entrySet());
        ordered.sort(Comparator.comparingInt((Map.Entry<AdmissionHandler, Binding> entry) -> -entry.getValue().ranking())
                .thenComparingLong(entry -> entry.getValue().serviceId()));
        HandlerTable next = HandlerTable.empty();
        for (Map.Entry<AdmissionHandler, Binding> entry : ordered) {
            for (String prefix : entry.getValue().prefixes()) {
                HandlerTable with = next.with(prefix, entry.getValue().name(), entry.getKey());
                if (with == next) {
                    LOG.warn("admission handler {} cannot serve {}: another handler with a higher ranking serves it",
                            entry.getValue().name(), prefix);
                }
                next = with;
            }
        }
        table = next;
    }

    private static Binding binding(Map<String, ?> properties) {
        Object name = properties.get(AdmissionHandler.NAME);
        List<String> prefixes = new ArrayList<>();
        for (String prefix : strings(properties.get(AdmissionHandler.PATH_PREFIX))) {
            if (prefix.startsWith("/")) {
                prefixes.add(prefix);
            } else {
                LOG.warn("ignoring admission handler path prefix '{}' of {}: it must start with '/'", prefix, name);
            }
        }
        Object ranking = properties.get(SERVICE_RANKING);
        Object id = properties.get(SERVICE_ID);
        return new Binding(name == null ? HandlerTable.UNNAMED : String.valueOf(name), List.copyOf(prefixes),
                ranking instanceof Integer value ? value : 0,
                id instanceof Number value ? value.longValue() : Long.MAX_VALUE);
    }

    /** A String, String[] or collection of Strings property as a list. */
    private static List<String> strings(Object value) {
        if (value instanceof String text) {
            return List.of(text);
        }
        if (value instanceof String[] texts) {
            return List.of(texts);
        }
        if (value instanceof Collection<?> collection) {
            return collection.stream().map(String::valueOf).toList();
        }
        return List.of();
    }
}
