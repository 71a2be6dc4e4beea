package dev.ringmaster.clustertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.clustertests.support.Command;
import dev.ringmaster.clustertests.support.NodeCluster;
import dev.ringmaster.clustertests.support.Sharder;
import dev.ringmaster.clustertests.support.PolicedScenarios;
import dev.ringmaster.clustertests.support.TimedScenarios;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code /metrics} of the installed sharder, scraped as docs/monitoring.md tells an operator to: with
 * the token of a ServiceAccount bound to {@code ringmaster:metrics-reader}, over HTTPS verified with the
 * CA of the Secret {@code sharder-webhook-tls} for the name {@code sharder.sharding-system.svc}, on each
 * sharder pod's port 8443 (the node reaches pod addresses; it has no kube-proxy for the Service's). The
 * API server decides every request (TokenReview, SubjectAccessReview), so what is proven is the
 * install's RBAC and the pods' wiring, in the cluster, and the answers a scraper gets: the exposition's
 * content type, 403 naming who asked with no series, 401 for a token cut short.
 */
@ExtendWith({TimedScenarios.class, PolicedScenarios.class})
class MetricsAuthClusterIT {

    private static final String READERS = "metrics-auth-cluster-it";
    private static NodeCluster cluster;
    private static Sharder sharder;
    private static Path ca;

    @BeforeAll
    static void readerAndStranger() throws IOException {
        cluster = NodeCluster.get();
        sharder = new Sharder(cluster);
        cluster.kubectl("create", "namespace", READERS).orThrow();
        cluster.kubectl("-n", READERS, "create", "serviceaccount", "reader").orThrow();
        cluster.kubectl("-n", READERS, "create", "serviceaccount", "stranger").orThrow();
        cluster.kubectl("create", "clusterrolebinding", READERS, "--clusterrole", "ringmaster:metrics-reader",
                "--serviceaccount", READERS + ":reader").orThrow();
        ca = cluster.work().resolve("metrics-ca.crt");
        String pem = cluster.kubectl("-n", Sharder.NAMESPACE, "get", "secret", "sharder-webhook-tls", "-o",
                "jsonpath={.data.ca\\.crt}").orThrow().out();
        Files.write(ca, Base64.getDecoder().decode(pem.strip()));
    }

    @AfterAll
    static void removeThem() {
        cluster.kubectl("delete", "clusterrolebinding", READERS, "--ignore-not-found");
        cluster.kubectl("delete", "namespace", READERS, "--wait=false", "--ignore-not-found");
    }

    @Test
    void onlyAuthorizedScrapersGetTheMetricsOfEveryReplica() {
        String reader = token("reader");
        String stranger = token("stranger");
        sharder.awaitLeader(Duration.ofSeconds(60));
        for (Pod pod : sharder.pods()) {
            String ip = pod.getStatus().getPodIP();
            Command.Result allowed = scrape(ip, reader);
            assertThat(status(allowed)).as("%s, a bound ServiceAccount: %s", pod.getMetadata().getName(), allowed.describe())
                    .isEqualTo("200");
            assertThat(contentType(allowed)).startsWith("text/plain");
            // series every replica exports whether or not a ring exists (the class may run alone), and the JVM's
            assertThat(allowed.out()).contains("ringmaster_sharder_ring_kind_served").contains("ringmaster_sharder_leader")
                    .contains("jvm_memory_used_bytes");
            Command.Result forbidden = scrape(ip, stranger);
            assertThat(status(forbidden)).as("a ServiceAccount without the binding").isEqualTo("403");
            assertThat(forbidden.out()).as("the refusal names who asked and shows no series")
                    .contains("system:serviceaccount:" + READERS + ":stranger").doesNotContain("ringmaster_");
            assertThat(status(scrape(ip, null))).as("no token").isEqualTo("401");
            assertThat(status(scrape(ip, "not-a-token"))).as("a token the API server does not know").isEqualTo("401");
            assertThat(status(scrape(ip, reader.substring(0, reader.length() - 8))))
                    .as("a token the API server signed, cut short").isEqualTo("401");
            Command.Result plain = curl(List.of("http://" + ip + ":8080/metrics"));
            assertThat(status(plain)).as("/metrics is not on the plain port").isEqualTo("404");
            for (String probe : List.of("/healthz", "/readyz")) {
                assertThat(status(curl(List.of("http://" + ip + ":8080" + probe)))).as("the kubelet's probe %s is", probe)
                        .isEqualTo("200");
            }
        }
    }

    private static String token(String serviceAccount) {
        return cluster.kubectl("-n", READERS, "create", "token", serviceAccount).orThrow().out().strip();
    }

    /** {@code curl} of {@code https://sharder.sharding-system.svc:8443/metrics}, connected to the pod's address. */
    private static Command.Result scrape(String podIp, String token) {
        List<String> args = new ArrayList<>(List.of("--cacert", ca.toString(), "--connect-to",
                "sharder.sharding-system.svc:8443:" + podIp + ":8443"));
        if (token != null) {
            args.addAll(List.of("-H", "Authorization: Bearer " + token));
        }
        args.add("https://sharder.sharding-system.svc:8443/metrics");
        return curl(args);
    }

    /** {@code curl -sS} printing the body, then the content type and the status code on lines of their own. */
    private static Command.Result curl(List<String> args) {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20", "-w",
                "\n%{content_type}\n%{http_code}"));
        command.addAll(args);
        return Command.run(cluster.work(), Map.of(), Duration.ofSeconds(30), command);
    }

    private static String status(Command.Result result) {
        return fromTheEnd(result, 1);
    }

    private static String contentType(Command.Result result) {
        return fromTheEnd(result, 2);
    }

    private static String fromTheEnd(Command.Result result, int line) {
        List<String> lines = result.out().lines().toList();
        return lines.size() < 2 ? "(no answer: " + result.err().strip() + ")" : lines.get(lines.size() - line).strip();
    }
}
