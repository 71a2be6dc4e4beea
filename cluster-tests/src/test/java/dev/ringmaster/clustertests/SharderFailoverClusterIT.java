package dev.ringmaster.clustertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.clustertests.support.Command;
import dev.ringmaster.clustertests.support.Sharder;
import dev.ringmaster.clustertests.support.StatefulSetScenarios;
import dev.ringmaster.clustertests.support.Waiting;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The sharder's Deployment (two replicas, a PodDisruptionBudget with {@code minAvailable: 1}, leader
 * election through the Lease {@code sharding-system/sharder}) disrupted while the example shards of
 * {@code examples/manifests/checksum-statefulset} work: a rolling update, and the leader killed. Both end with every ConfigMap of the ring on a ready shard with its Secret and no
 * overlapping reconciles.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SharderFailoverClusterIT extends StatefulSetScenarios {

    private static final Duration SETTLE = Duration.ofSeconds(120);
    /**
     * (d) {@code kubectl rollout restart deployment/sharder} while ConfigMaps are being created: at no
     * moment fewer than one Ready replica (the PodDisruptionBudget's {@code minAvailable}; the
     * Deployment's {@code maxUnavailable: 0} keeps both), every create succeeds and every ConfigMap
     * created during the rollout ends labelled, and leadership moves to a new pod.
     */
    @Test
    @Order(1)
    void rollingUpdateOfTheSharderWhileObjectsAreCreated() throws InterruptedException {
        shards.settledWithObjects("object", SETTLE);
        String leaderBefore = sharder.awaitLeader(Duration.ofSeconds(60));
        Set<String> podsBefore = sharder.podNames();

        List<String> created = new CopyOnWriteArrayList<>();
        List<String> labelledAtCreate = new CopyOnWriteArrayList<>();
        List<String> failed = new CopyOnWriteArrayList<>();
        List<Integer> pdbHealthy = new CopyOnWriteArrayList<>();
        AtomicInteger next = new AtomicInteger();
        ScheduledExecutorService creator = Executors.newSingleThreadScheduledExecutor();
        try (Sharder.Recorder recorder = sharder.record()) {
            // a ConfigMap every 200 ms, and the PDB's status with it, until the rollout is over
            creator.scheduleWithFixedDelay(() -> {
                String name = "rollout-%03d".formatted(next.getAndIncrement());
                try {
                    ConfigMap configMap = shards.createConfigMap(name);
                    created.add(name);
                    if (RingState.labels(configMap).containsKey(shards.shardLabel())) {
                        labelledAtCreate.add(name);
                    }
                } catch (RuntimeException e) {
                    failed.add(name + ": " + e.getMessage());
                }
                try {
                    pdbHealthy.add(sharder.pdbCurrentHealthy());
                } catch (RuntimeException e) {
                    failed.add("reading the PDB: " + e.getMessage());
                }
            }, 0, 200, TimeUnit.MILLISECONDS);

            Instant restarted = Instant.now();
            cluster.kubectl("-n", Sharder.NAMESPACE, "rollout", "restart", "deployment/sharder").orThrow();
            Command.Result rollout = cluster.kubectl("-n", Sharder.NAMESPACE, "rollout", "status", "deployment/sharder",
                    "--timeout=240s");
            assertThat(rollout.ok()).as(rollout.describe() + "\n" + sharder.diagnostics()).isTrue();
            Waiting.until(Duration.ofSeconds(60), () -> "the old sharder pods " + podsBefore + " gone; now " + sharder.podNames(),
                    () -> sharder.podNames().stream().noneMatch(podsBefore::contains));
            String leaderAfter = sharder.awaitLeader(Duration.ofSeconds(60));
            creator.shutdown();
            assertThat(creator.awaitTermination(30, TimeUnit.SECONDS)).as("the creator stopped").isTrue();
            System.err.printf("cluster-tests: rollout took %d s; leader %s -> %s; Lease holders %s; Ready replicas %s;"
                    + " %d ConfigMaps created during it, %d labelled at create; PDB currentHealthy seen %s%n",
                    Duration.between(restarted, Instant.now()).toSeconds(), leaderBefore, leaderAfter, recorder.holders(),
                    recorder.readiness(), created.size(), labelledAtCreate.size(), pdbHealthy.stream().distinct().sorted().toList());

            assertThat(failed).as("creates that failed during the rollout").isEmpty();
            assertThat(recorder.fewestReady()).as("fewest Ready sharder replicas during the rollout: " + recorder.readiness())
                    .isGreaterThanOrEqualTo(1);
            assertThat(pdbHealthy).as("the PodDisruptionBudget's currentHealthy during the rollout").allMatch(healthy -> healthy >= 1);
            assertThat(leaderAfter).as("leader after the rollout").isNotEqualTo(leaderBefore).isNotIn(podsBefore);
            assertThat(created).as("ConfigMaps created during the rollout").isNotEmpty();
        } finally {
            creator.shutdownNow();
        }
        shards.awaitSettledOn(shards.readyPods(), SETTLE);
        shards.assertNoOverlappingReconciles();
    }

    /**
     * (e) The leader killed: its container SIGKILLed through containerd (as the kernel's OOM killer
     * would, so it cannot release the Lease) and its pod force-deleted, so that it does not come back
     * under the same identity (the pod name) and simply carry on. Once the Lease expires another replica
     * takes it over and leads: the standby, or the pod the Deployment started in the killed one's place,
     * whichever asks first. The new leader goes on assigning: a shard
     * added afterwards gets its share of the objects through drains, and ConfigMaps created meanwhile
     * end labelled.
     */
    @Test
    @Order(2)
    void killTheLeader() {
        shards.atLeastObjects("object");
        Set<String> shardsBefore = shards.readyPods();
        shards.awaitSettledOn(shardsBefore, SETTLE);
        String leader = sharder.awaitLeader(Duration.ofSeconds(60));
        Set<String> standbys = new TreeSet<>(sharder.podNames());
        standbys.remove(leader);
        String containerId = Sharder.container(sharder.pod(leader).orElseThrow()).getContainerID()
                .replaceFirst("^containerd://", "");

        try (Sharder.Recorder recorder = sharder.record()) {
            Instant killed = Instant.now();
            cluster.ctr("tasks", "kill", "--signal", "SIGKILL", containerId).orThrow();
            cluster.kubectl("-n", Sharder.NAMESPACE, "delete", "pod", leader, "--grace-period=0", "--force", "--wait=false")
                    .orThrow();
            String next = Waiting.value(Duration.ofSeconds(90), () -> "another sharder pod leads after " + leader
                    + " was killed; holder " + sharder.leader() + "\n" + sharder.diagnostics(),
                    () -> sharder.leader().filter(holder -> !holder.equals(leader)).filter(sharder.podNames()::contains));
            Duration took = Duration.between(killed, Instant.now());
            System.err.printf("cluster-tests: leader %s killed; %s leads after %.1f s (%s); Lease holders %s%n",
                    leader, next, took.toMillis() / 1000.0, standbys.contains(next) ? "the standby" : "the replacement pod",
                    recorder.holders());
            // the Lease lasts 15 s; whoever is first once it expired leads, the standby or the pod that
            // replaces the killed one (both have been seen on this machine)
            assertThat(took).as("time until another replica leads").isLessThan(Duration.ofSeconds(45));
        }

        for (int i = 0; i < 20; i++) {
            shards.createConfigMap("after-kill-%02d".formatted(i));
        }
        Set<String> more = shards.scale(shardsBefore.size() + 1);
        shards.awaitSettledOn(more, SETTLE);
        assertThat(shards.perShard().keySet()).as("the shard added after the kill got objects").isEqualTo(more);

        Command.Result replaced = cluster.kubectl("-n", Sharder.NAMESPACE, "rollout", "status", "deployment/sharder",
                "--timeout=120s");
        assertThat(replaced.ok()).as("the Deployment replaced the killed pod: " + replaced.describe()).isTrue();
        shards.assertNoOverlappingReconciles();
    }
}
