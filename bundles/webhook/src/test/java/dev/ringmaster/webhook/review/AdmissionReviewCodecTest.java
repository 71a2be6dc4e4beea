package dev.ringmaster.webhook.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.ring.spi.AdmissionResponse.PatchOperation;
import dev.ringmaster.webhook.testing.Reviews;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AdmissionReviewCodecTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final AdmissionReviewCodec codec = new AdmissionReviewCodec();

    @Test
    void readsTheRequestFieldsTheSpiCarries() throws Exception {
        AdmissionRequest request = parse(Reviews.configMapCreate("uid-1", "cm-1"));

        assertThat(request.uid()).isEqualTo("uid-1");
        assertThat(request.operation()).isEqualTo("CREATE");
        assertThat(request.group()).isEmpty();
        assertThat(request.version()).isEqualTo("v1");
        assertThat(request.kind()).isEqualTo("ConfigMap");
        assertThat(request.resourceGroup()).isEmpty();
        assertThat(request.resource()).isEqualTo("configmaps");
        assertThat(request.subResource()).isEmpty();
        assertThat(request.namespace()).isEqualTo("default");
        assertThat(request.name()).isEqualTo("cm-1");
        assertThat(request.username()).isEqualTo("kubernetes-admin");
        assertThat(request.userGroups()).containsExactly("kubeadm:cluster-admins", "system:authenticated");
        assertThat(request.dryRun()).isFalse();
        assertThat(request.object()).containsEntry("kind", "ConfigMap")
                .containsEntry("data", Map.of("key", "value", "n", "1"));
        @SuppressWarnings("unchecked")
        Map<String, Object> metadata = (Map<String, Object>) request.object().get("metadata");
        assertThat(metadata).containsEntry("name", "cm-1").containsEntry("labels", Map.of("app", "example"))
                .containsEntry("creationTimestamp", null);
        assertThat(request.oldObject()).isEmpty();
    }

    @Test
    void fieldOrderAndUnknownFieldsDoNotMatter() throws Exception {
        AdmissionRequest request = parse("""
                {"request":{"future":{"a":[1,2,{"b":null}]},"dryRun":true,"uid":"u"},"extra":[1],
                 "kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1"}""");
        assertThat(request.uid()).isEqualTo("u");
        assertThat(request.dryRun()).isTrue();
        assertThat(request.object()).isEmpty();
    }

    @Test
    void badReviewsSayWhatIsWrongAndKeepTheUidWhenThereIsOne() {
        assertBad("{", null, "malformed JSON");
        assertBad("[]", null, "the body is not a JSON object");
        assertBad("", null, "the body is not a JSON object");
        assertBad("{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\",\"request\":{\"uid\":\"u1\",\"object\":",
                "u1", "malformed JSON");
        assertBad("{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1beta1\",\"request\":{\"uid\":\"u2\"}}",
                "u2", "expected apiVersion admission.k8s.io/v1 and kind AdmissionReview, got apiVersion admission.k8s.io/v1beta1");
        assertBad("{\"kind\":\"Pod\",\"apiVersion\":\"admission.k8s.io/v1\",\"request\":{\"uid\":\"u3\"}}",
                "u3", "got apiVersion admission.k8s.io/v1 and kind Pod");
        assertBad("{\"request\":{\"uid\":\"u4\"}}", "u4", "got no apiVersion and no kind");
        assertBad("{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\"}", null, "has no request");
        assertBad("{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\",\"request\":{}}", null,
                "has no request.uid");
        assertBad("{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\",\"request\":{\"uid\":\"\"}}", null,
                "has no request.uid");
        assertBad("{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\",\"request\":{\"uid\":7}}", null,
                "request.uid must be a string");
        assertBad("{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\",\"request\":{\"uid\":\"u5\",\"object\":[]}}",
                "u5", "request.object must be a JSON object");
        assertBad("{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\",\"request\":[]}", null,
                "request must be a JSON object");
        assertBad("{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\",\"request\":{\"uid\":\"u6\"}} {}",
                "u6", "unexpected content after the JSON object");
    }

    @Test
    void aPatchIsBase64OfAJsonPatchArray() throws Exception {
        byte[] json = codec.response("uid-2", AdmissionResponse.patch(List.of(
                new PatchOperation("add", "/metadata/labels/shard", "shard-1"),
                new PatchOperation("replace", "/data", Map.of("a", List.of(1, true))),
                new PatchOperation("remove", "/metadata/labels/old", null))));

        JsonNode review = JSON.readTree(json);
        assertThat(review.get("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
        assertThat(review.get("kind").asText()).isEqualTo("AdmissionReview");
        JsonNode response = review.get("response");
        assertThat(response.get("uid").asText()).isEqualTo("uid-2");
        assertThat(response.get("allowed").asBoolean()).isTrue();
        assertThat(response.get("patchType").asText()).isEqualTo("JSONPatch");
        assertThat(response.has("status")).isFalse();
        assertThat(response.has("warnings")).isFalse();
        String patch = new String(Base64.getDecoder().decode(response.get("patch").asText()), StandardCharsets.UTF_8);
        assertThat(JSON.readTree(patch)).isEqualTo(JSON.readTree("""
                [{"op":"add","path":"/metadata/labels/shard","value":"shard-1"},
                 {"op":"replace","path":"/data","value":{"a":[1,true]}},
                 {"op":"remove","path":"/metadata/labels/old"}]"""));
    }

    @Test
    void aDenialCarriesItsStatusAndWarnings() throws Exception {
        JsonNode denied = JSON.readTree(codec.response("uid-3", new AdmissionResponse(false, 403, "no shard", List.of(),
                List.of("one", "two")))).get("response");
        assertThat(denied.get("allowed").asBoolean()).isFalse();
        assertThat(denied.get("status").get("code").asInt()).isEqualTo(403);
        assertThat(denied.get("status").get("message").asText()).isEqualTo("no shard");
        assertThat(denied.has("patch")).isFalse();
        assertThat(denied.has("patchType")).isFalse();
        assertThat(denied.get("warnings")).extracting(JsonNode::asText).containsExactly("one", "two");

        JsonNode allowed = JSON.readTree(codec.response("uid-4", AdmissionResponse.allow())).get("response");
        assertThat(allowed.get("uid").asText()).isEqualTo("uid-4");
        assertThat(allowed.get("allowed").asBoolean()).isTrue();
        assertThat(allowed.size()).isEqualTo(2);
    }

    @Test
    void errorsAreAReviewWithTheUidOrAStatusWithout() throws Exception {
        JsonNode withUid = JSON.readTree(codec.error("uid-5", 500, "InternalError", "boom"));
        assertThat(withUid.get("kind").asText()).isEqualTo("AdmissionReview");
        assertThat(withUid.at("/response/uid").asText()).isEqualTo("uid-5");
        assertThat(withUid.at("/response/allowed").asBoolean()).isFalse();
        assertThat(withUid.at("/response/status/code").asInt()).isEqualTo(500);
        assertThat(withUid.at("/response/status/reason").asText()).isEqualTo("InternalError");
        assertThat(withUid.at("/response/status/message").asText()).isEqualTo("boom");

        JsonNode status = JSON.readTree(codec.error(null, 404, "NotFound", "no handler"));
        assertThat(status).isEqualTo(JSON.readTree("""
                {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no handler",
                 "reason":"NotFound","code":404}"""));
    }

    private AdmissionRequest parse(String body) throws BadReviewException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return codec.parse(bytes, bytes.length);
    }

    private void assertBad(String body, String uid, String message) {
        assertThatThrownBy(() -> parse(body)).isInstanceOfSatisfying(BadReviewException.class, e -> {
            assertThat(e.getMessage()).contains(message);
            assertThat(e.uid()).isEqualTo(java.util.Optional.ofNullable(uid));
        });
    }
}
