package dev.ringmaster.sharder.rebalance;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Failed writes of a pass counted by cause, each with its first example. */
class WriteFailuresTest {

    private static KubernetesClientException answered(int code, String reason) {
        return new KubernetesClientException(new StatusBuilder().withCode(code).withReason(reason)
                .withMessage("the server says no").build());
    }

    @Test
    void countsEachCauseAndKeepsItsFirstExample() {
        WriteFailures failures = new WriteFailures();
        failures.add("ConfigMap ns/a", answered(429, "TooManyRequests"));
        failures.add("Secret ns/b", new KubernetesClientException("PATCH failed", new CompletionException(
                new IOException("too many concurrent streams"))));
        failures.add("ConfigMap ns/c", answered(429, "TooManyRequests"));
        failures.add("Secret ns/d", new KubernetesClientException("PATCH failed",
                new HttpTimeoutException("request timed out")));
        failures.add("ConfigMap ns/e", answered(500, ""));

        assertThat(failures.total()).isEqualTo(5);
        assertThat(failures.counts()).isEqualTo(Map.of(
                "HTTP 429 TooManyRequests", 2L,
                "IOException: too many concurrent streams", 1L,
                "HttpTimeoutException: request timed out", 1L,
                "HTTP 500", 1L));
        assertThat(failures.describe())
                .contains("HTTP 429 TooManyRequests: 2 (first: ConfigMap ns/a: ")
                .doesNotContain("ConfigMap ns/c")
                .contains("IOException: too many concurrent streams: 1 (first: Secret ns/b: ")
                .contains("HTTP 500: 1 (first: ConfigMap ns/e: ");
    }

    @Test
    void nothingFailedIsNothingToSay() {
        WriteFailures failures = new WriteFailures();
        assertThat(failures.total()).isZero();
        assertThat(failures.describe()).isEmpty();
    }
}
