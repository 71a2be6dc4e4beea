package dev.ringmaster.sharder.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private static final KubernetesClientException CONFLICT = new KubernetesClientException("conflict", 409, null);
    /** What fabric8 threw for every request while ApiServerOutageRealIT's link was down. */
    private static final KubernetesClientException HANDSHAKE_CUT = new KubernetesClientException(
            "Operation: [get] for kind: [ClusterRing] failed.",
            new IOException("Remote host terminated the handshake",
                    new SSLHandshakeException("Remote host terminated the handshake")));

    @Test
    void doublesFromTheInitialDelayUpToTheMaximum() {
        Backoff backoff = Backoff.DEFAULT;
        assertThat(backoff.delay(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(backoff.delay(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(backoff.delay(10)).isEqualTo(Duration.ofMillis(51_200));
        assertThat(backoff.delay(11)).isEqualTo(Duration.ofMinutes(1));
        assertThat(backoff.delay(1_000)).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void anUnreachableApiServerNeverDelaysARetryBeyondTwoSeconds() {
        Backoff backoff = Backoff.DEFAULT;
        assertThat(backoff.delay(1, HANDSHAKE_CUT)).isEqualTo(Duration.ofMillis(100));
        assertThat(backoff.delay(5, HANDSHAKE_CUT)).isEqualTo(Duration.ofMillis(1_600));
        assertThat(backoff.delay(6, HANDSHAKE_CUT)).isEqualTo(Duration.ofSeconds(2));
        assertThat(backoff.delay(10, HANDSHAKE_CUT)).isEqualTo(Duration.ofSeconds(2));
        assertThat(backoff.delay(10, new KubernetesClientException("refused", new ConnectException("Connection refused"))))
                .isEqualTo(Duration.ofSeconds(2));
        assertThat(backoff.delay(10, new KubernetesClientException("starting", 503, null)))
                .isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void otherFailuresBackOffFully() {
        assertThat(Backoff.DEFAULT.delay(10, CONFLICT)).isEqualTo(Duration.ofMillis(51_200));
        assertThat(Backoff.DEFAULT.delay(10, new IllegalStateException("a bug"))).isEqualTo(Duration.ofMillis(51_200));
        assertThat(Backoff.unreachable(new KubernetesClientException("forbidden", 403, null))).isFalse();
    }

    @Test
    void aBackoffWithoutItsOwnUnreachableBoundUsesTheMaximumForBoth() {
        Backoff backoff = new Backoff(Duration.ofMillis(10), Duration.ofMillis(40));
        assertThat(backoff.delay(9, HANDSHAKE_CUT)).isEqualTo(Duration.ofMillis(40));
    }

    @Test
    void inconsistentBoundsAreRefused() {
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(20)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
