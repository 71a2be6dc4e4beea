package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.Distribution;
import dev.ringmaster.itests.support.Json;
import dev.ringmaster.itests.support.Kubeconfigs;
import dev.ringmaster.itests.support.MockApiServer;
import dev.ringmaster.itests.support.RingObjects;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.itests.support.WebhookCertificates;
import dev.ringmaster.itests.support.WebhookClient;
import dev.ringmaster.ring.RingContract;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * {@code bin/ringmaster run} as an operator runs it: a process of its own, configured by flags and
 * the {@code etc/} files, against the mock API server of the test JVM. While it runs, the test
 * changes {@code etc/} and {@code deploy/} the way an operator would, and finally sends SIGTERM.
 */
public class RunCliIT {

    private static final Duration SOON = Duration.ofSeconds(60);
    private static final String RING = SharderIT.RING;
    private static final String SHARD_LABEL = RingContract.shardLabel(RING);
    private static final String DRAIN_LABEL = RingContract.drainLabel(RING);

    private MockApiServer cluster;
    private KubernetesClient client;
    private SharderHome replica;
    private Path home;
    private Path tls;
    private int webhookPort;
    private List<String> runArgs;
    private Cli.Started ringmaster;

    @Before
    public void start() throws IOException {
        cluster = MockApiServer.fresh();
        client = cluster.client();
        replica = SharderHome.prepare("run");
        home = replica.home();
        tls = replica.tls();
        webhookPort = replica.webhookPort();
        Path kubeconfig = Kubeconfigs.unchecked(home.resolve("kubeconfig.yaml"), cluster.url());
        runArgs = replica.runArgs(kubeconfig);
    }

    @After
    public void stop() throws InterruptedException {
        if (ringmaster != null && ringmaster.process().isAlive()) {
            ringmaster.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        cluster.close();
    }

    @Test
    public void runsTheSharderSwapsStrategiesFromEtcAndDeployAndStopsCleanlyOnSigterm() throws Exception {
        ringmaster = Cli.start(home, runArgs);
        Waiting.until(SOON, () -> "/healthz and /readyz answer 200\n" + ringmaster.err(),
                () -> replica.status("/healthz") == 200 && replica.status("/readyz") == 200);
        Waiting.until(SOON, () -> "every ConfigMap assigned, the ring Ready\n" + ringmaster.err(),
                () -> unlabelled() == 0 && "True".equals(ready().get("status")));

        // the webhook labels a new ConfigMap with the shard the ring picks, over HTTPS
        String review = admit("/webhooks/sharder/clusterring/" + RING,
                WebhookClient.createConfigMap("run-1", SharderIT.NAMESPACE, "fresh"));
        Json response = Json.parse(review);
        assertEquals(review, "run-1", response.string("uid"));
        assertEquals(review, "JSONPatch", response.string("patchType"));
        String patch = new String(Base64.getDecoder().decode(response.string("patch")), StandardCharsets.UTF_8);
        assertTrue(patch, patch.contains("\"/metadata/labels\"") && patch.contains(SHARD_LABEL)
                && SharderIT.SHARDS.stream().anyMatch(shard -> patch.contains("\"" + shard + "\"")));

        // the default strategy in etc/ names a strategy no bundle provides: the ring stops, nothing moves
        Path sharderConfig = home.resolve("etc/dev.ringmaster.sharder.cfg");
        String shipped = Files.readString(sharderConfig);
        Files.writeString(sharderConfig, shipped.replace("defaultStrategy = ${ringmaster.run.defaultStrategy}",
                "defaultStrategy = jump-hash"));
        Waiting.until(SOON, () -> "Ready=False/StrategyUnavailable, got " + ready(),
                () -> "StrategyUnavailable".equals(ready().get("reason")));
        assertEquals("no drains while the strategy is missing", 0, draining());

        // dropping the strategy bundle into deploy/ makes it available: the ring rebalances through drains
        Path plugin = home.resolve("deploy").resolve(Distribution.jumpHashPlugin().getFileName());
        Files.copy(Distribution.jumpHashPlugin(), plugin);
        Waiting.until(SOON, () -> "Ready=True with jump-hash, got " + ready(),
                () -> "True".equals(ready().get("status")));
        Waiting.within(SOON, "objects put into drain for their new shard").until(() -> draining() > 0);

        // removing the bundle in use: Ready=False again, and no further drains
        Files.delete(plugin);
        Waiting.until(SOON, () -> "Ready=False/StrategyUnavailable after removal, got " + ready(),
                () -> "StrategyUnavailable".equals(ready().get("reason")));
        long drainingWithoutStrategy = draining();
        Waiting.throughout(Duration.ofSeconds(3), "no new drains without the strategy")
                .until(() -> draining() == drainingWithoutStrategy);

        // SIGTERM: the process ends on its own and the sharder gives up its leadership on the way out
        ringmaster.process().destroy();
        assertTrue("ringmaster run ends within 30 s of SIGTERM", ringmaster.process().waitFor(30, TimeUnit.SECONDS));
        Lease election = client.leases().inNamespace("sharding-system").withName("sharder").get();
        // fabric8 releases a lease by shortening it to one second from the last renewal, so a successor
        // takes over at once instead of after the full 15 s
        assertEquals("the leader election lease is released: " + election.getSpec(), Integer.valueOf(1),
                election.getSpec().getLeaseDurationSeconds());
        assertTrue("no errors on the way:\n" + ringmaster.err(), !ringmaster.err().contains("ERROR"));
    }

    @Test
    public void badFlagsAreUsageErrors() {
        Cli.run(home, List.of("run", "--kubeconfig", home.resolve("missing.yaml").toString()))
                .assertUsageError("--kubeconfig " + home.resolve("missing.yaml") + ": no such readable file");
        Cli.run(home, List.of("run", "--webhook-ca", home.resolve("etc/dev.ringmaster.sharder.cfg").toString()))
                .assertUsageError("--webhook-ca is only used with --webhook-url");
        Cli.run(home, List.of("run", "--frobnicate")).assertUsageError("unknown flag --frobnicate (see ringmaster run --help)");
        Cli.run(home, List.of("run", "--metrics-auth=basic")).assertUsageError("--metrics-auth must be none or kubernetes");
        Cli.Result help = Cli.run(home, List.of("run", "--namespace=ops", "-h"));
        help.assertSucceeded();
        assertTrue(help.toString(), help.out().startsWith("usage: ringmaster run"));
    }

    /**
     * The local shell: ring commands typed on the terminal, and end of input stops the process. The log
     * goes to the file RINGMASTER_LOG_FILE names, not to the terminal. A flag wins over a literal value
     * in etc/: the file says rendezvous, --default-strategy consistent-hash.
     */
    @Test
    public void theShellAnswersRingCommands() throws Exception {
        Path sharderConfig = home.resolve("etc/dev.ringmaster.sharder.cfg");
        String literal = Files.readString(sharderConfig)
                .replace("defaultStrategy = ${ringmaster.run.defaultStrategy}", "defaultStrategy = rendezvous");
        assertTrue("the shipped file leaves defaultStrategy to the flag", literal.contains("defaultStrategy = rendezvous"));
        Files.writeString(sharderConfig, literal);
        List<String> withShell = new ArrayList<>(runArgs);
        withShell.addAll(List.of("--default-strategy", "consistent-hash", "--shell"));
        Path log = home.resolve("logs/ringmaster.log");
        ringmaster = Cli.startWithInput(home, withShell, Map.of("RINGMASTER_LOG_FILE", log.toString()));
        Waiting.until(SOON, () -> "every ConfigMap assigned, the ring Ready\n" + ringmaster.err(),
                () -> unlabelled() == 0 && "True".equals(ready().get("status")));
        try (Writer terminal = new OutputStreamWriter(ringmaster.process().getOutputStream(), StandardCharsets.UTF_8)) {
            // the process learns of the status it wrote from its watch, which may trail the test's read
            Waiting.until(SOON, () -> "ring:list shows the ring Ready\n" + ringmaster.out(), () -> {
                terminal.write("ring:list\n");
                terminal.flush();
                return ringmaster.out().matches("(?s).*ClusterRing\\s+example\\s+consistent-hash\\s+2\\s+2\\s+True.*");
            });
            terminal.write("ring:shards " + RING + "\nring:explain clusterring/" + RING + " /ConfigMap/" + SharderIT.NAMESPACE
                    + "/cm-1\nring:strategies\n");
        }
        assertTrue("end of input stops ringmaster", ringmaster.process().waitFor(30, TimeUnit.SECONDS));
        String out = ringmaster.out();
        for (String shard : SharderIT.SHARDS) {
            assertTrue(out, out.matches("(?s).*" + shard + "\\s+ready\\s+1\\s+yes.*"));
        }
        String assigned = labels(client.configMaps().inNamespace(SharderIT.NAMESPACE).withName("cm-1").get()).get(SHARD_LABEL);
        assertTrue(out, out.contains("shard:      " + assigned));
        assertTrue(out, out.contains("key:        /ConfigMap/" + SharderIT.NAMESPACE + "/cm-1"));
        assertTrue(out, out.contains("consistent-hash (default): rings [ClusterRing/" + RING + "], settings {name=consistent-hash,"
                + " tokenSeparator=, tokensPerShard=100}"));

        String logged = Files.readString(log);
        assertTrue(logged, logged.matches("(?s).*\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\S* \\[[^]]+] INFO "
                + "LeaderElection - \\S+ leads the sharder.*"));
        assertFalse(ringmaster.err(), ringmaster.err().contains("leads the sharder"));
    }

    /** POSTs an AdmissionReview to the run's webhook, trusting only the test CA; answers the body. */
    private String admit(String path, String review) {
        HttpClient https = WebhookClient.trusting(tls.resolve(WebhookCertificates.CA));
        HttpResponse<String> response = Waiting.value(SOON,
                () -> "the webhook answering on " + webhookPort + "\n"
                + ringmaster.err(),
                () -> {
                    try {
                        return Optional.of(WebhookClient.post(https, webhookPort, path, review));
                    } catch (IOException e) {
                        return Optional.empty();
                    }
                });
        assertEquals(response.body(), 200, response.statusCode());
        return response.body();
    }

    private long unlabelled() {
        return configMaps().stream().filter(configMap -> !labels(configMap).containsKey(SHARD_LABEL)).count();
    }

    private long draining() {
        return configMaps().stream().filter(configMap -> labels(configMap).containsKey(DRAIN_LABEL)).count();
    }

    private List<ConfigMap> configMaps() {
        return client.configMaps().inNamespace(SharderIT.NAMESPACE).list().getItems();
    }

    private static Map<String, String> labels(ConfigMap configMap) {
        return Objects.requireNonNullElse(configMap.getMetadata().getLabels(), Map.of());
    }

    /** The ring's Ready condition, empty while it has none. */
    private Map<String, Object> ready() {
        return new RingObjects(client, RING, "default").readyCondition();
    }
}
