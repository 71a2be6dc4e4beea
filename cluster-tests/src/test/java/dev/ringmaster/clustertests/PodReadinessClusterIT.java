package dev.ringmaster.clustertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.clustertests.support.CleanUp;
import dev.ringmaster.clustertests.support.SharderInstall;
import dev.ringmaster.clustertests.support.StatefulSetScenarios;
import dev.ringmaster.clustertests.support.Waiting;
import dev.ringmaster.ring.RingContract;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * (g) The pod-readiness lease detector (docs/plugins.md) with the kubelet's own pod readiness: the
 * sharder configured with {@code leaseDetector = pod-readiness} and {@code manifests/pod-readiness}'s
 * RBAC, as docs/install.md and docs/operating.md say (an overlay of one's own), and a shard pod with a
 * readiness probe that turns unready while the shard goes on renewing its Lease. The sharder takes
 * the shard for dead, moves its objects to the other shards and assigns it nothing new; ready again,
 * it gets objects back. Afterwards the install and the StatefulSet are as before.
 */
class PodReadinessClusterIT extends StatefulSetScenarios {

    /**
     * The probe the test adds to new shard pods: unready while {@code /tmp/unready} exists. Generous
     * timeout and four failures in a row: on a loaded machine an exec probe that merely ran late, or that
     * the container runtime failed to run (an event with no output), turned the pod unready for a moment,
     * and the sharder moved the live shard's objects without a drain (see docs/plugins.md on the
     * detector), which is not what this scenario is about.
     */
    private static final String PROBE = """
            [{"op": "add", "path": "/spec/template/spec/containers/0/readinessProbe", "value":
              {"exec": {"command": ["sh", "-c", "test ! -e /tmp/unready"]}, "periodSeconds": 1, "timeoutSeconds": 10,
               "failureThreshold": 4}},
             {"op": "add", "path": "/spec/updateStrategy", "value": {"type": "RollingUpdate", "rollingUpdate": {"partition": %d}}}]""";
    private static final String NO_PROBE = """
            [{"op": "remove", "path": "/spec/template/spec/containers/0/readinessProbe"},
             {"op": "replace", "path": "/spec/updateStrategy", "value": {"type": "RollingUpdate"}}]""";

    private static int replicas;

    @BeforeAll
    static void install() {
        cluster.installWith(SharderInstall.Extra.POD_READINESS);
    }

    @Test
    void anUnreadyShardPodIsNotAssignedTo() {
        Set<String> before = shards.settledWithObjects("readiness", Duration.ofSeconds(120));
        replicas = before.size();

        // one more shard pod, with a readiness probe: the StatefulSet's partition keeps the others as they are
        cluster.kubectl("-n", shards.namespace(), "patch", shards.workloadRef(), "--type=json", "-p", PROBE.formatted(replicas))
                .orThrow();
        Set<String> all = shards.scale(replicas + 1);
        String victim = all.stream().filter(shard -> !before.contains(shard)).findFirst().orElseThrow();
        shards.awaitSettledOn(all, Duration.ofSeconds(120));
        assertThat(shards.perShard()).as("the new shard got objects").containsKey(victim);

        cluster.kubectl("-n", shards.namespace(), "exec", victim, "--", "touch", "/tmp/unready").orThrow();
        Waiting.until(Duration.ofSeconds(60), () -> victim + " not Ready, its Lease dead while it holds it: "
                + shards.leases().get(victim) + "\n" + shards.diagnostics(), () -> !shards.readyPods().contains(victim)
                && "dead".equals(state(shards.leases().get(victim))) && victim.equals(holder(shards.leases().get(victim))));
        Set<String> others = new TreeSet<>(all);
        others.remove(victim);
        shards.awaitSettledOn(others, Duration.ofSeconds(120));
        assertThat(holder(shards.leases().get(victim))).as("the unready shard still renews its own Lease").isEqualTo(victim);
        assertThat(shards.pods().stream().filter(pod -> pod.getMetadata().getName().equals(victim)).findFirst().orElseThrow()
                .getStatus().getPhase()).isEqualTo("Running");

        List<String> onVictim = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ConfigMap created = shards.createConfigMap("while-unready-%02d".formatted(i));
            if (victim.equals(Optional.ofNullable(created.getMetadata().getLabels()).orElse(Map.of()).get(shards.shardLabel()))) {
                onVictim.add(created.getMetadata().getName());
            }
        }
        assertThat(onVictim).as("ConfigMaps assigned at create to the unready shard").isEmpty();
        shards.awaitSettledOn(others, Duration.ofSeconds(120));

        cluster.kubectl("-n", shards.namespace(), "exec", victim, "--", "rm", "/tmp/unready").orThrow();
        shards.awaitSettledOn(all, Duration.ofSeconds(120));
        assertThat(shards.perShard()).as("the shard, Ready again, got objects back").containsKey(victim);
        shards.assertNoOverlappingReconciles();
    }

    @AfterAll
    static void asBefore() throws Exception {
        if (shards == null) {
            return;
        }
        CleanUp.steps(() -> {
            if (replicas > 0) {
                shards.scale(replicas);
            }
        }, () -> {
            if (cluster.kubectl("-n", shards.namespace(), "get", shards.workloadRef(), "-o",
                    "jsonpath={.spec.template.spec.containers[0].readinessProbe}").out().contains("unready")) {
                cluster.kubectl("-n", shards.namespace(), "patch", shards.workloadRef(), "--type=json", "-p", NO_PROBE)
                        .orThrow();
            }
        }, () -> cluster.installWithout(SharderInstall.Extra.POD_READINESS),
                () -> shards.awaitSettledOn(shards.readyPods(), Duration.ofSeconds(120)));
    }

    private static String state(Lease lease) {
        return lease == null || lease.getMetadata().getLabels() == null ? null
                : lease.getMetadata().getLabels().get(RingContract.STATE_LABEL);
    }

    private static String holder(Lease lease) {
        return lease == null ? null : lease.getSpec().getHolderIdentity();
    }
}
