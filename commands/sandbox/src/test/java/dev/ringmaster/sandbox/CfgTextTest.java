package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CfgTextTest {

    private static final String SHIPPED = """
            # The sharder (PID dev.ringmaster.sharder)
            # defaultStrategy = commented out
            defaultStrategy = ${ringmaster.run.defaultStrategy}
            leaseDetector=default
            identity =
            webhookMode: service
            """;

    @Test
    void replacesValuesWhereTheyAreAndKeepsEverythingElse() {
        assertThat(CfgText.override(SHIPPED, Map.of("defaultStrategy", "rendezvous", "identity", "sandbox-sharder",
                "webhookMode", "off"))).isEqualTo("""
                # The sharder (PID dev.ringmaster.sharder)
                # defaultStrategy = commented out
                defaultStrategy = rendezvous
                leaseDetector=default
                identity = sandbox-sharder
                webhookMode = off
                """);
    }

    @Test
    void appendsKeysTheFileLacksInTheOrderGiven() {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("moveBudget", "1000");
        values.put("leaseDetector", "default");
        values.put("concurrentMoves", "10");

        assertThat(CfgText.override("leaseDetector = pod-readiness", values))
                .isEqualTo("leaseDetector = default\nmoveBudget = 1000\nconcurrentMoves = 10\n");
        assertThat(CfgText.override("", Map.of("port", "0"))).isEqualTo("port = 0\n");
    }

    @Test
    void escapesBackslashesAsPropertiesFilesNeed() {
        assertThat(CfgText.override("kubeconfig =\n", Map.of("kubeconfig", "C:\\kube\\config")))
                .isEqualTo("kubeconfig = C:\\\\kube\\\\config\n");
    }

    @Test
    void findsTheKeyOfALine() {
        assertThat(CfgText.key("  port = 8080")).isEqualTo("port");
        assertThat(CfgText.key("port=8080")).isEqualTo("port");
        assertThat(CfgText.key("port:8080")).isEqualTo("port");
        assertThat(CfgText.key("port 8080")).isEqualTo("port");
        assertThat(CfgText.key("# port = 8080")).isNull();
        assertThat(CfgText.key("! port = 8080")).isNull();
        assertThat(CfgText.key("   ")).isNull();
    }
}
