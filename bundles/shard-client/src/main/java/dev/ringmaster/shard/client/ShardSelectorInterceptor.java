package dev.ringmaster.shard.client;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Adds the KEP-5866 query parameter {@code shardSelector=<selector>} to the list and watch requests of
 * one resource's collection ({@code GET /api/v1/configmaps}, {@code GET /api/v1/namespaces/ns/configmaps},
 * {@code GET /apis/<group>/<version>/...}), which fabric8 7.9.0 cannot send itself. Other requests
 * (gets by name, writes, other resources) pass unchanged. The selector can change at any time
 * ({@link #selector(String)}); null sends none. Thread-safe.
 */
public final class ShardSelectorInterceptor implements Interceptor {

    /** The query parameter of KEP-5866. */
    static final String PARAMETER = "shardSelector";

    private final Pattern collection;
    private volatile String selector;

    /**
     * @param group   the API group, empty or null for the core group
     * @param version e.g. {@code v1}
     * @param plural  the resource, e.g. {@code configmaps}
     */
    public ShardSelectorInterceptor(String group, String version, String plural) {
        String api = group == null || group.isEmpty() ? "/api/" + Pattern.quote(version)
                : "/apis/" + Pattern.quote(group) + "/" + Pattern.quote(version);
        this.collection = Pattern.compile(api + "(/namespaces/[^/]+)?/" + Pattern.quote(plural) + "/?");
    }

    /** The selector to send from now on; null for none. */
    public void selector(String selector) {
        this.selector = selector;
    }

    public String selector() {
        return selector;
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        URI rewritten = rewrite(request.method(), request.uri(), selector);
        if (rewritten != request.uri()) {
            builder.uri(rewritten);
        }
    }

    /** The URI with the selector added (any earlier one replaced), or {@code uri} itself if not to be changed. */
    URI rewrite(String method, URI uri, String selector) {
        if (selector == null || !"GET".equalsIgnoreCase(method) || uri.getRawPath() == null
                || !collection.matcher(uri.getRawPath()).matches()) {
            return uri;
        }
        StringBuilder query = new StringBuilder();
        String raw = uri.getRawQuery();
        if (raw != null && !raw.isEmpty()) {
            for (String part : raw.split("&")) {
                if (!part.isEmpty() && !part.equals(PARAMETER) && !part.startsWith(PARAMETER + "=")) {
                    query.append(query.length() == 0 ? "" : "&").append(part);
                }
            }
        }
        query.append(query.length() == 0 ? "" : "&").append(PARAMETER).append('=').append(encode(selector));
        String text = uri.toString();
        int cut = text.indexOf('?');
        int fragment = text.indexOf('#');
        String base = cut >= 0 ? text.substring(0, cut) : fragment >= 0 ? text.substring(0, fragment) : text;
        return URI.create(base + "?" + query);
    }

    /** Percent-encoding for a query value; a space is {@code %20}, not {@code +}. */
    static String encode(String value) {
        return URLEncoder.encode(Objects.requireNonNull(value, "value"), StandardCharsets.UTF_8).replace("+", "%20");
    }
}
