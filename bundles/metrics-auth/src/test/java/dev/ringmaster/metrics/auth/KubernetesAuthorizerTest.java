package dev.ringmaster.metrics.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The decisions, against fabric8's mock API server answering TokenReviews and SubjectAccessReviews:
 * the token {@value #READER} belongs to a user allowed {@code get /metrics}, {@value #STRANGER} to one
 * who is not, every other token is not accepted.
 */
class KubernetesAuthorizerTest {

    static final String READER = "reader-token";
    static final String STRANGER = "stranger-token";
    static final String READER_USER = "system:serviceaccount:monitoring:prometheus-k8s";
    static final String STRANGER_USER = "system:serviceaccount:default:default";
    static final String TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
    static final String ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private final MutableClock clock = new MutableClock(T0);
    private final List<SubjectAccessReview> accessReviews = new ArrayList<>();
    private KubernetesMockServer server;
    private KubernetesClient client;
    private ExecutorService reviews;

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(false);
        server.init();
        client = server.createClient();
        reviews = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void stop() {
        reviews.shutdownNow();
        client.close();
        server.destroy();
    }

    /** The API server as a real one answers: TokenReviews by token, SubjectAccessReviews by user and URL. */
    static void answerReviews(KubernetesMockServer server, List<SubjectAccessReview> seen) {
        server.expect().post().withPath(TOKEN_REVIEWS).andReply(201, request -> tokenReviewAnswer(request)).always();
        server.expect().post().withPath(ACCESS_REVIEWS).andReply(201, request -> {
            SubjectAccessReview review = JSON.unmarshal(request.getUtf8Body(), SubjectAccessReview.class);
            synchronized (seen) {
                seen.add(review);
            }
            boolean allowed = READER_USER.equals(review.getSpec().getUser())
                    && review.getSpec().getNonResourceAttributes() != null
                    && "/metrics".equals(review.getSpec().getNonResourceAttributes().getPath())
                    && "get".equals(review.getSpec().getNonResourceAttributes().getVerb());
            return new SubjectAccessReviewBuilder(review).withNewStatus().withAllowed(allowed)
                    .withReason(allowed ? "RBAC: allowed by ClusterRoleBinding" : "").endStatus().build();
        }).always();
    }

    private static TokenReview tokenReviewAnswer(RecordedRequest request) {
        TokenReview review = JSON.unmarshal(request.getUtf8Body(), TokenReview.class);
        String token = review.getSpec().getToken();
        String user = READER.equals(token) ? READER_USER : STRANGER.equals(token) ? STRANGER_USER : null;
        if (user == null) {
            return new TokenReviewBuilder(review).withNewStatus().withAuthenticated(false)
                    .withError("invalid bearer token").endStatus().build();
        }
        return new TokenReviewBuilder(review).withNewStatus().withAuthenticated(true).withNewUser()
                .withUsername(user).withUid("uid-" + user).withGroups("system:serviceaccounts", "system:authenticated")
                .withExtra(Map.of("authentication.kubernetes.io/credential-id", List.of("JTI=1")))
                .endUser().endStatus().build();
    }

    private KubernetesAuthorizer authorizer(KubernetesClient kubernetes, Duration allow, Duration deny, int entries,
            Duration timeout) {
        return new KubernetesAuthorizer(() -> kubernetes, new KubernetesAuthorizer.Settings(allow, deny, entries, timeout),
                clock, reviews);
    }

    private KubernetesAuthorizer authorizer() {
        return authorizer(client, Duration.ofSeconds(60), Duration.ofSeconds(10), 256, Duration.ofSeconds(5));
    }

    @Test
    void aTokenOfAnAllowedUserIsAllowedAndTheReviewsSayWhoAndWhat() {
        answerReviews(server, accessReviews);

        KubernetesAuthorizer.Decision decision = authorizer().decide("Bearer " + READER, "GET", "/metrics");

        assertThat(decision.status()).isEqualTo(200);
        assertThat(decision.user()).isEqualTo(READER_USER);
        assertThat(accessReviews).singleElement().satisfies(review -> {
            assertThat(review.getSpec().getUser()).isEqualTo(READER_USER);
            assertThat(review.getSpec().getUid()).isEqualTo("uid-" + READER_USER);
            assertThat(review.getSpec().getGroups()).containsExactly("system:serviceaccounts", "system:authenticated");
            assertThat(review.getSpec().getExtra()).containsKey("authentication.kubernetes.io/credential-id");
            assertThat(review.getSpec().getNonResourceAttributes().getPath()).isEqualTo("/metrics");
            assertThat(review.getSpec().getNonResourceAttributes().getVerb()).isEqualTo("get");
            assertThat(review.getSpec().getResourceAttributes()).isNull();
        });
    }

    @Test
    void noTokenOrNoBearerTokenIs401WithoutAskingTheApiServer() {
        answerReviews(server, accessReviews);
        KubernetesAuthorizer authorizer = authorizer();

        for (String header : new String[] {null, "", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", READER, "Bearer a b"}) {
            assertThat(authorizer.decide(header, "GET", "/metrics").status()).as("Authorization: %s", header).isEqualTo(401);
        }
        assertThat(server.getRequestCount()).isZero();
        assertThat(authorizer.decide("bearer " + READER, "GET", "/metrics").status()).as("the scheme is case-insensitive")
                .isEqualTo(200);
    }

    @Test
    void aTokenTheTokenReviewDoesNotAcceptIs401AndNeedsNoAccessReview() {
        answerReviews(server, accessReviews);

        KubernetesAuthorizer.Decision decision = authorizer().decide("Bearer garbage", "GET", "/metrics");

        assertThat(decision.status()).isEqualTo(401);
        assertThat(decision.message()).doesNotContain("garbage");
        assertThat(server.getRequestCount()).isEqualTo(1);
        assertThat(accessReviews).isEmpty();
    }

    @Test
    void aUserWithoutTheGrantIs403NamingTheUser() {
        answerReviews(server, accessReviews);

        KubernetesAuthorizer.Decision decision = authorizer().decide("Bearer " + STRANGER, "GET", "/metrics");

        assertThat(decision.status()).isEqualTo(403);
        assertThat(decision.message()).contains(STRANGER_USER).contains("get /metrics");
    }

    @Test
    void decisionsAreCachedPerTokenAllowedLongerThanDenied() {
        answerReviews(server, accessReviews);
        KubernetesAuthorizer authorizer = authorizer();

        assertThat(authorizer.decide("Bearer " + READER, "GET", "/metrics").status()).isEqualTo(200);
        assertThat(authorizer.decide("Bearer " + STRANGER, "GET", "/metrics").status()).isEqualTo(403);
        assertThat(authorizer.decide("Bearer garbage", "GET", "/metrics").status()).isEqualTo(401);
        int afterFirst = server.getRequestCount();
        assertThat(afterFirst).isEqualTo(5); // 2 + 2 + 1

        // scrapes every 15 s within the TTLs: no API call
        clock.advance(Duration.ofSeconds(9));
        assertThat(authorizer.decide("Bearer " + READER, "GET", "/metrics").status()).isEqualTo(200);
        assertThat(authorizer.decide("Bearer " + STRANGER, "GET", "/metrics").status()).isEqualTo(403);
        assertThat(authorizer.decide("Bearer garbage", "GET", "/metrics").status()).isEqualTo(401);
        assertThat(server.getRequestCount()).isEqualTo(afterFirst);

        // denials expire after 10 s, the allowed token's decision after 60 s
        clock.advance(Duration.ofSeconds(2));
        assertThat(authorizer.decide("Bearer " + READER, "GET", "/metrics").status()).isEqualTo(200);
        assertThat(server.getRequestCount()).isEqualTo(afterFirst);
        assertThat(authorizer.decide("Bearer " + STRANGER, "GET", "/metrics").status()).isEqualTo(403);
        assertThat(server.getRequestCount()).isEqualTo(afterFirst + 2);
        clock.advance(Duration.ofSeconds(50));
        assertThat(authorizer.decide("Bearer " + READER, "GET", "/metrics").status()).isEqualTo(200);
        assertThat(server.getRequestCount()).isEqualTo(afterFirst + 4);

        // the verb and path are part of the decision
        assertThat(authorizer.decide("Bearer " + READER, "GET", "/metrics/other").status()).isEqualTo(403);
    }

    @Test
    void theCacheIsBounded() {
        answerReviews(server, accessReviews);
        KubernetesAuthorizer authorizer = authorizer(client, Duration.ofSeconds(60), Duration.ofSeconds(10), 2,
                Duration.ofSeconds(5));

        for (int i = 0; i < 5; i++) {
            authorizer.decide("Bearer garbage-" + i, "GET", "/metrics");
        }
        authorizer.decide("Bearer " + READER, "GET", "/metrics");

        assertThat(authorizer.cached()).isEqualTo(2);
        int before = server.getRequestCount();
        assertThat(authorizer.decide("Bearer " + READER, "GET", "/metrics").status()).isEqualTo(200);
        assertThat(server.getRequestCount()).as("the most recent one is kept").isEqualTo(before);
        authorizer.decide("Bearer garbage-0", "GET", "/metrics");
        assertThat(server.getRequestCount()).as("the least recent one is gone").isEqualTo(before + 1);
    }

    @Test
    void anApiServerError503AndIsNotCached() {
        server.expect().post().withPath(TOKEN_REVIEWS).andReturn(500, new StatusBuilder().withStatus("Failure")
                .withCode(500).withMessage("etcd is gone").build()).always();
        KubernetesAuthorizer authorizer = authorizer(client, Duration.ofSeconds(60), Duration.ofSeconds(10), 256,
                Duration.ofSeconds(2));

        KubernetesAuthorizer.Decision decision = authorizer.decide("Bearer " + READER, "GET", "/metrics");

        assertThat(decision.status()).isEqualTo(503);
        assertThat(authorizer.cached()).isZero();
    }

    @Test
    void aSharderWithoutTheRightToReview503() {
        server.expect().post().withPath(TOKEN_REVIEWS).andReturn(403, new StatusBuilder().withStatus("Failure")
                .withCode(403).withReason("Forbidden").withMessage("tokenreviews.authentication.k8s.io is forbidden: "
                        + "User \"system:serviceaccount:sharding-system:sharder\" cannot create resource").build()).always();

        assertThat(authorizer().decide("Bearer " + READER, "GET", "/metrics").status()).isEqualTo(503);
    }

    @Test
    void anUnreachableApiServerIs503WithinTheReviewTimeout() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl("https://127.0.0.1:" + closed)
                .withTrustCerts(true).build();
        try (KubernetesClient unreachable = new KubernetesClientBuilder().withConfig(config).build()) {
            KubernetesAuthorizer authorizer = authorizer(unreachable, Duration.ofSeconds(60), Duration.ofSeconds(10), 256,
                    Duration.ofSeconds(1));
            long start = System.nanoTime();

            KubernetesAuthorizer.Decision decision = authorizer.decide("Bearer " + READER, "GET", "/metrics");

            assertThat(decision.status()).isEqualTo(503);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(authorizer.cached()).isZero();
        }
    }

    @Test
    void noClientIs503() {
        KubernetesAuthorizer authorizer = new KubernetesAuthorizer(() -> null, new KubernetesAuthorizer.Settings(
                Duration.ofSeconds(60), Duration.ofSeconds(10), 256, Duration.ofSeconds(1)), clock, reviews);

        assertThat(authorizer.decide("Bearer " + READER, "GET", "/metrics").status()).isEqualTo(503);
    }

    static final class MutableClock extends Clock {

        private Instant now;

        MutableClock(Instant now) {
            this.now = now;
        }

        synchronized void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public synchronized Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
