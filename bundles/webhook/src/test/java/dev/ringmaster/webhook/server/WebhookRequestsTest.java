package dev.ringmaster.webhook.server;

import static dev.ringmaster.webhook.server.ServerFixture.SHARDER_PATH;
import static dev.ringmaster.webhook.server.ServerFixture.SHARD_LABEL;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.webhook.testing.HttpsClient;
import dev.ringmaster.webhook.testing.HttpsClient.Answer;
import dev.ringmaster.webhook.testing.RawConnection;
import dev.ringmaster.webhook.testing.Reviews;
import io.micrometer.core.instrument.Timer;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every branch of a request against the running server, over real HTTPS. */
class WebhookRequestsTest extends WebhookServerTestBase {

    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpsClient client;

    @BeforeEach
    void start() throws Exception {
        fixture = new ServerFixture(pki, directory.resolve("tls")).started();
        client = fixture.client();
    }

    @Test
    void aPatchEchoesTheUidAndCarriesTheLabelAsBase64JsonPatch() throws Exception {
        Answer answer = client.review(SHARDER_PATH, Reviews.configMapCreate("7f0b2f3a-1", "cm-1"));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.header("Content-Type")).hasValue("application/json");
        JsonNode review = answer.json();
        assertThat(review.get("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
        assertThat(review.get("kind").asText()).isEqualTo("AdmissionReview");
        assertThat(review.at("/response/uid").asText()).isEqualTo("7f0b2f3a-1");
        assertThat(review.at("/response/allowed").asBoolean()).isTrue();
        assertThat(review.at("/response/patchType").asText()).isEqualTo("JSONPatch");
        JsonNode patch = JSON.readTree(Base64.getDecoder().decode(review.at("/response/patch").asText()));
        assertThat(patch).isEqualTo(JSON.readTree("[{\"op\":\"add\",\"path\":\"/metadata/labels/"
                + SHARD_LABEL.replace("/", "~1") + "\",\"value\":\"shard-1\"}]"));
    }

    @Test
    void aDenialAndAWarningAreAnswered() {
        JsonNode denied = client.review("/guard/x", Reviews.configMapCreate("uid-d", "forbidden")).json();
        assertThat(denied.at("/response/uid").asText()).isEqualTo("uid-d");
        assertThat(denied.at("/response/allowed").asBoolean()).isFalse();
        assertThat(denied.at("/response/status/code").asInt()).isEqualTo(403);
        assertThat(denied.at("/response/status/message").asText()).isEqualTo("objects named forbidden are not allowed");

        Answer warned = client.review("/allow/y", Reviews.configMapCreate("uid-w", "cm"));
        assertThat(warned.status()).isEqualTo(200);
        assertThat(warned.json().at("/response/allowed").asBoolean()).isTrue();
        assertThat(warned.json().at("/response/warnings/0").asText()).isEqualTo("careful with /allow/y");
        assertThat(warned.json().at("/response/patch").isMissingNode()).isTrue();
    }

    @Test
    void anUnknownPathIs404EchoingTheUid() {
        Answer answer = client.review("/webhooks/other", Reviews.configMapCreate("uid-404", "cm"));

        refused(answer, 404, "uid-404");
        assertThat(answer.json().at("/response/status/reason").asText()).isEqualTo("NotFound");
        assertThat(answer.json().at("/response/status/message").asText())
                .isEqualTo("no admission handler serves the path /webhooks/other");
    }

    @Test
    void onlyPostIsAllowed() {
        Answer answer = client.get(SHARDER_PATH);

        assertThat(answer.status()).isEqualTo(405);
        assertThat(answer.header("Allow")).hasValue("POST");
        assertThat(answer.json().get("kind").asText()).isEqualTo("Status");
        assertThat(answer.json().get("reason").asText()).isEqualTo("MethodNotAllowed");
        assertThat(answer.json().get("code").asInt()).isEqualTo(405);
    }

    @Test
    void onlyJsonIsAccepted() {
        String review = Reviews.configMapCreate("uid-ct", "cm");
        Answer text = client.post(SHARDER_PATH, "text/plain", review);
        assertThat(text.status()).isEqualTo(415);
        assertThat(text.json().get("message").asText())
                .isEqualTo("content type text/plain is not supported; send application/json");

        assertThat(client.post(SHARDER_PATH, null, review).status()).isEqualTo(415);
        assertThat(client.post(SHARDER_PATH, "application/yaml", review).status()).isEqualTo(415);
        assertThat(client.post(SHARDER_PATH, "application/json; charset=utf-8", review).status()).isEqualTo(200);
        assertThat(client.post(SHARDER_PATH, "Application/JSON", review).status()).isEqualTo(200);
    }

    @Test
    void bodiesOverTheLimitAre413WhetherDeclaredOrStreamed() throws Exception {
        // Declared too large: answered at once, without reading the body (so sent without one here:
        // a client still sending when the server closes may see a reset instead of the answer)
        try (RawConnection connection = new RawConnection(pki.clientContext(), fixture.port())) {
            connection.write("POST " + SHARDER_PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 3145729\r\n\r\n");
            RawConnection.Response declared = connection.read();
            assertThat(declared.status()).isEqualTo(413);
            assertThat(declared.headers()).containsEntry("connection", "close");
            JsonNode status = JSON.readTree(declared.body());
            assertThat(status.get("reason").asText()).isEqualTo("RequestEntityTooLarge");
            assertThat(status.get("message").asText()).isEqualTo(
                    "the request body (3145729 bytes) exceeds the limit of 3145728 bytes");
            assertThat(connection.closedWithin(Duration.ofSeconds(5))).isTrue();
        }

        // no Content-Length: chunked, so the limit is found while reading
        byte[] large = oversized();
        Answer streamed = client.post(SHARDER_PATH, "application/json",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(large)));
        assertThat(streamed.status()).isEqualTo(413);
        assertThat(streamed.header("Content-Length")).isPresent();

        // exactly at the limit is read (and is no review)
        byte[] atLimit = new byte[3 * 1024 * 1024];
        java.util.Arrays.fill(atLimit, (byte) ' ');
        assertThat(client.post(SHARDER_PATH, "application/json", HttpRequest.BodyPublishers.ofByteArray(atLimit))
                .status()).isEqualTo(400);

        assertThat(client.review(SHARDER_PATH, Reviews.configMapCreate("after", "cm")).status())
                .as("the server keeps serving").isEqualTo(200);
    }

    @Test
    void malformedAndWrongReviewsAre400EchoingAUidWhenOneWasRead() {
        Answer malformed = client.review(SHARDER_PATH, "{\"kind\":");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.json().get("kind").asText()).isEqualTo("Status");
        assertThat(malformed.json().get("reason").asText()).isEqualTo("BadRequest");
        assertThat(malformed.json().get("message").asText()).startsWith("malformed JSON:");

        Answer truncated = client.review(SHARDER_PATH, Reviews.configMapCreate("uid-cut", "cm").substring(0, 250));
        refused(truncated, 400, "uid-cut");
        assertThat(truncated.json().at("/response/status/message").asText()).startsWith("malformed JSON:");

        Answer wrongVersion = client.review(SHARDER_PATH, Reviews.configMapCreate("uid-v1beta1", "cm")
                .replace("admission.k8s.io/v1", "admission.k8s.io/v1beta1"));
        refused(wrongVersion, 400, "uid-v1beta1");
        assertThat(wrongVersion.json().at("/response/status/message").asText())
                .contains("got apiVersion admission.k8s.io/v1beta1");

        Answer wrongKind = client.review(SHARDER_PATH, Reviews.configMapCreate("uid-kind", "cm")
                .replace("\"kind\":\"AdmissionReview\"", "\"kind\":\"AdmissionRequest\""));
        refused(wrongKind, 400, "uid-kind");

        Answer noUid = client.review(SHARDER_PATH, Reviews.configMapCreate("", "cm"));
        assertThat(noUid.status()).isEqualTo(400);
        assertThat(noUid.json().get("message").asText()).isEqualTo("the AdmissionReview has no request.uid");

        assertThat(client.review(SHARDER_PATH, "").status()).isEqualTo(400);
        assertThat(client.review(SHARDER_PATH, Reviews.configMapCreate("ok", "cm")).status()).isEqualTo(200);
    }

    @Test
    void aFailingHandlerIs500EchoingTheUid() {
        Answer thrown = client.review("/boom/", Reviews.configMapCreate("uid-boom", "cm"));
        refused(thrown, 500, "uid-boom");
        assertThat(thrown.json().at("/response/status/message").asText())
                .isEqualTo("admission handler boom failed: java.lang.IllegalStateException: handler exploded");

        Answer nothing = client.review("/null/", Reviews.configMapCreate("uid-null", "cm"));
        refused(nothing, 500, "uid-null");
        assertThat(nothing.json().at("/response/status/message").asText())
                .isEqualTo("admission handler null returned no response");

        assertThat(client.review(SHARDER_PATH, Reviews.configMapCreate("ok", "cm")).status()).isEqualTo(200);
    }

    @Test
    void handlersComeAndGoWhileTheServerRuns() {
        String path = "/webhooks/label-guard/example";
        assertThat(client.review(path, Reviews.configMapCreate("u1", "cm")).status()).isEqualTo(404);

        AdmissionHandler labelGuard = (p, request) -> AdmissionResponse.allowWithWarning("label-guard saw " + p);
        fixture.handlers.bind(labelGuard, java.util.Map.of(AdmissionHandler.NAME, "label-guard",
                AdmissionHandler.PATH_PREFIX, "/webhooks/label-guard/", "service.id", 100L));
        Answer served = client.review(path, Reviews.configMapCreate("u2", "cm"));
        assertThat(served.status()).isEqualTo(200);
        assertThat(served.json().at("/response/warnings/0").asText()).isEqualTo("label-guard saw " + path);

        fixture.handlers.unbind(labelGuard);
        assertThat(client.review(path, Reviews.configMapCreate("u3", "cm")).status()).isEqualTo(404);
        assertThat(fixture.listened).as("the server was not restarted").hasSize(1);
    }

    @Test
    void requestsAreTimedPerHandlerAndOutcome() {
        for (int i = 0; i < 3; i++) {
            client.review(SHARDER_PATH, Reviews.configMapCreate("m" + i, "cm"));
        }
        client.review("/guard/", Reviews.configMapCreate("d", "cm"));
        client.review("/boom/", Reviews.configMapCreate("e", "cm"));
        client.review("/nowhere", Reviews.configMapCreate("n", "cm"));
        client.review(SHARDER_PATH, "{");
        client.get(SHARDER_PATH);

        assertThat(fixture.count("sharder", Outcome.PATCHED)).isEqualTo(3);
        assertThat(fixture.count("guard", Outcome.DENIED)).isEqualTo(1);
        assertThat(fixture.count("boom", Outcome.ERROR)).isEqualTo(1);
        assertThat(fixture.count(WebhookMetrics.NO_HANDLER, Outcome.NOT_FOUND)).isEqualTo(1);
        assertThat(fixture.count("sharder", Outcome.BAD_REQUEST)).isEqualTo(1);
        assertThat(fixture.count("sharder", Outcome.METHOD_NOT_ALLOWED)).isEqualTo(1);
        Timer patched = fixture.registry.find(WebhookMetrics.REQUESTS).tags("handler", "sharder", "outcome", "patched")
                .timer();
        assertThat(patched.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS)).isPositive();
        assertThat(patched.takeSnapshot().histogramCounts()).as("a percentile histogram is published").isNotEmpty();
        assertThat(fixture.registry.scrape()).contains(
                "ringmaster_webhook_requests_seconds_bucket{handler=\"sharder\",outcome=\"patched\",le=\"+Inf\"} 3");
        assertThat(fixture.registry.find(WebhookMetrics.REQUESTS).timers())
                .allSatisfy(timer -> assertThat(timer.getId().getTag("handler"))
                        .isIn("sharder", "guard", "boom", WebhookMetrics.NO_HANDLER));
        assertThat(fixture.registry.get(WebhookMetrics.CERTIFICATE_EXPIRATION).gauge().value())
                .isEqualTo(fixture.server.serving().orElseThrow().notAfter().getEpochSecond());
    }

    private static byte[] oversized() {
        byte[] body = new byte[3 * 1024 * 1024 + 1];
        java.util.Arrays.fill(body, (byte) ' ');
        byte[] start = "{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\",\"request\":{\"uid\":\"big\"}}"
                .getBytes(StandardCharsets.UTF_8);
        System.arraycopy(start, 0, body, 0, start.length);
        return body;
    }

    /** The answer is {@code status}, echoes the review's {@code uid} and does not allow it. */
    private static void refused(Answer answer, int status, String uid) {
        assertThat(answer.status()).isEqualTo(status);
        assertThat(answer.json().at("/response/uid").asText()).isEqualTo(uid);
        assertThat(answer.json().at("/response/allowed").asBoolean()).isFalse();
    }
}
