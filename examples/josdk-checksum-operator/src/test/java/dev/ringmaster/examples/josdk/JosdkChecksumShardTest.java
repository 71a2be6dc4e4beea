package dev.ringmaster.examples.josdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.examples.checksum.ChecksumShard;
import dev.ringmaster.examples.checksum.Cost;
import dev.ringmaster.examples.checksum.ReconcileLine;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.testing.mockapiserver.EnableCrudApiServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The JOSDK shard of the checksum example against the CRUD mock server, the test in the sharder's role. */
@EnableCrudApiServer
class JosdkChecksumShardTest {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();
    private static final String RING = "checksums";
    /** SHA-256 of "hello", hex (e.g. {@code printf hello | sha256sum}). */
    private static final String SHA256_HELLO = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

    KubernetesClient client;

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private String namespace;

    @BeforeEach
    void setUp() {
        namespace = "josdk-shard-test-" + NAMESPACES.incrementAndGet();
    }

    @Test
    void writesTheChecksumSecretOfItsConfigMapAndPrintsTheReconcileLine() {
        client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName("app")
                .addToLabels(RingContract.shardLabel(RING), "shard-0").addToAnnotations(Cost.ANNOTATION, "200ms").endMetadata()
                .addToData("greeting", "hello").build()).create();
        try (JosdkChecksumShard shard = JosdkChecksumShard.start(client, options(), lines::add)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> secret() != null);
            assertThat(new String(Base64.getDecoder().decode(secret().getData().get("greeting"))))
                    .isEqualTo(SHA256_HELLO);
            await().atMost(Duration.ofSeconds(20)).until(() -> !lines.isEmpty());
            ReconcileLine line = ReconcileLine.parse(lines.get(0)).orElseThrow();
            assertThat(line.shard()).isEqualTo("shard-0");
            assertThat(line.object()).isEqualTo(namespace + "/app");
            assertThat(line.end() - line.start()).as("the cost its annotation asks for").isGreaterThanOrEqualTo(200);
        }
        assertThat(lease().getSpec().getHolderIdentity()).as("released on close").isNullOrEmpty();
    }

    @Test
    void aKilledShardLeavesItsLeaseAsItWas() {
        JosdkChecksumShard shard = JosdkChecksumShard.start(client, options(), lines::add);
        await().atMost(Duration.ofSeconds(20)).until(shard::isLeaseHeld);

        shard.kill();
        shard.close();
        assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("shard-0");
    }

    private ChecksumShard.Options options() {
        return ChecksumShard.Options.of(RING, "shard-0", namespace).withWatchNamespaces(List.of(namespace))
                .withLeaseTimings(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(200));
    }

    private Secret secret() {
        return client.secrets().inNamespace(namespace).withName("checksums-app").get();
    }

    private Lease lease() {
        return client.leases().inNamespace(namespace).withName("shard-0").get();
    }
}
