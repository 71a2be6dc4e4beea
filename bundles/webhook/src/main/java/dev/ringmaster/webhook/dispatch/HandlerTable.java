package dev.ringmaster.webhook.dispatch;

import dev.ringmaster.ring.spi.AdmissionHandler;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * An immutable snapshot of the admission handlers by path prefix. The server swaps in a new table
 * whenever a handler service comes or goes, so a request always sees one consistent set.
 */
public final class HandlerTable {

    private record Route(String prefix, AdmissionHandler handler) {
    }

    private static final HandlerTable EMPTY = new HandlerTable(List.of());

    /** Longest prefix first, so the first match is the most specific. */
    private final List<Route> routes;

    private HandlerTable(List<Route> routes) {
        this.routes = routes;
    }

    public static HandlerTable empty() {
        return EMPTY;
    }

    /** A table that also serves {@code prefix}; a handler already registered there keeps it. */
    public HandlerTable with(String prefix, AdmissionHandler handler) {
        if (prefix == null || !prefix.startsWith("/")) {
            throw new IllegalArgumentException("a handler path prefix must start with '/', got " + prefix);
        }
        if (routes.stream().anyMatch(route -> route.prefix.equals(prefix))) {
            return this;
        }
        List<Route> next = new ArrayList<>(routes);
        next.add(new Route(prefix, handler));
        next.sort(Comparator.comparingInt((Route route) -> route.prefix.length()).reversed());
        return new HandlerTable(List.copyOf(next));
    }

    /** A table without the handler, wherever it is registered. */
    public HandlerTable without(AdmissionHandler handler) {
        List<Route> next = routes.stream().filter(route -> route.handler != handler).toList();
        return next.size() == routes.size() ? this : new HandlerTable(next);
    }

    /** The handler of the longest registered prefix of {@code path}, if any. */
    public Optional<AdmissionHandler> handlerFor(String path) {
        return routes.stream().filter(route -> path.startsWith(route.prefix)).findFirst().map(Route::handler);
    }

    public int size() {
        return routes.size();
    }
}
