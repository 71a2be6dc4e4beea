package dev.ringmaster.clustertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.clustertests.support.Examples;
import dev.ringmaster.clustertests.support.NodeCluster;
import dev.ringmaster.clustertests.support.PolicedScenarios;
import dev.ringmaster.clustertests.support.TimedScenarios;
import dev.ringmaster.clustertests.support.Waiting;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The example checksum controller as a StatefulSet of shards ({@code examples/manifests/checksum-statefulset})
 * on the sharder installed from {@code manifests/}, in a real cluster: admission through the ring's
 * webhook in Service mode, the shard StatefulSet scaled, a shard pod deleted. Every scenario ends with
 * every ConfigMap of the ring on a ready shard, none in drain, each with its up-to-date Secret, and no
 * object reconciled by two shards at overlapping times over every shard pod that ever ran.
 */
@ExtendWith({TimedScenarios.class, PolicedScenarios.class})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RingShardsClusterIT {

    private static final Duration SETTLE = Duration.ofSeconds(120);
    private static Examples shards;

    @BeforeAll
    static void install() {
        shards = NodeCluster.get().examples("checksum-statefulset");
    }

    /**
     * (a) The ring's MutatingWebhookConfiguration, written by the sharder, points at the Service
     * {@code sharding-system/sharder}; the API server calls it through the Service's endpoints, so a
     * ConfigMap comes back from its create call already carrying its shard label.
     */
    @Test
    @Order(1)
    void webhookInServiceModeLabelsObjectsAtCreate() {
        Waiting.until(Duration.ofSeconds(60), () -> "ring " + shards.ring() + " Ready with a webhook configuration"
                + " that has a caBundle: " + shards.webhookConfiguration(), () -> shards.isReady()
                && shards.webhookConfiguration().map(RingShardsClusterIT::hasCaBundle).orElse(false));
        MutatingWebhook webhook = shards.webhookConfiguration().orElseThrow().getWebhooks().get(0);
        assertThat(webhook.getClientConfig().getUrl()).as("Service mode, no URL").isNull();
        assertThat(webhook.getClientConfig().getService().getNamespace()).isEqualTo("sharding-system");
        assertThat(webhook.getClientConfig().getService().getName()).isEqualTo("sharder");
        assertThat(webhook.getClientConfig().getService().getPort()).isEqualTo(443);

        Set<String> ready = shards.readyShards();
        List<String> unlabelled = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ConfigMap created = shards.createConfigMap("webhook-%02d".formatted(i));
            String shard = Optional.ofNullable(created.getMetadata().getLabels()).orElse(Map.of()).get(shards.shardLabel());
            if (shard == null || !ready.contains(shard)) {
                unlabelled.add(created.getMetadata().getName() + "=" + shard);
            }
        }
        assertThat(unlabelled).as("ConfigMaps whose create call did not return them on a ready shard " + ready).isEmpty();

        shards.awaitSettledOn(shards.readyPods(), SETTLE);
        shards.assertNoOverlappingReconciles();
    }

    private static boolean hasCaBundle(MutatingWebhookConfiguration configuration) {
        return configuration.getWebhooks().stream().allMatch(hook -> hook.getClientConfig().getCaBundle() != null
                && !hook.getClientConfig().getCaBundle().isBlank());
    }

    /** (b) The shard StatefulSet scaled 3 → 4 → 2: objects move to the new shard, then off the two removed ones. */
    @Test
    @Order(2)
    void scaleTheShardStatefulSet() {
        shards.atLeastObjects("object");
        shards.awaitSettledOn(shards.scale(3), SETTLE);

        Set<String> four = shards.scale(4);
        assertThat(four).hasSize(4);
        shards.awaitSettledOn(four, SETTLE);
        assertThat(shards.perShard().keySet()).as("every one of 4 shards has objects").containsAll(four);

        Set<String> two = shards.scale(2);
        shards.awaitSettledOn(two, SETTLE);
        assertThat(shards.perShard().keySet()).as("objects only on the 2 shards left").isEqualTo(two);
        shards.assertNoOverlappingReconciles();
    }

    /**
     * Every example shard's JVM runs on the class data sharing archive its image made (examples.Dockerfile):
     * the archive is mapped into the container's process, which the JVM does only when the archive fits
     * it (else it runs without, silently).
     */
    @Test
    @Order(3)
    void everyShardRunsOnItsImagesClassArchive() {
        List<Pod> pods = shards.pods();
        assertThat(pods).as("shard pods").isNotEmpty();
        for (Pod pod : pods) {
            String maps = NodeCluster.get().kubectl("-n", shards.namespace(), "exec", pod.getMetadata().getName(), "--",
                    "cat", "/proc/1/maps").orThrow().out();
            assertThat(maps).as("%s's JVM maps its archive", pod.getMetadata().getName())
                    .contains("/opt/ringmaster/lib/checksum-controller.jsa");
        }
    }

    /** (c) A shard pod deleted: the StatefulSet brings it back under the same name, and the objects end on available shards. */
    @Test
    @Order(4)
    void aDeletedShardPodComesBack() {
        shards.atLeastObjects("object");
        Set<String> before = shards.readyPods();
        assertThat(before).as("shard pods before").isNotEmpty();
        String victim = new TreeSet<>(before).last();
        String uid = shards.pods().stream().filter(pod -> pod.getMetadata().getName().equals(victim)).findFirst()
                .orElseThrow().getMetadata().getUid();

        shards.deletePod(victim);

        Waiting.until(SETTLE, () -> victim + " back, Ready, as a new pod\n" + shards.diagnostics(), () -> shards.pods().stream()
                .filter(pod -> pod.getMetadata().getName().equals(victim) && !pod.getMetadata().getUid().equals(uid))
                .anyMatch(Examples::ready));
        shards.awaitRolledOut();
        assertThat(shards.readyPods()).isEqualTo(before);
        shards.awaitSettledOn(before, SETTLE);
        shards.assertNoOverlappingReconciles();
    }
}
