package dev.ringmaster.metrics.auth;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a request may read a non-resource URL such as {@code /metrics}, the way
 * controller-runtime's {@code filters.WithAuthenticationAndAuthorization} and kube-rbac-proxy do: the
 * bearer token must be accepted by a TokenReview, and a SubjectAccessReview for the user it names must
 * allow the request's verb ({@code get}) on the path. The API server decides both; nothing is trusted
 * locally.
 *
 * <ul>
 *   <li>no {@code Authorization: Bearer} token, or a token the TokenReview does not accept: 401;</li>
 *   <li>a user the SubjectAccessReview does not allow: 403;</li>
 *   <li>the API server does not answer within the review timeout, or refuses the review itself (the
 *       sharder may not create TokenReviews or SubjectAccessReviews): 503, never the metrics, with a
 *       warning that says why.</li>
 * </ul>
 *
 * <p>Decisions are cached per token (its SHA-256, not the token), verb and path: allowed ones for
 * {@code allowTtl}, 401 and 403 for {@code denyTtl}, failures not at all; at most {@code maxEntries},
 * the least recently used go first. A scraper every 15 to 30 s with the same token thus costs two API
 * calls per {@code allowTtl}. controller-runtime caches 1 min (authentication), 5 min (allowed) and
 * 30 s (denied); the defaults here are shorter so that a revoked binding stops scrapes within a minute.
 */
final class KubernetesAuthorizer {

    /** An answer to a request: its HTTP status, one line for the client, and the user if one was authenticated. */
    record Decision(int status, String message, String user) {

        boolean allowed() {
            return status == 200;
        }
    }

    /** How long decisions are kept, how many, and how long a review may take. */
    record Settings(Duration allowTtl, Duration denyTtl, int maxEntries, Duration reviewTimeout) {

        Settings {
            Objects.requireNonNull(allowTtl, "allowTtl");
            Objects.requireNonNull(denyTtl, "denyTtl");
            Objects.requireNonNull(reviewTimeout, "reviewTimeout");
            if (allowTtl.isNegative() || denyTtl.isNegative()) {
                throw new IllegalArgumentException("cache TTLs must not be negative");
            }
            if (maxEntries < 0) {
                throw new IllegalArgumentException("maxEntries must not be negative, got " + maxEntries);
            }
            if (reviewTimeout.isNegative() || reviewTimeout.isZero()) {
                throw new IllegalArgumentException("reviewTimeout must be positive, got " + reviewTimeout);
            }
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(KubernetesAuthorizer.class);
    private static final String BEARER = "bearer ";

    private final Supplier<KubernetesClient> client;
    private final Settings settings;
    private final Clock clock;
    private final ExecutorService reviews;
    /** Access-ordered: the eldest entry is the least recently used. Guarded by itself. */
    private final LinkedHashMap<String, Cached> cache = new LinkedHashMap<>(16, 0.75f, true);

    private record Cached(Decision decision, Instant until) {
    }

    /**
     * @param client  the client the reviews are created with, asked on every review (empty: 503)
     * @param reviews runs the reviews, so that a request waits at most the review timeout for them
     */
    KubernetesAuthorizer(Supplier<KubernetesClient> client, Settings settings, Clock clock, ExecutorService reviews) {
        this.client = Objects.requireNonNull(client, "client");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.reviews = Objects.requireNonNull(reviews, "reviews");
    }

    /**
     * The decision for a request.
     *
     * @param authorization the request's {@code Authorization} header, null when it has none
     * @param method        the HTTP method; its lower case is the verb reviewed ({@code GET}: {@code get})
     * @param path          the request's path, reviewed as the non-resource URL
     */
    Decision decide(String authorization, String method, String path) {
        String token = bearerToken(authorization);
        if (token == null) {
            return new Decision(401, "Unauthorized: send a Kubernetes bearer token (Authorization: Bearer <token>)", null);
        }
        String verb = method.toLowerCase(Locale.ROOT);
        String key = sha256(token) + " " + verb + " " + path;
        Instant now = clock.instant();
        synchronized (cache) {
            Cached cached = cache.get(key);
            if (cached != null && now.isBefore(cached.until())) {
                return cached.decision();
            }
            if (cached != null) {
                cache.remove(key);
            }
        }
        Decision decision;
        try {
            decision = review(token, verb, path);
        } catch (ReviewFailed e) {
            LOG.warn("metrics: cannot authorize a {} {} request, answering 503: {}", method, path, e.getMessage());
            return new Decision(503, "Service Unavailable: the API server could not review the request's token", null);
        }
        Duration ttl = decision.allowed() ? settings.allowTtl() : settings.denyTtl();
        if (!ttl.isZero() && settings.maxEntries() > 0) {
            synchronized (cache) {
                cache.put(key, new Cached(decision, now.plus(ttl)));
                while (cache.size() > settings.maxEntries()) {
                    cache.remove(cache.keySet().iterator().next());
                }
            }
        }
        return decision;
    }

    /** Forgets every decision (a configuration change). */
    void clear() {
        synchronized (cache) {
            cache.clear();
        }
    }

    /** How many decisions are cached now. */
    int cached() {
        synchronized (cache) {
            return cache.size();
        }
    }

    private Decision review(String token, String verb, String path) throws ReviewFailed {
        TokenReview authentication = call("TokenReview", kubernetes -> kubernetes.authentication().v1().tokenReviews()
                .create(new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build()));
        if (authentication.getStatus() == null || !Boolean.TRUE.equals(authentication.getStatus().getAuthenticated())) {
            String error = authentication.getStatus() == null ? null : authentication.getStatus().getError();
            LOG.debug("metrics: token not accepted by the TokenReview{}", error == null ? "" : ": " + error);
            return new Decision(401, "Unauthorized: the API server does not accept the token", null);
        }
        UserInfo user = authentication.getStatus().getUser();
        String name = user == null ? null : user.getUsername();
        if (name == null || name.isEmpty()) {
            return new Decision(401, "Unauthorized: the TokenReview names no user", null);
        }
        SubjectAccessReview access = call("SubjectAccessReview", kubernetes -> kubernetes.authorization().v1()
                .subjectAccessReview().create(new SubjectAccessReviewBuilder().withNewSpec()
                        .withUser(name)
                        .withGroups(user.getGroups())
                        .withUid(user.getUid())
                        .withExtra(user.getExtra())
                        .withNewNonResourceAttributes().withPath(path).withVerb(verb).endNonResourceAttributes()
                        .endSpec().build()));
        if (access.getStatus() != null && Boolean.TRUE.equals(access.getStatus().getAllowed())) {
            return new Decision(200, "OK", name);
        }
        String reason = access.getStatus() == null ? null : access.getStatus().getReason();
        LOG.debug("metrics: {} may not {} {}{}", name, verb, path, reason == null || reason.isEmpty() ? "" : ": " + reason);
        return new Decision(403, "Forbidden: user " + name + " may not " + verb + " " + path, name);
    }

    private <T> T call(String kind, java.util.function.Function<KubernetesClient, T> request) throws ReviewFailed {
        KubernetesClient kubernetes = client.get();
        if (kubernetes == null) {
            throw new ReviewFailed("no Kubernetes client (configuration dev.ringmaster.kubernetes)");
        }
        CompletableFuture<T> answer;
        try {
            answer = CompletableFuture.supplyAsync(() -> request.apply(kubernetes), reviews);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new ReviewFailed("the review threads are stopped");
        }
        try {
            T result = answer.get(settings.reviewTimeout().toMillis(), TimeUnit.MILLISECONDS);
            if (result == null) {
                throw new ReviewFailed("the API server answered the " + kind + " with nothing");
            }
            return result;
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new ReviewFailed("the API server did not answer a " + kind + " within "
                    + settings.reviewTimeout().toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ReviewFailed("interrupted while waiting for a " + kind);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof KubernetesClientException failure && failure.getCode() == 403) {
                throw new ReviewFailed("the sharder may not create " + kind + "s (grant create on tokenreviews."
                        + "authentication.k8s.io and subjectaccessreviews.authorization.k8s.io, "
                        + "manifests/clusterrole-metrics-auth.yaml): " + oneLine(failure.getMessage()));
            }
            throw new ReviewFailed("a " + kind + " failed: " + oneLine(String.valueOf(cause)));
        }
    }

    /** The token of an {@code Authorization: Bearer <token>} header, null for anything else. */
    static String bearerToken(String authorization) {
        if (authorization == null || authorization.length() <= BEARER.length()
                || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        String token = authorization.substring(BEARER.length()).strip();
        return token.isEmpty() || token.contains(" ") ? null : token;
    }

    private static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static String oneLine(String text) {
        return String.valueOf(text).replaceAll("\\R+", " ").strip();
    }

    /** The API server gave no decision. */
    static final class ReviewFailed extends Exception {

        ReviewFailed(String message) {
            super(message);
        }
    }
}
