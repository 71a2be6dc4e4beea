package dev.ringmaster.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeliveryTest {

    private static final String OWN_PID = "dev.ringmaster.delivery";

    @Test
    void configurationsAreReadFromCfgKeysAndBundlesFromJarKeys() {
        byte[] jar = "jar bytes".getBytes(StandardCharsets.UTF_8);
        ConfigMap configMap = configMap("settings", Map.of(
                "dev.ringmaster.sharder.cfg", "# a comment\nmoveBudget = 10 \nconcurrentMoves=5\n",
                "README.md", "ignored"), Map.of("jump.jar", Base64.getEncoder().encodeToString(jar),
                "notes.bin", Base64.getEncoder().encodeToString(new byte[] {1})));

        Delivery delivery = Delivery.of(List.of(configMap), OWN_PID);

        assertThat(delivery.configurations()).containsExactly(
                Map.entry("dev.ringmaster.sharder", Map.of("moveBudget", "10", "concurrentMoves", "5")));
        assertThat(delivery.jars()).singleElement().satisfies(delivered -> {
            assertThat(delivered.bytes()).isEqualTo(jar);
            // sha256sum of the 9 bytes "jar bytes", computed outside the code under test
            assertThat(delivered.sha256()).isEqualTo("fba6a4ac61e440c7309ae013e5c5c7ac0a9000c8a3bab7def760b499d587b1d0");
            assertThat(delivered.location()).isEqualTo("ringmaster:configmap/sharding-system/settings/jump.jar");
        });
        assertThat(delivery.refusals()).isEmpty();
    }

    @Test
    void configMapsMergeKeysOfOnePidAndAKeySetTwiceIsTakenFromTheFirstByName() {
        Delivery delivery = Delivery.of(List.of(
                configMap("b-second", Map.of("dev.ringmaster.sharder.cfg", "moveBudget = 2\npageSize = 100"), Map.of()),
                configMap("a-first", Map.of("dev.ringmaster.sharder.cfg", "moveBudget = 1"), Map.of()),
                configMap("c-comments", Map.of("dev.ringmaster.labelguard.cfg", "# nothing set"), Map.of())), OWN_PID);

        assertThat(delivery.configurations()).containsExactly(
                Map.entry("dev.ringmaster.sharder", Map.of("moveBudget", "1", "pageSize", "100")));
        assertThat(delivery.refusals()).singleElement().satisfies(refusal -> {
            assertThat(refusal.source().configMap()).isEqualTo("sharding-system/b-second");
            assertThat(refusal.reason()).isEqualTo("moveBudget of dev.ringmaster.sharder is already set by"
                    + " ConfigMap sharding-system/a-first key dev.ringmaster.sharder.cfg");
        });
    }

    @Test
    void aJarKeyInDataIsTakenAsBytesSoThatItIsRefusedVisibly() {
        Delivery delivery = Delivery.of(List.of(configMap("text", Map.of("broken.jar", "not a jar"), Map.of())), OWN_PID);

        assertThat(delivery.jars()).singleElement().satisfies(jar ->
                assertThat(jar.bytes()).isEqualTo("not a jar".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void theDeliverysOwnConfigurationIsRefused() {
        Delivery delivery = Delivery.of(List.of(configMap("widen",
                Map.of(OWN_PID + ".cfg", "allowedSha256 ="), Map.of())), OWN_PID);

        assertThat(delivery.configurations()).isEmpty();
        assertThat(delivery.refusals()).singleElement().satisfies(refusal ->
                assertThat(refusal.reason()).contains("allow-list"));
    }

    @Test
    void aBrokenPropertiesFileIsRefused() {
        Delivery delivery = Delivery.of(List.of(configMap("bad",
                Map.of("dev.ringmaster.sharder.cfg", "moveBudget = \\u12"), Map.of())), OWN_PID);

        assertThat(delivery.configurations()).isEmpty();
        assertThat(delivery.refusals()).singleElement().satisfies(refusal ->
                assertThat(refusal.reason()).startsWith("not a properties file"));
    }

    private static ConfigMap configMap(String name, Map<String, String> data, Map<String, String> binaryData) {
        return new ConfigMapBuilder().withNewMetadata().withNamespace("sharding-system").withName(name).endMetadata()
                .withData(data).withBinaryData(binaryData).build();
    }
}
