package dev.ringmaster.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code manifests/monitoring/prometheusrule.yaml} run by Prometheus's own rule unit tests
 * ({@code promtool test rules}) with the cases of {@code src/test/resources/monitoring/prometheusrule-test.yaml}.
 * Without promtool (Debian's {@code prometheus} package, which {@code .ci/run} installs) the promtool tests
 * are skipped with a banner, except under {@code CI=true}, where they fail.
 */
class PrometheusRuleTest {

    private static final Path RULE = Repository.resolve("manifests/monitoring/prometheusrule.yaml");
    private static final Path CASES = Repository.resolve("system-tests/src/test/resources/monitoring/prometheusrule-test.yaml");
    private static final Path WORK = Repository.resolve("system-tests/target/promtool");
    private static final KubernetesSerialization YAML = new KubernetesSerialization();
    /** Alerts about one ring: each must fire for a ControllerRing and a ClusterRing in the cases. */
    private static final Set<String> NOT_PER_RING = Set.of("RingmasterNoLeader", "RingmasterWebhookErrors",
            "RingmasterWebhookSlow", "RingmasterWebhookCertificateExpiring", "RingmasterDown");

    private static Map<?, ?> rule;

    @BeforeAll
    static void writeRulesFile() throws IOException {
        rule = YAML.unmarshal(Files.readString(RULE, StandardCharsets.UTF_8), Map.class);
        Files.createDirectories(WORK);
        // promtool reads plain rule files: the PrometheusRule's spec is one
        Files.writeString(WORK.resolve("rules.yaml"), YAML.asYaml(rule.get("spec")));
        Files.copy(CASES, WORK.resolve(CASES.getFileName()), StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void theRulesAreValid() {
        Run check = promtool("check", "rules", "rules.yaml");
        assertThat(check.exitCode()).as("promtool check rules:\n%s", check.output()).isZero();
    }

    @Test
    void everyAlertFiresInItsCasesAndStaysQuietWhereItShould() {
        Run test = promtool("test", "rules", CASES.getFileName().toString());
        assertThat(test.exitCode()).as("promtool test rules:\n%s", test.output()).isZero();
    }

    /** No alert goes untested, and each ring alert is proven for both kinds side by side. */
    @Test
    @SuppressWarnings("unchecked")
    void everyAlertHasCasesThatFireItForBothRingKinds() throws IOException {
        Map<?, ?> cases = YAML.unmarshal(Files.readString(CASES, StandardCharsets.UTF_8), Map.class);
        Map<String, Set<String>> firedWith = new TreeMap<>();
        for (Object test : (List<?>) cases.get("tests")) {
            for (Object alertTest : (List<?>) ((Map<?, ?>) test).get("alert_rule_test")) {
                Map<?, ?> alert = (Map<?, ?>) alertTest;
                Set<String> labels = firedWith.computeIfAbsent((String) alert.get("alertname"), name -> new TreeSet<>());
                for (Object expected : (List<?>) alert.get("exp_alerts")) {
                    labels.addAll(((Map<String, ?>) ((Map<?, ?>) expected).get("exp_labels")).keySet());
                    labels.add("fires");
                }
            }
        }
        List<String> alerts = new ArrayList<>();
        for (Object group : (List<?>) ((Map<?, ?>) rule.get("spec")).get("groups")) {
            for (Object entry : (List<?>) ((Map<?, ?>) group).get("rules")) {
                alerts.add((String) ((Map<?, ?>) entry).get("alert"));
            }
        }
        assertThat(alerts).hasSize(11);
        for (String alert : alerts) {
            assertThat(firedWith.get(alert)).as("labels of %s's expected alerts", alert).contains("fires");
            if (!NOT_PER_RING.contains(alert)) {
                assertThat(firedWith.get(alert)).as("labels of %s's expected alerts", alert)
                        .contains("controllerring", "clusterring");
            }
        }
    }

    private record Run(int exitCode, String output) {
    }

    private static Run promtool(String... args) {
        List<String> command = new ArrayList<>(List.of("promtool"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).directory(WORK.toFile()).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Run(process.waitFor(), output);
        } catch (IOException e) {
            String why = "promtool is not on the PATH (" + e.getMessage() + "); install Debian's prometheus package";
            if ("true".equals(System.getenv("CI"))) {
                fail(why);
            }
            System.err.println("\n*** SKIPPED: the PrometheusRule's promtool tests: " + why + " ***\n");
            Assumptions.abort(why);
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
