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

    /** Name used for handlers registered without one. */
    public static final String UNNAMED = "unnamed";

    /**
     * One path prefix and the handler serving it.
     *
     * @param name the handler's {@value AdmissionHandler#NAME} service property, a metric tag
     */
    public record Route(String prefix, String name, AdmissionHandler handler) {
    }

    private static final HandlerTable EMPTY = new HandlerTable(new Route[0]);

    /** Longest prefix first, so the first match is the most specific. An array: read on every request. */
    private final Route[] routes;

    private HandlerTable(Route[] routes) {
        this.routes = routes;
    }

    public static HandlerTable empty() {
        return EMPTY;
    }

    /** A table that also serves {@code prefix}; a handler already registered there keeps it. */
    public HandlerTable with(String prefix, AdmissionHandler handler) {
        return with(prefix, UNNAMED, handler);
    }

    /** A table that also serves {@code prefix} by the handler named {@code name}; a handler already there keeps it. */
    public HandlerTable with(String prefix, String name, AdmissionHandler handler) {
        if (prefix == null || !prefix.startsWith("/")) {
            throw new IllegalArgumentException("a handler path prefix must start with '/', got " + prefix);
        }
        for (Route route : routes) {
            if (route.prefix.equals(prefix)) {
                return this;
            }
        }
        List<Route> next = new ArrayList<>(List.of(routes));
        next.add(new Route(prefix, name == null || name.isBlank() ? UNNAMED : name, handler));
        next.sort(Comparator.comparingInt((Route route) -> route.prefix.length()).reversed());
        return new HandlerTable(next.toArray(Route[]::new));
    }

    /** A table without the handler, wherever it is registered. */
    public HandlerTable without(AdmissionHandler handler) {
        Route[] next = List.of(routes).stream().filter(route -> route.handler != handler).toArray(Route[]::new);
        return next.length == routes.length ? this : new HandlerTable(next);
    }

    /**
     * The route of the longest registered prefix of {@code path}, if any. A prefix that ends in a slash
     * also serves the path without it: the API server drops the trailing slash of a webhook's
     * configured path ({@code /webhooks/label-guard/} arrives as {@code /webhooks/label-guard}).
     */
    public Optional<Route> routeFor(String path) {
        for (Route route : routes) {
            if (path.startsWith(route.prefix) || route.prefix.equals(path + "/")) {
                return Optional.of(route);
            }
        }
        return Optional.empty();
    }

    /** The handler of the longest registered prefix of {@code path}, if any. */
    public Optional<AdmissionHandler> handlerFor(String path) {
        return routeFor(path).map(Route::handler);
    }

    /** The prefixes served, longest first. */
    public List<String> prefixes() {
        return List.of(routes).stream().map(Route::prefix).toList();
    }

    public int size() {
        return routes.length;
    }
}
