package dev.ringmaster.clustertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.clustertests.support.CleanUp;
import dev.ringmaster.clustertests.support.StatefulSetScenarios;
import dev.ringmaster.clustertests.support.Waiting;
import dev.ringmaster.examples.checksum.Cost;
import dev.ringmaster.ring.RingContract;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * (#33) The shard StatefulSet sized by load (docs/design.md section 10.1): the ring names the example's
 * StatefulSet in {@code spec.autoscaling} (3 to 4 shards, a target of 50 % busy), and the test drives load
 * by updating the ring's ConfigMaps at a steady rate, each reconcile costing {@value #COST_MS} ms of
 * waiting ({@value Cost#ANNOTATION}). The shard pods measure their busy time and report it
 * on their Lease renewals; the sharder's leader adds the reports up.
 *
 * <ul>
 *   <li>at the base rate the load is 1.0 busy second per second, ⌈1.0 / 0.5⌉ = 2 shards, held to the minimum of
 *       3: nothing scales over two report periods, so that every shard's last report is of the base load alone
 *       (half the load again, 1.5 s/s, would still want 3; a reconcile's API calls add a few per cent to its
 *       cost here);</li>
 *   <li>at twice the rate (2.0 s/s, ⌈4.0⌉ = 4) the StatefulSet goes to 4 pods at once (no scale-up window), the
 *       new shard takes its objects, and it stays at 4 while the load lasts; it would with a quarter of the
 *       updates lost (more than 1.5 s/s wants 4);</li>
 *   <li>the load off, after the scale-down window, back to 3: the leaving pod releases its Lease and its
 *       objects move at once (a graceful handover, not a dead shard's).</li>
 * </ul>
 *
 * Each way is one {@code Scaled} Event, and no object is reconciled by two shards at overlapping times. Under the
 * doubled load every shard's metrics port serves the busy time its Lease reports.
 * The time from the step to 4 settled shards is printed (docs/operating.md has the measurements).
 */
class AutoscalingClusterIT extends StatefulSetScenarios {

    private static final Duration SETTLE = Duration.ofSeconds(120);
    private static final long COST_MS = 1000;
    /** Updates per second at the base load: 1 × 1 s = 1.0 busy s/s over the ring. */
    private static final double BASE_RATE = 1.0;
    private static final int TARGET_PERCENT = 50;
    private static final int SCALE_DOWN_WINDOW_SECONDS = 20;
    /** The shards' default report period (docs/shard-client.md): a change in load shows within about one. */
    private static final Duration REPORT_PERIOD = Duration.ofSeconds(15);
    private static final String TICK_ANNOTATION = "clustertests.ringmaster.dev/tick";
    /** The busy time in a load annotation (its format, docs/design.md), four decimals. */
    private static final Pattern BUSY = Pattern.compile("(?:^| )busy=([0-9.]+)");

    private static boolean autoscaled;

    @Test
    void aLoadStepScalesTheShardsOutAndBackInByHandover() throws Exception {
        Set<String> three = shards.settledWithObjects("autoscale", SETTLE);
        assertThat(three).hasSize(3);
        List<String> names = shards.configMaps().stream().map(map -> map.getMetadata().getName()).sorted().toList();
        List<String> scaledBefore = scaledEvents();

        shards.patchRing("merge", """
                {"spec": {"autoscaling": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet",
                  "name": "%s", "namespace": "%s"}, "minShards": 3, "maxShards": 4, "targetUtilizationPercent": %d,
                  "scaleUpStabilizationSeconds": 0, "scaleDownStabilizationSeconds": %d}}}"""
                .formatted(shards.workloadRef().substring(shards.workloadRef().indexOf('/') + 1), shards.namespace(),
                        TARGET_PERCENT, SCALE_DOWN_WINDOW_SECONDS));
        autoscaled = true;

        try (Load load = new Load(names)) {
            long base = System.nanoTime();
            load.rate(BASE_RATE);
            Waiting.until(REPORT_PERIOD.multipliedBy(4), () -> "status.autoscaling with 3 desired shards: "
                    + autoscalingStatus(), () -> desiredShards() == 3);
            // two report periods of the base load: every shard's last report is of a window under it alone
            Thread.sleep(Math.max(0, REPORT_PERIOD.multipliedBy(2).toMillis() - (System.nanoTime() - base) / 1_000_000));
            System.out.printf("cluster-tests: at the base load the shards report %s busy s/s%n", reportedBusy());
            assertThat(desiredShards()).as("desired shards at the base load: %s; the shards report %s busy s/s",
                    autoscalingStatus(), reportedBusy()).isEqualTo(3);
            assertThat(scaledEvents()).as("Scaled Events at the base load").isEqualTo(scaledBefore);
            assertThat(shards.readyPods()).isEqualTo(three);

            long step = System.nanoTime();
            load.rate(2 * BASE_RATE);
            Waiting.until(Duration.ofSeconds(180), () -> "4 shard pods after the load doubled: " + autoscalingStatus()
                    + "\n" + shards.diagnostics(), () -> shards.readyPods().size() == 4);
            Set<String> four = shards.readyPods();
            shards.awaitSettledOn(four, SETTLE);
            System.out.printf("cluster-tests: load ×2 → 4 shards settled %.1f s after the step; the shards report %s"
                    + " busy s/s%n", (System.nanoTime() - step) / 1e9, reportedBusy());
            Thread.sleep(REPORT_PERIOD.toMillis());
            assertThat(shards.readyPods()).as("while the doubled load lasts").isEqualTo(four);
            four.forEach(AutoscalingClusterIT::awaitLoadServedAsMetric);

            long off = System.nanoTime();
            load.rate(0);
            Waiting.until(Duration.ofSeconds(180), () -> "back to 3 shard pods after the load stopped: "
                    + autoscalingStatus() + "\n" + shards.diagnostics(), () -> shards.pods().size() == 3);
            shards.awaitSettledOn(three, SETTLE);
            System.out.printf("cluster-tests: load off → 3 shards settled %.1f s later (scale-down window %d s)%n",
                    (System.nanoTime() - off) / 1e9, SCALE_DOWN_WINDOW_SECONDS);
        }

        List<String> scaled = scaledEvents().stream().filter(note -> !scaledBefore.contains(note)).toList();
        scaled.forEach(note -> System.out.println("cluster-tests: Scaled: " + note));
        assertThat(scaled).as("the Scaled Events: one out, one in").hasSize(2)
                .anySatisfy(note -> assertThat(note).contains("from 3 to 4 shards"))
                .anySatisfy(note -> assertThat(note).contains("from 4 to 3 shards"));
        shards.assertNoOverlappingReconciles();
    }

    /**
     * The shard pod's metrics port ({@code --metrics-port 8080} in the example's manifest, read at the pod's address)
     * serves the load report its Lease carries: {@code ringmaster_shard_load_seconds_per_second} is the busy time of
     * the {@code ringmaster.dev/load} annotation, and positive under the load (a renewal between the two reads is
     * waited out).
     */
    private static void awaitLoadServedAsMetric(String pod) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        String ip = shards.pods().stream().filter(p -> p.getMetadata().getName().equals(pod)).findFirst()
                .map(p -> p.getStatus().getPodIP()).orElseThrow();
        String[] sample = {""};
        double[] annotated = {Double.NaN};
        Waiting.until(Duration.ofSeconds(30), () -> pod + "'s metric ringmaster_shard_load_seconds_per_second and its "
                + "Lease's busy time, the same and positive: '" + sample[0] + "', " + annotated[0], () -> {
                    String scrape = http.send(HttpRequest.newBuilder(URI.create("http://" + ip + ":8080/metrics"))
                            .timeout(Duration.ofSeconds(5)).build(), BodyHandlers.ofString()).body();
                    sample[0] = scrape.lines().filter(line -> line.startsWith("ringmaster_shard_load_seconds_per_second{")
                            && line.contains("shard=\"" + pod + "\"")).findFirst().orElse("");
                    annotated[0] = reportedBusy().getOrDefault(pod, Double.NaN);
                    return !sample[0].isEmpty() && annotated[0] > 0 && Math.abs(annotated[0]
                            - Double.parseDouble(sample[0].substring(sample[0].lastIndexOf(' ') + 1))) < 0.00005;
                });
        System.out.println("cluster-tests: " + pod + " serves " + sample[0]);
    }

    /** The busy time of each shard's last load report on its Lease, by shard, as the leader reads them. */
    private static Map<String, Double> reportedBusy() {
        Map<String, Double> busy = new TreeMap<>();
        for (Lease lease : cluster.admin().leases().inNamespace(shards.namespace()).list().getItems()) {
            Map<String, String> annotations = Objects.requireNonNullElse(lease.getMetadata().getAnnotations(), Map.of());
            Matcher report = BUSY.matcher(annotations.getOrDefault(RingContract.LOAD_ANNOTATION, ""));
            if (report.find()) {
                busy.put(lease.getMetadata().getName(), Double.parseDouble(report.group(1)));
            }
        }
        return busy;
    }

    /**
     * Autoscaling off again, the StatefulSet at 3 shards and the ConfigMaps without a cost, whatever happened: the
     * classes after this one reconcile the same ConfigMaps, each reconcile would wait the cost.
     */
    @AfterAll
    static void asBefore() throws Exception {
        if (autoscaled) {
            CleanUp.steps(() -> shards.patchRing("merge", "{\"spec\": {\"autoscaling\": null}}"), () -> {
                for (ConfigMap map : shards.configMaps()) {
                    if (map.getMetadata().getAnnotations() != null
                            && map.getMetadata().getAnnotations().containsKey(Cost.ANNOTATION)) {
                        patchConfigMap(map.getMetadata().getName(),
                                "{\"metadata\": {\"annotations\": {\"" + Cost.ANNOTATION + "\": null}}}");
                    }
                }
            }, () -> shards.awaitSettledOn(shards.scale(3), SETTLE));
        }
    }

    /** A JSON merge patch of one of the ring's ConfigMaps. */
    private static void patchConfigMap(String name, String mergePatch) {
        cluster.admin().configMaps().inNamespace(shards.objectsNamespace()).withName(name)
                .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> autoscalingStatus() {
        Object status = shards.status().get("autoscaling");
        return status instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
    }

    /** {@code status.autoscaling.desiredShards}, -1 while there is none. */
    private static int desiredShards() {
        return autoscalingStatus().get("desiredShards") instanceof Number desired ? desired.intValue() : -1;
    }

    /** The notes of the ring's {@code Scaled} Events (a cluster-scoped ring's are in {@code default}). */
    private static List<String> scaledEvents() {
        return cluster.admin().events().v1().events().inNamespace("default").list().getItems().stream()
                .filter(event -> "Scaled".equals(event.getReason())
                        && shards.ring().equals(event.getRegarding().getName()))
                .map(Event::getNote).filter(Objects::nonNull).toList();
    }

    /**
     * Updates the ring's ConfigMaps round-robin at a rate, each with the cost annotation and a new tick, so
     * each update is one reconcile of {@value #COST_MS} ms on the shard that owns the object. A tick finds one of
     * {@value #UPDATERS} updaters free or is skipped: when the API server stalls the updates do not pile up and
     * follow in a burst, which would be more load than the rate (a 15 s report window with a 10 s stall caught up
     * in it carries two thirds more).
     */
    private static final class Load implements AutoCloseable {

        private static final int UPDATERS = 3;

        private final List<String> names;
        private final AtomicLong ticks = new AtomicLong();
        private ScheduledExecutorService clock;
        private ExecutorService updaters;

        Load(List<String> names) {
            this.names = names;
        }

        /** Replaces the update rate (per second; 0 stops). */
        void rate(double perSecond) throws InterruptedException {
            if (clock != null) {
                clock.shutdownNow();
                updaters.shutdownNow();
                clock.awaitTermination(10, TimeUnit.SECONDS);
                updaters.awaitTermination(10, TimeUnit.SECONDS);
                clock = null;
            }
            if (perSecond > 0) {
                ExecutorService free = new ThreadPoolExecutor(UPDATERS, UPDATERS, 0, TimeUnit.SECONDS,
                        new SynchronousQueue<>(), new ThreadPoolExecutor.DiscardPolicy());
                updaters = free;
                clock = Executors.newSingleThreadScheduledExecutor();
                clock.scheduleAtFixedRate(() -> free.execute(this::updateNext), 0, Math.round(1e6 / perSecond),
                        TimeUnit.MICROSECONDS);
            }
        }

        private void updateNext() {
            long tick = ticks.getAndIncrement();
            String name = names.get((int) (tick % names.size()));
            try {
                patchConfigMap(name, """
                        {"metadata": {"annotations": {"%s": "%dms", "%s": "%d"}}}"""
                        .formatted(Cost.ANNOTATION, COST_MS, TICK_ANNOTATION, tick));
            } catch (RuntimeException e) {
                // one missed update is a little less load; the next tick goes on
            }
        }

        @Override
        public void close() throws InterruptedException {
            rate(0);
        }
    }
}
