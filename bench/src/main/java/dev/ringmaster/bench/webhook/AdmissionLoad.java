package dev.ringmaster.bench.webhook;

import dev.ringmaster.bench.BenchArgs;
import dev.ringmaster.bench.BenchCertificate;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.ring.spi.AdmissionResponse.PatchOperation;
import dev.ringmaster.webhook.dispatch.HandlerWhiteboard;
import dev.ringmaster.webhook.review.AdmissionReviewCodec;
import dev.ringmaster.webhook.server.WebhookMetrics;
import dev.ringmaster.webhook.server.WebhookServer;
import dev.ringmaster.webhook.server.WebhookSettings;
import dev.ringmaster.webhook.tls.KeyMaterial;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLContext;

/**
 * The webhook load benchmark: starts, in this JVM, the real webhook server (TLS from PEM files, the
 * sharder's own admission handler over 3 ready shards with the consistent-hash strategy, the timers
 * in a Prometheus registry as in the distribution) and a bare Jetty server set up
 * the same way answering fixed bytes; sends each real HTTPS AdmissionReviews (CREATE of a ConfigMap)
 * over keep-alive connections, first as fast as they answer (closed loop: the most each can do, in
 * rounds alternating between the two servers; the median of the rounds' ratios counts), then at fixed rates (open
 * loop: p50/p99/max from each request's scheduled time), and reports the highest rate each sustains
 * (p99 within the target, no errors, the rate achieved) and the webhook's ratios to the bare server.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.ringmaster.bench.webhook.AdmissionLoad
 *     [--rates 250,500,1000,2000,4000,6000,8000,10000,12000,15000,20000,25000] [--seconds 5] [--warmup-seconds 5]
 *     [--saturate-seconds 3] [--rounds 5] [--connections 8] [--p99-ms 5]
 *     [--distribution distribution/target/ringmaster [--work bench/target/webhook-load] [--sharder-jvm "-Xmx256m"]]
 * </pre>
 * With {@code --distribution} the webhook under load is not started in this JVM but is the
 * distribution's: {@code bin/ringmaster run} in Felix against a real API server ({@link InDistribution}), with
 * {@code --sharder-jvm} as its JVM options.
 * Exits 0 when the webhook sustains 1,000 req/s and its closed-loop throughput is at least 0.8 of the
 * bare server's, 1 otherwise.
 */
public final class AdmissionLoad {

    private static final int DISTINCT_REQUESTS = 4096;
    private static final int TARGET_RATE = 1000;
    private static final double TARGET_RATIO = 0.8;

    private AdmissionLoad() {
    }

    private record Step(int rate, LoadClient.Result result, boolean sustained) {
    }

    private record Outcome(String name, List<LoadClient.Result> rounds, LoadClient.Result saturated, List<Step> steps) {
        int highestSustained() {
            return steps.stream().filter(Step::sustained).mapToInt(Step::rate).max().orElse(0);
        }
    }

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(AdmissionLoad.class, args, "rates", "seconds", "warmup-seconds",
                "saturate-seconds", "rounds", "connections", "p99-ms", "distribution", "work", "sharder-jvm");
        List<Integer> rates = new ArrayList<>();
        for (String rate : options.string("rates", "250,500,1000,2000,4000,6000,8000,10000,12000,15000,20000,25000").split(",")) {
            rates.add(Integer.parseInt(rate.trim()));
        }
        double seconds = options.decimal("seconds", 5);
        double warmup = options.decimal("warmup-seconds", 5);
        double saturate = options.decimal("saturate-seconds", 3);
        int connections = options.integer("connections", 8);
        int rounds = options.integer("rounds", 5);
        double p99Limit = options.decimal("p99-ms", 5);

        Path directory = Files.createTempDirectory("webhook-bench");
        BenchCertificate certificate = BenchCertificate.create(directory);
        SSLContext tls = certificate.clientContext();
        KeyMaterial material = KeyMaterial.load(directory.resolve("tls.crt"), directory.resolve("tls.key"), Instant.now());

        List<byte[]> requests = requests();
        byte[] fixed = new AdmissionReviewCodec().response("bench-0", AdmissionResponse.patch(List.of(
                new PatchOperation("add", "/metadata/labels/" + RingContract.shardLabel(ShardingHandler.RING).replace("/", "~1"),
                        "shard-1"))));

        String distribution = options.string("distribution", null);
        System.out.printf(Locale.ROOT, "webhook load (%s): %d connections, steps of %.0f s, p99 limit %.1f ms, %d cores, %s%n",
                distribution == null ? "in this JVM" : "bin/ringmaster run of " + distribution, connections, seconds,
                p99Limit, Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.version"));
        List<Outcome> outcomes = new ArrayList<>();
        try (WebhookUnderTest webhook = distribution == null ? inThisJvm(directory, tls)
                : InDistribution.start(Path.of(distribution), Path.of(options.string("work", "bench/target/webhook-load")),
                        options.string("sharder-jvm", "-Xmx256m"), requests.get(0));
                BareServer bare = new BareServer(material, fixed)) {
            try (LoadClient webhookClient = new LoadClient(webhook.tls(), webhook.port(), connections, requests, true);
                    LoadClient bareClient = new LoadClient(tls, bare.port(), connections, requests, false)) {
                System.out.println("warming up both servers ...");
                webhookClient.saturate(warmup);
                bareClient.saturate(warmup);
                // closed loop in alternating rounds, so a neighbour's load on this shared machine hits both alike
                List<LoadClient.Result> webhookRounds = new ArrayList<>();
                List<LoadClient.Result> bareRounds = new ArrayList<>();
                for (int round = 1; round <= rounds; round++) {
                    webhookRounds.add(closedLoop("webhook", round, webhookClient, saturate));
                    bareRounds.add(closedLoop("bare", round, bareClient, saturate));
                }
                // open loop, the two servers in turn at each rate (which also keeps every connection in use
                // well within the idle timeout), until neither sustains a rate
                List<Step> webhookSteps = new ArrayList<>();
                List<Step> bareSteps = new ArrayList<>();
                System.out.printf(Locale.ROOT, "%-8s %8s %8s %7s %8s %8s %8s %10s  %s%n", "target", "rate/s", "sent",
                        "errors", "p50 ms", "p99 ms", "max ms", "achieved/s", "sustained");
                for (int rate : rates) {
                    boolean any = false;
                    if (stillSustains(webhookSteps)) {
                        webhookSteps.add(step("webhook", webhookClient, rate, seconds, p99Limit));
                        any = true;
                    }
                    if (stillSustains(bareSteps)) {
                        bareSteps.add(step("bare", bareClient, rate, seconds, p99Limit));
                        any = true;
                    }
                    if (!any) {
                        break;
                    }
                }
                outcomes.add(new Outcome("webhook", webhookRounds, median(webhookRounds), webhookSteps));
                outcomes.add(new Outcome("bare", bareRounds, median(bareRounds), bareSteps));
            }
        }
        System.exit(report(outcomes) ? 0 : 1);
    }

    /** The webhook the load goes to: its port on 127.0.0.1, a TLS context that trusts it, how to stop it. */
    record WebhookUnderTest(int port, SSLContext tls, AutoCloseable stop) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            stop.close();
        }
    }

    /** The real webhook server in this JVM, with the sharder's admission handler ({@link ShardingHandler}). */
    private static WebhookUnderTest inThisJvm(Path directory, SSLContext tls) throws Exception {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        HandlerWhiteboard handlers = new HandlerWhiteboard();
        handlers.bind(ShardingHandler.create(prometheus), Map.of(AdmissionHandler.NAME, "sharder",
                AdmissionHandler.PATH_PREFIX, ShardingHandler.PREFIX));
        WebhookMetrics metrics = new WebhookMetrics();
        metrics.add(prometheus);
        WebhookServer server = new WebhookServer(WebhookSettings.defaults("127.0.0.1", 0, directory), handlers::table,
                metrics, Clock.systemUTC(), new WebhookServer.Listener() {
                    @Override
                    public void listening(int port) {
                    }

                    @Override
                    public void stopped() {
                    }
                });
        server.start();
        int port = server.port().orElseThrow(() -> new IllegalStateException(
                "webhook not listening: " + server.problem().orElse("?")));
        return new WebhookUnderTest(port, tls, server);
    }

    private static LoadClient.Result closedLoop(String name, int round, LoadClient client, double seconds)
            throws InterruptedException {
        LoadClient.Result result = client.saturate(seconds);
        System.out.printf(Locale.ROOT, "%-8s closed loop, round %d: %,.0f req/s, p50 %.2f ms, p99 %.2f ms, errors %d%s%n",
                name, round, result.throughput(), result.percentileMillis(50), result.percentileMillis(99),
                result.errors(), result.firstError() == null ? "" : " (first: " + result.firstError() + ")");
        return result;
    }

    /** The round of median throughput. */
    private static LoadClient.Result median(List<LoadClient.Result> rounds) {
        List<LoadClient.Result> sorted = new ArrayList<>(rounds);
        sorted.sort(java.util.Comparator.comparingDouble(LoadClient.Result::throughput));
        return sorted.get(sorted.size() / 2);
    }

    /** Higher rates only queue more once one was not sustained. */
    private static boolean stillSustains(List<Step> steps) {
        return steps.isEmpty() || steps.get(steps.size() - 1).sustained();
    }

    /**
     * One open-loop step; a step that is not sustained runs once more and the second run counts, since
     * on a shared machine one neighbour's burst can spoil a few seconds.
     */
    private static Step step(String name, LoadClient client, int rate, double seconds, double p99Limit)
            throws InterruptedException {
        Step first = run(name, client, rate, seconds, p99Limit);
        return first.sustained() ? first : run(name + "*", client, rate, seconds, p99Limit);
    }

    private static Step run(String name, LoadClient client, int rate, double seconds, double p99Limit)
            throws InterruptedException {
        LoadClient.Result result = client.atRate(rate, seconds);
        boolean sustained = result.errors() == 0 && result.percentileMillis(99) <= p99Limit
                && result.throughput() >= 0.95 * rate;
        System.out.printf(Locale.ROOT, "%-8s %8d %8d %7d %8.2f %8.2f %8.2f %10.0f  %s%s%n", name, rate,
                result.latencies().length + result.errors(), result.errors(), result.percentileMillis(50),
                result.percentileMillis(99), result.maxMillis(), result.throughput(), sustained ? "yes" : "no",
                result.firstError() == null ? "" : "  first error: " + result.firstError());
        return new Step(rate, result, sustained);
    }

    /** Prints the summary; whether the webhook met its targets. */
    private static boolean report(List<Outcome> outcomes) {
        Outcome webhook = outcomes.get(0);
        Outcome bare = outcomes.get(1);
        // each round's webhook throughput against the bare round right after it (the same neighbours' load)
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < webhook.rounds().size(); i++) {
            ratios.add(webhook.rounds().get(i).throughput() / bare.rounds().get(i).throughput());
        }
        ratios.sort(null);
        double closedRatio = ratios.get(ratios.size() / 2);
        double sustainedRatio = bare.highestSustained() == 0 ? Double.NaN
                : (double) webhook.highestSustained() / bare.highestSustained();
        Step atTarget = webhook.steps().stream().filter(step -> step.rate() == TARGET_RATE).findFirst().orElse(null);
        System.out.println("(* a second run of a rate the first run did not sustain; the second run counts)");
        System.out.printf(Locale.ROOT, "%nhighest sustained rate: webhook %,d req/s, bare %,d req/s (ratio %.2f)%n",
                webhook.highestSustained(), bare.highestSustained(), sustainedRatio);
        System.out.printf(Locale.ROOT, "closed-loop throughput (median round): webhook %,.0f req/s, bare %,.0f req/s%n",
                webhook.saturated().throughput(), bare.saturated().throughput());
        System.out.printf(Locale.ROOT, "closed-loop ratio webhook/bare per round: %s, median %.2f%n", ratios.stream()
                .map(ratio -> String.format(Locale.ROOT, "%.2f", ratio)).toList(), closedRatio);
        boolean rateMet = atTarget != null && atTarget.sustained();
        System.out.printf(Locale.ROOT, "target p99 <= 5 ms at %,d req/s: %s%s%n", TARGET_RATE, rateMet ? "met" : "NOT met",
                atTarget == null ? " (rate not run)" : String.format(Locale.ROOT, " (p99 %.2f ms)",
                        atTarget.result().percentileMillis(99)));
        boolean ratioMet = closedRatio >= TARGET_RATIO;
        System.out.printf(Locale.ROOT, "target throughput >= %.1f x bare: %s%n", TARGET_RATIO, ratioMet ? "met" : "NOT met");
        return rateMet && ratioMet;
    }

    /** Complete HTTP requests: AdmissionReviews of ConfigMap CREATEs, each with its own uid and name. */
    private static List<byte[]> requests() {
        List<byte[]> requests = new ArrayList<>(DISTINCT_REQUESTS);
        for (int i = 0; i < DISTINCT_REQUESTS; i++) {
            String name = "config-" + i;
            String namespace = "project-" + (i % 50);
            String body = """
                    {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"bench-%d",\
                    "kind":{"group":"","version":"v1","kind":"ConfigMap"},\
                    "resource":{"group":"","version":"v1","resource":"configmaps"},\
                    "requestKind":{"group":"","version":"v1","kind":"ConfigMap"},\
                    "requestResource":{"group":"","version":"v1","resource":"configmaps"},\
                    "name":"%s","namespace":"%s","operation":"CREATE",\
                    "userInfo":{"username":"system:serviceaccount:%s:controller","uid":"0f1e2d3c",\
                    "groups":["system:serviceaccounts","system:serviceaccounts:%s","system:authenticated"]},\
                    "object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"%s","namespace":"%s",\
                    "creationTimestamp":null,"labels":{"app":"checksum","tier":"backend"},\
                    "annotations":{"example.com/owner":"team-a"}},"data":{"config.yaml":"replicas: 3\\nmode: fast\\n",\
                    "feature-flags":"a=true,b=false"}},"oldObject":null,"dryRun":false,\
                    "options":{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"controller"}}}"""
                    .formatted(i, name, namespace, namespace, namespace, name, namespace);
            byte[] content = body.getBytes(StandardCharsets.UTF_8);
            String head = "POST " + ShardingHandler.PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nAccept: application/json, */*\r\n"
                    + "Content-Length: " + content.length + "\r\n\r\n";
            byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
            byte[] request = new byte[headBytes.length + content.length];
            System.arraycopy(headBytes, 0, request, 0, headBytes.length);
            System.arraycopy(content, 0, request, headBytes.length, content.length);
            requests.add(request);
        }
        return requests;
    }
}
