package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.testing.apiserver.CuttingApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The builder's validation and defaults; nothing here talks to an API server. */
class ShardingTest {

    private static final Path NO_FILE = Path.of("/nonexistent/serviceaccount/namespace");

    private final KubernetesClient client = new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build()).build();

    @AfterEach
    void tearDown() {
        client.close();
    }

    @Test
    void buildsTheShardOfARing() {
        try (Sharding sharding = Sharding.forRing("example").shard("shard-0").namespace("default").client(client).build()) {
            assertThat(sharding.labels().selector())
                    .isEqualTo("shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example=shard-0");
            assertThat(sharding.lease().name()).isEqualTo("shard-0");
            assertThat(sharding.lease().namespace()).isEqualTo("default");
            assertThat(sharding.lease().isHeld()).isFalse();
            assertThat(sharding.drainAcknowledger()).isNotNull();
        }
    }

    @Test
    void labelModeIsTheDefaultAndRangeModeIsOptIn() {
        try (Sharding labels = Sharding.forRing("example").shard("shard-0").namespace("default").client(client).build()) {
            assertThat(labels.rangeMode()).isFalse();
            assertThatThrownBy(labels::ranges).isInstanceOf(IllegalStateException.class).hasMessageContaining("range mode");
        }
        try (Sharding ranges = Sharding.forRing("example").shard("shard-0").namespace("default").client(client)
                .rangeMode().build()) {
            assertThat(ranges.rangeMode()).isTrue();
            assertThat(ranges.ranges().serving().isEmpty()).isTrue();
            assertThat(ranges.labels().selector()) // the labels are still there, unused by range mode
                    .isEqualTo("shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example=shard-0");
        }
        assertThatThrownBy(() -> Sharding.forRing("example").rangeRecheck(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * An API server that cuts every connection: a lease attempt through a client with fabric8's default
     * retries (ten, over about 20 s) is made once. The JDK client opens a second connection for an
     * idempotent request whose connection broke, so at most two connections.
     */
    @Test
    void leaseRequestsAreMadeOnceWhateverTheUsersClientRetries() throws Exception {
        try (CuttingApiServer cutting = new CuttingApiServer()) {
            try (KubernetesClient retrying = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
                    .withMasterUrl(cutting.url()).withTrustCerts(true).build()).build();
                 Sharding sharding = Sharding.forRing("example").shard("shard-0").namespace("default")
                         .client(retrying).renewDeadline(Duration.ofSeconds(3)).leaseDuration(Duration.ofSeconds(4))
                         .build()) {
                assertThat(retrying.getConfiguration().getRequestRetryBackoffLimit()).isEqualTo(10);
                sharding.lease().tick();
                assertThat(sharding.lease().isHeld()).isFalse();
            }
            assertThat(cutting.connections()).isBetween(1, 2);
        }
    }

    @Test
    void buildsTheShardOfAControllerRing() {
        try (Sharding sharding = Sharding.forRing("example").ringKind(RingKind.CONTROLLER_RING).shard("shard-0")
                .namespace("default").client(client).build()) {
            assertThat(sharding.labels().selector()).isEqualTo("shard.alpha.sharding.timebertt.dev/example=shard-0");
            assertThat(sharding.labels().drainLabel()).isEqualTo("drain.alpha.sharding.timebertt.dev/example");
            assertThat(sharding.informers()).isNotNull();
        }
        assertThatThrownBy(() -> Sharding.forRing("example").ringKind(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void ringNamesAreValidated() {
        assertThatThrownBy(() -> Sharding.forRing(null)).hasMessageContaining("ring name must not be empty");
        assertThatThrownBy(() -> Sharding.forRing("")).hasMessageContaining("ring name must not be empty");
        assertThatThrownBy(() -> Sharding.forRing("Example")).hasMessageContaining("ring name 'Example' is invalid");
        assertThatThrownBy(() -> Sharding.forRing("a".repeat(64))).hasMessageContaining("at most 63");
        assertThat(Sharding.forRing("a".repeat(63))).isNotNull();
        assertThat(Sharding.forRing("my.ring-1")).isNotNull();
    }

    @Test
    void shardNamesAreValidated() {
        Sharding.Builder builder = Sharding.forRing("example");
        assertThatThrownBy(() -> builder.shard("")).hasMessageContaining("shard name must not be empty");
        assertThatThrownBy(() -> builder.shard("shard_0")).hasMessageContaining("shard name 'shard_0' is invalid");
        assertThatThrownBy(() -> builder.shard("-shard")).hasMessageContaining("invalid");
        assertThatThrownBy(() -> builder.shard("shard.")).hasMessageContaining("invalid");
        assertThatThrownBy(() -> builder.shard("s".repeat(64))).hasMessageContaining("shard name must be at most 63");
        assertThat(builder.shard("s".repeat(63))).isSameAs(builder);
    }

    @Test
    void namespacesAndOtherSettingsAreValidated() {
        Sharding.Builder builder = Sharding.forRing("example").shard("shard-0");
        assertThatThrownBy(() -> builder.namespace("a.b")).hasMessageContaining("namespace 'a.b' is invalid");
        assertThatThrownBy(() -> builder.namespace("n".repeat(64))).hasMessageContaining("namespace must be at most 63");
        assertThatThrownBy(() -> builder.weight(0)).hasMessageContaining("weight must be positive");
        assertThatThrownBy(() -> builder.loadReportPeriod(Duration.ofSeconds(-1)))
                .hasMessageContaining("load report period must not be negative");
        assertThatThrownBy(() -> builder.namespace("default").build()).hasMessageContaining("client must be set");
    }

    @Test
    void timingsMustLetTheShardStopBeforeItsLeaseExpires() {
        Sharding.Builder builder = Sharding.forRing("example").shard("shard-0").namespace("default").client(client);
        assertThatThrownBy(() -> builder.renewDeadline(Duration.ofSeconds(15)).build())
                .hasMessageContaining("must be longer than the renew deadline");
        assertThatThrownBy(() -> builder.renewDeadline(Duration.ofSeconds(2)).build())
                .hasMessageContaining("must be longer than the retry period");
        assertThatThrownBy(() -> builder.renewDeadline(Duration.ofSeconds(10)).retryPeriod(Duration.ZERO).build())
                .hasMessageContaining("retry period must be positive");
        assertThatThrownBy(() -> builder.retryPeriod(Duration.ofSeconds(2)).leaseDuration(Duration.ofMillis(15500)).build())
                .hasMessageContaining("whole seconds");
    }

    @Test
    void theNamespaceDefaultsToThePodNamespace(@TempDir Path dir) throws IOException {
        Sharding.Builder builder = Sharding.forRing("example").shard("shard-0").client(client);
        try (Sharding fromEnv = builder.environment(Map.of("POD_NAMESPACE", "from-env")::get, NO_FILE).build()) {
            assertThat(fromEnv.lease().namespace()).isEqualTo("from-env");
        }
        Path file = Files.writeString(dir.resolve("namespace"), "from-file\n");
        try (Sharding fromFile = builder.environment(Map.<String, String>of()::get, file).build()) {
            assertThat(fromFile.lease().namespace()).isEqualTo("from-file");
        }
        assertThatThrownBy(() -> builder.environment(Map.<String, String>of()::get, NO_FILE).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lease namespace is not set").hasMessageContaining("POD_NAMESPACE");
    }

    @Test
    void theShardNameDefaultsToTheHostname() {
        Sharding.Builder builder = Sharding.forRing("example").namespace("default").client(client);
        try (Sharding sharding = builder.environment(Map.of("HOSTNAME", "controller-7d9f-x2x")::get, NO_FILE).build()) {
            assertThat(sharding.lease().name()).isEqualTo("controller-7d9f-x2x");
        }
        assertThatThrownBy(() -> builder.environment(Map.<String, String>of()::get, NO_FILE).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("shard name is not set");
        assertThatThrownBy(() -> builder.environment(Map.of("HOSTNAME", "Bad_Host")::get, NO_FILE).build())
                .hasMessageContaining("shard name (from $HOSTNAME) 'Bad_Host' is invalid");
    }
}
